#!/usr/bin/env bash
# Retrieval evaluation on the 2WikiMultiHopQA development set (eval/2wiki: 780 passages, 50
# multi-hop questions with their gold passages), fully offline by default: rule-based extraction
# and the local embedding model (installed if missing). Every retrieval mode is measured; the
# index is kept in ./eval_storage/2wiki and reused (an interrupted run continues), the results go
# to ./eval-results/2wiki (results.json, results.md, chart.svg).
#
# Usage: scripts/eval-2wiki.sh [lightrag eval options …]
#   e.g. scripts/eval-2wiki.sh --modes naive,local --baseline eval-results/2wiki/results.json --out eval-results/new
# With an LLM configured in the environment (LLM_BINDING=openai …) extraction and keywords use it
# instead (index into another --working-dir: EVAL_WORKING_DIR=…); add --answers to score answers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "eval-2wiki.sh: error: $*" >&2; exit 1; }
command -v cargo >/dev/null 2>&1 || die "cargo is needed to build lightrag: install Rust from https://rustup.rs and re-run"

export LLM_BINDING="${LLM_BINDING:-none}"
if [[ "${EMBEDDING_BINDING:-local}" == "local" ]]; then
  "$ROOT/scripts/install-model.sh"
fi
"$ROOT/scripts/ensure-cxx.sh"
echo "building lightrag (release; the first build takes a few minutes) ..." >&2
(cd "$ROOT" && cargo build --release --quiet -p lightrag-cli) || die "cargo build failed (see above)"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
[[ "$TARGET_DIR" == /* ]] || TARGET_DIR="$ROOT/$TARGET_DIR"

# defaults for the options not given
modes=(--modes all)
out=(--out eval-results/2wiki)
for arg in "$@"; do
  case "$arg" in
    --modes|--modes=*) modes=() ;;
    --out|--out=*) out=() ;;
  esac
done
exec "$TARGET_DIR/release/lightrag" --working-dir "${EVAL_WORKING_DIR:-eval_storage/2wiki}" eval \
  --corpus "$ROOT/eval/2wiki/corpus.jsonl" --questions "$ROOT/eval/2wiki/questions.jsonl" \
  "${modes[@]}" "${out[@]}" "$@"
