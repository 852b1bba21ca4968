#!/usr/bin/env bash
# Retrieval evaluation on the development sets shipped in eval/ — fully offline by default:
# rule-based extraction and the local embedding model (installed if missing). Every retrieval
# mode and the BM25 baseline are measured.
#
#   2wiki    eval/2wiki:   780 passages, 50 two-hop 2WikiMultiHopQA questions
#   hotpot   eval/hotpot:  994 passages, 50 HotpotQA questions (bridge and comparison)
#   musique  eval/musique: 1,890 passages, 50 MuSiQue questions (2 to 4 hops)
#   all      the three, one after the other
#
# Each set's index is kept in $EVAL_STORAGE/<set> (default ./eval_storage/<set>) and reused: an
# interrupted run continues, a later run indexes nothing again. The results go to
# ./eval-results/<set> (results.json, results.md, chart.svg); with --out DIR and several sets,
# to DIR/<set>.
#
# Usage: scripts/eval.sh [2wiki|hotpot|musique|all] [lightrag eval options …]
#   e.g. scripts/eval.sh all
#        scripts/eval.sh hotpot --modes naive,bm25,auto --baseline eval-results/hotpot/results.json --out eval-results/new
# With an LLM configured in the environment (LLM_BINDING=openai …) extraction and keywords use it
# instead (keep that index apart: EVAL_STORAGE=…); add --answers to score answers.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
die() { echo "eval.sh: error: $*" >&2; exit 1; }

sets=()
case "${1:-all}" in
  2wiki|hotpot|musique) sets=("$1"); shift ;;
  all) sets=(2wiki hotpot musique); [[ $# -eq 0 ]] || shift ;;
  -*) sets=(2wiki hotpot musique) ;;
  *) die "unknown set '$1' (use 2wiki, hotpot, musique or all)" ;;
esac
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

# defaults for the options not given; --out DIR is kept apart to add the set's name
modes=(--modes all)
out_dir=""
rest=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --modes|--modes=*) modes=(); rest+=("$1") ;;
    --out) [[ $# -ge 2 ]] || die "--out needs a folder"; out_dir="$2"; shift ;;
    --out=*) out_dir="${1#--out=}" ;;
    *) rest+=("$1") ;;
  esac
  shift
done

for set in "${sets[@]}"; do
  if [[ -z "$out_dir" ]]; then
    out="eval-results/$set"
  elif [[ ${#sets[@]} -gt 1 ]]; then
    out="$out_dir/$set"
  else
    out="$out_dir"
  fi
  echo "== $set ==" >&2
  "$TARGET_DIR/release/lightrag" --working-dir "${EVAL_STORAGE:-eval_storage}/$set" eval \
    --corpus "$ROOT/eval/$set/corpus.jsonl" --questions "$ROOT/eval/$set/questions.jsonl" \
    "${modes[@]}" --out "$out" ${rest[@]+"${rest[@]}"}
done
