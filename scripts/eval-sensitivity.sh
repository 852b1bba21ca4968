#!/usr/bin/env bash
# Sensitivity of `auto` to the seven fused-walk settings (BENCHMARKS.md, "Retrieval on three
# multi-hop sets", held-out check): all gold @8 of `lightrag eval --modes auto` on each set with the
# defaults, then with each setting at half and one and a half times its default (integers
# rounded), the others at their defaults. Uses the kept indexes of scripts/eval.sh
# ($EVAL_STORAGE/<set>, default ./eval_storage/<set>; run scripts/eval.sh first) and a release
# build already made (or LIGHTRAG_BIN=path). Prints one markdown row per variant.
#
# Usage: scripts/eval-sensitivity.sh [2wiki hotpot musique]
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET_DIR="${CARGO_TARGET_DIR:-target}"
[[ "$TARGET_DIR" == /* ]] || TARGET_DIR="$ROOT/$TARGET_DIR"
BIN="${LIGHTRAG_BIN:-$TARGET_DIR/release/lightrag}"
[[ -x "$BIN" ]] || { echo "eval-sensitivity.sh: error: build first: cargo build --release -p lightrag-cli" >&2; exit 1; }
sets=("$@")
[[ ${#sets[@]} -gt 0 ]] || sets=(2wiki hotpot musique)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export LLM_BINDING="${LLM_BINDING:-none}"

# setting, default, half, one and a half
variants=(
  "-            -   -    -"
  "PPR_FUSION_WALK_WEIGHT    1.5 0.75 2.25"
  "PPR_FUSION_VECTOR_WEIGHT  1   0.5  1.5"
  "PPR_FUSION_LEXICAL_WEIGHT 1   0.5  1.5"
  "PPR_HOP_WEIGHT            1.5 0.75 2.25"
  "PPR_HOP_FROM              2   1    3"
  "PPR_FUSION_DEPTH          3   2    4"
  "PPR_FUSION_K              10  5    15"
)

# all gold @8 of auto on a set with the given environment
at8() {
  local set="$1"; shift
  env "$@" "$BIN" --working-dir "${EVAL_STORAGE:-eval_storage}/$set" eval \
    --questions "$ROOT/eval/$set/questions.jsonl" --modes auto --out "$out/$set" >/dev/null 2>"$out/log" \
    || { cat "$out/log" >&2; exit 1; }
  python3 -c 'import json,sys; print("%.2f" % json.load(open(sys.argv[1]))["modes"][0]["summary"]["all_gold_at"][2])' \
    "$out/$set/results.json"
}

header="| setting (default) | value |"
rule="|---|---:|"
for set in "${sets[@]}"; do header+=" $set |"; rule+="---:|"; done
echo "$header"
echo "$rule"
for v in "${variants[@]}"; do
  read -r name default half more <<<"$v"
  if [[ "$name" == "-" ]]; then
    row="| defaults | – |"
    for set in "${sets[@]}"; do row+=" $(at8 "$set" X_NONE=1) |"; done
    echo "$row"
    continue
  fi
  for value in "$half" "$more"; do
    row="| \`$name\` ($default) | $value |"
    for set in "${sets[@]}"; do row+=" $(at8 "$set" "$name=$value") |"; done
    echo "$row"
  done
done
