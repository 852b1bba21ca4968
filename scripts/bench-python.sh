#!/usr/bin/env bash
# The Python package's benchmark (BENCHMARKS.md, "Python package"): LightRAG 1.5.7 against
# lightrag_rs through LightRAG's Python API, on the same corpus and the scripted (instant) model.
#
#   scripts/bench-python.sh [--chunks 500] [--queries 20]
#
# Makes a venv of its own (never the tests'): lightrag-hku==1.5.7 from PyPI and the release wheel
# (scripts/build-wheel.sh). tiktoken's o200k_base comes from the tiktoken-rs crate in cargo's
# registry (the same file, checked by tiktoken's own hash), since tiktoken would download it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

chunks=500
queries=20
while [[ $# -gt 0 ]]; do
  case "$1" in
    --chunks) chunks="$2"; shift 2 ;;
    --queries) queries="$2"; shift 2 ;;
    *) echo "usage: scripts/bench-python.sh [--chunks N] [--queries Q]" >&2; exit 2 ;;
  esac
done

target_dir="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
venv="$target_dir/python/bench-venv"
if [[ ! -x "$venv/bin/python" ]] || ! "$venv/bin/python" -c "import lightrag" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check lightrag-hku==1.5.7
fi
wheel="$(CARGO_TARGET_DIR="$target_dir" scripts/build-wheel.sh --out="$target_dir/python/release-dist" | tail -1)"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheel"

corpus="../shared/corpus/sotu"
[[ -d "$corpus" ]] || { scripts/fetch-corpus.sh >/dev/null; corpus="${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/corpus/sotu"; }

export TIKTOKEN_CACHE_DIR="$target_dir/python/tiktoken-cache"
mkdir -p "$TIKTOKEN_CACHE_DIR"
bpe="$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path '*tiktoken-rs-*/assets/o200k_base.tiktoken' | head -1)"
# tiktoken names its cache file by the SHA-1 of the download URL
cp "$bpe" "$TIKTOKEN_CACHE_DIR/fb374d419588a4632f3f557e76b4b70aebbca790"

cargo build --locked -p lightrag-scripted-llm >&2
"$target_dir/debug/scripted-llm" --dim 1536 >"$target_dir/python/scripted-url" &
scripted=$!
trap 'kill $scripted 2>/dev/null || true' EXIT
for _ in $(seq 50); do [[ -s "$target_dir/python/scripted-url" ]] && break; sleep 0.1; done
url="$(head -1 "$target_dir/python/scripted-url")"

for impl in lightrag callbacks native; do
  work="$(mktemp -d)"
  "$venv/bin/python" crates/interfaces/python/bench/bench_vs_lightrag.py --impl "$impl" --url "$url" \
    --corpus "$corpus" --chunks "$chunks" --queries "$queries" --work "$work"
  rm -rf "$work"
done
