#!/usr/bin/env bash
# Indexing throughput with 1, 2, 4 … `lightrag worker` processes on one knowledge base, against the
# scripted LLM answering every request after a fixed delay (the realistic case: the model is the
# bottleneck, and each worker brings its own MAX_ASYNC calls in flight). For every worker count:
# a fresh knowledge base, the State of the Union corpus (233 addresses, ~2,000 chunks) enqueued
# with `lightrag insert --no-wait`, then N workers started at once with `--exit-when-done`; the
# wall time until the last one exits. Prints a Markdown table (BENCHMARKS.md).
#
# Usage: scripts/bench-workers.sh [--workers "1 2 4"] [--delay-ms 200] [--docs N]
#   --docs N   only the first N addresses (default: all 233)
# Builds the release binaries first (cargo build --release -p lightrag-cli -p lightrag-scripted-llm).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

WORKERS="1 2 4"
DELAY_MS=200
DOCS=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --workers) WORKERS="$2"; shift 2 ;;
    --delay-ms) DELAY_MS="$2"; shift 2 ;;
    --docs) DOCS="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

scripts/fetch-corpus.sh >&2
CORPUS=$(scripts/fetch-corpus.sh --print-dir)
cargo build --release --locked -p lightrag-cli -p lightrag-scripted-llm >&2
TARGET_DIR=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
LIGHTRAG="$TARGET_DIR/release/lightrag"
SCRIPTED="$TARGET_DIR/release/scripted-llm"

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

"$SCRIPTED" --delay-ms "$DELAY_MS" --dim 64 > "$WORK/server.out" &
SERVER_PID=$!
for _ in $(seq 1 100); do [[ -s "$WORK/server.out" ]] && break; sleep 0.1; done
BASE=$(head -1 "$WORK/server.out")
[[ -n "$BASE" ]] || { echo "the scripted LLM did not start" >&2; exit 1; }

mkdir -p "$WORK/docs"
if [[ "$DOCS" -gt 0 ]]; then
  find "$CORPUS" -name '*.txt' | sort | head -n "$DOCS" | xargs -I{} cp {} "$WORK/docs/"
else
  cp "$CORPUS"/*.txt "$WORK/docs/"
fi
NDOCS=$(ls "$WORK/docs" | wc -l)

export LLM_BINDING=openai LLM_BINDING_HOST="$BASE" LLM_MODEL=scripted
export EMBEDDING_BINDING=openai EMBEDDING_BINDING_HOST="$BASE" EMBEDDING_MODEL=scripted EMBEDDING_DIM=64

echo "| workers | documents | chunks | wall | documents/s | speed-up |"
echo "|---:|---:|---:|---:|---:|---:|"
first=""
for n in $WORKERS; do
  export WORKING_DIR="$WORK/kb-$n"
  "$LIGHTRAG" insert --no-wait "$WORK/docs" > /dev/null
  start=$(date +%s.%N)
  pids=()
  for i in $(seq 1 "$n"); do
    "$LIGHTRAG" worker --exit-when-done --poll-secs 0.5 --json > "$WORK/worker-$n-$i.json" 2> "$WORK/worker-$n-$i.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do
    wait "$pid" || { echo "a worker failed; see $WORK/worker-$n-*.err" >&2; trap - EXIT; exit 1; }
  done
  end=$(date +%s.%N)
  counts=$("$LIGHTRAG" status --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
c = d["status_counts"]
chunks = sum(doc.get("chunks_count") or 0 for doc in d.get("documents", []))
print(c.get("processed", 0), c.get("failed", 0), chunks)')
  read -r processed failed chunks <<< "$counts"
  [[ "$processed" == "$NDOCS" && "$failed" == "0" ]] || { echo "$n workers: processed $processed of $NDOCS, failed $failed" >&2; exit 1; }
  wall=$(python3 -c "print(f'{$end - $start:.1f}')")
  [[ -z "$first" ]] && first=$wall
  echo "| $n | $NDOCS | $chunks | ${wall} s | $(python3 -c "print(f'{$NDOCS / ($end - $start):.2f}')") | $(python3 -c "print(f'{$first / $wall:.2f}×')") |"
done
