#!/usr/bin/env bash
# Indexing throughput with 1, 2, 4 … `lightrag worker` processes on one knowledge base, against the
# scripted LLM answering every request after a fixed delay (the realistic case: the model is the
# bottleneck, and each worker brings its own MAX_ASYNC calls in flight). For every worker count:
# a fresh knowledge base, the State of the Union corpus (233 addresses, ~2,000 chunks) enqueued
# with `lightrag insert --no-wait`, then N workers started at once with `--exit-when-done`; the
# wall time until the last one exits. Prints a Markdown table (BENCHMARKS.md).
#
# Usage: scripts/bench-workers.sh [--workers "1 2 4"] [--delay-ms 200] [--docs N] [--kill-after SECS]
#   --docs N             only the first N addresses (default: all 233)
#   --kill-after SECS    then 3 workers, one killed with SIGKILL after SECS: every document must be
#                        processed once and the graph (entities, relations, weights, every record's
#                        chunks) must equal the one-worker run's
# Builds the release binaries first (cargo build --release -p lightrag-cli -p lightrag-scripted-llm).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

WORKERS="1 2 4"
DELAY_MS=200
DOCS=0
KILL_AFTER=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --workers) WORKERS="$2"; shift 2 ;;
    --delay-ms) DELAY_MS="$2"; shift 2 ;;
    --docs) DOCS="$2"; shift 2 ;;
    --kill-after) KILL_AFTER="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
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

CONTROL="${BASE%/v1}/_control"
echo "| workers | documents | chunks | wall | documents/s | speed-up | extract + glean calls | summary calls | embedding requests |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
first=""
for n in $WORKERS; do
  export WORKING_DIR="$WORK/kb-$n"
  "$LIGHTRAG" insert --no-wait "$WORK/docs" > /dev/null
  curl -s -X POST "$CONTROL/reset" > /dev/null
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
  calls=$(curl -s "$CONTROL/stats" | python3 -c '
import json, sys
s = json.load(sys.stdin)
print("%d + %d | %d | %d" % (s["extract"], s["glean"], s["summary"], s["embed"]))')
  echo "| $n | $NDOCS | $chunks | ${wall} s | $(python3 -c "print(f'{$NDOCS / ($end - $start):.2f}')") | $(python3 -c "print(f'{$first / $wall:.2f}×')") | $calls |"
done

[[ -z "$KILL_AFTER" ]] && exit 0

# What must not depend on how many workers built the graph: entity names, relation keys and
# weights (from the export), and the whole provenance — the chunks supporting each record, from the
# store's rows (the export's `source_id` is cut to MAX_SOURCE_IDS_PER_ENTITY in merge order, as in
# LightRAG, so it may differ). Entity types are a majority vote whose ties fall to merge order (as
# in LightRAG): how many differ is reported, not required to be 0.
projection() {
  WORKING_DIR="$1" "$LIGHTRAG" graph export --format json > "$1.graph.json"
  python3 - "$1" <<'PY'
import json, sqlite3, sys
kb = sys.argv[1]
g = json.load(open(kb + ".graph.json"))
db = sqlite3.connect(f"file:{kb}/lightrag.db?mode=ro", uri=True)
entities, relations = {}, {}
for name, chunk in db.execute("SELECT entity, chunk_id FROM entity_chunks"):
    entities.setdefault(name, set()).add(chunk)
for src, tgt, chunk in db.execute("SELECT src, tgt, chunk_id FROM relation_chunks"):
    relations.setdefault(f"{src}\u001f{tgt}", set()).add(chunk)
print(json.dumps({
    "nodes": sorted(n["id"] for n in g["nodes"]),
    "edges": sorted((min(e["source"], e["target"]), max(e["source"], e["target"]), e.get("weight")) for e in g["edges"]),
    "entity_chunks": sorted((k, sorted(v)) for k, v in entities.items()),
    "relation_chunks": sorted((k, sorted(v)) for k, v in relations.items()),
}))
PY
}

type_differences() {
  python3 - "$1.graph.json" "$2.graph.json" <<'PY'
import json, sys
a, b = ({n["id"]: n.get("entity_type") for n in json.load(open(p))["nodes"]} for p in sys.argv[1:3])
print(sum(1 for k in a if k in b and a[k] != b[k]))
PY
}

if [[ ! -d "$WORK/kb-1" ]]; then
  export WORKING_DIR="$WORK/kb-1"
  "$LIGHTRAG" insert "$WORK/docs" > /dev/null 2>&1
fi
export WORKING_DIR="$WORK/kb-kill"
"$LIGHTRAG" insert --no-wait "$WORK/docs" > /dev/null
start=$(date +%s.%N)
pids=()
for i in 1 2 3; do
  "$LIGHTRAG" worker --exit-when-done --poll-secs 0.5 --json > "$WORK/kill-$i.json" 2> "$WORK/kill-$i.err" &
  pids+=($!)
done
sleep "$KILL_AFTER"
kill -9 "${pids[0]}"
wait "${pids[0]}" 2>/dev/null || true
for pid in "${pids[@]:1}"; do
  wait "$pid" || { echo "a surviving worker failed; see $WORK/kill-*.err" >&2; trap - EXIT; exit 1; }
done
end=$(date +%s.%N)
victim=$(grep -c '^processed ' "$WORK/kill-1.err" || true)
commits=$(cat "$WORK"/kill-*.err | grep '^processed ' | wc -l)
unique=$(cat "$WORK"/kill-*.err | grep '^processed ' | cut -d: -f1 | sort -u | wc -l)
counts=$("$LIGHTRAG" status --json | python3 -c '
import json, sys
c = json.load(sys.stdin)["status_counts"]
print(c.get("processed", 0), c.get("failed", 0), c.get("processing", 0))')
read -r processed failed processing <<< "$counts"
same=no
[[ "$(projection "$WORK/kb-1")" == "$(projection "$WORK/kb-kill")" ]] && same=yes
types=$(type_differences "$WORK/kb-1" "$WORK/kb-kill")
echo
echo "| 3 workers, one SIGKILLed after ${KILL_AFTER} s | value |"
echo "|---|---:|"
echo "| documents committed by the killed worker before it died | $victim |"
echo "| commits in all (every log) / distinct documents | $commits / $unique |"
echo "| processed / failed / still processing | $processed / $failed / $processing |"
echo "| wall until the survivors finished | $(python3 -c "print(f'{$end - $start:.1f}')") s |"
echo "| graph equal to the one-worker run (entities, relations, weights, every record's chunks) | $same |"
echo "| entities whose type differs (majority vote, ties fall to merge order as in LightRAG) | $types |"
[[ "$processed" == "$NDOCS" && "$failed" == "0" && "$commits" == "$NDOCS" && "$unique" == "$NDOCS" && "$same" == "yes" ]] \
  || { echo "the kill run did not index every document once into the same graph; see $WORK/kill-*.err" >&2; trap - EXIT; exit 1; }
