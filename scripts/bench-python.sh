#!/usr/bin/env bash
# The Python package's benchmark (BENCHMARKS.md, "Python package"): LightRAG 1.5.7 against
# lightrag_rs through LightRAG's Python API, on the same corpus and the scripted (instant) model.
#
#   scripts/bench-python.sh [--chunks 500] [--queries 20] [--only IMPLS] [--reuse-lightrag[=FILE]]
#
# Runs LightRAG 1.5.7, lightrag_rs through Python callbacks and lightrag_rs with the native
# bindings, each in a process of its own, and prints one JSON line for each and then the ratios.
# Every line is also recorded in $CARGO_TARGET_DIR/python/bench-results/IMPL.json.
#   --only callbacks,native   runs only these (lightrag, callbacks, native);
#   --reuse-lightrag[=FILE]   does not run LightRAG (its side takes ~35 min on a loaded machine and
#                             does not change with our code): takes its line from FILE (default:
#                             the one recorded by an earlier run, bench-results/lightrag.json),
#                             which must be of the same --chunks and --queries.
#
# Makes a venv of its own (never the tests'): lightrag-hku==1.5.7 from PyPI and the release wheel
# (scripts/build-wheel.sh). tiktoken's o200k_base comes from the tiktoken-rs crate in cargo's
# registry (the same file, checked by tiktoken's own hash), since tiktoken would download it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

usage="usage: scripts/bench-python.sh [--chunks N] [--queries Q] [--only lightrag,callbacks,native] [--reuse-lightrag[=FILE]]"
chunks=500
queries=20
impls="lightrag,callbacks,native"
reuse=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --chunks) chunks="$2"; shift 2 ;;
    --queries) queries="$2"; shift 2 ;;
    --only) impls="$2"; shift 2 ;;
    --reuse-lightrag) reuse="default"; shift ;;
    --reuse-lightrag=*) reuse="${1#--reuse-lightrag=}"; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
for impl in ${impls//,/ }; do
  case "$impl" in lightrag | callbacks | native) ;; *) echo "$usage" >&2; exit 2 ;; esac
done

target_dir="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
results="$target_dir/python/bench-results"
mkdir -p "$results"
if [[ -n "$reuse" ]]; then
  [[ "$reuse" == default ]] && reuse="$results/lightrag.json"
  [[ -s "$reuse" ]] || { echo "--reuse-lightrag: no recorded LightRAG line in $reuse (run once without it)" >&2; exit 2; }
  # the record must be of the same corpus size and query count
  python3 - "$reuse" "$chunks" "$queries" <<'PY' || exit 2
import json, sys
line = json.loads(open(sys.argv[1]).read().splitlines()[-1])
if line.get("impl") != "lightrag" or line.get("chunks_asked") not in (None, int(sys.argv[2])) or line.get("queries") != 3 * int(sys.argv[3]):
    sys.exit(f"--reuse-lightrag: {sys.argv[1]} is not a LightRAG run of --chunks {sys.argv[2]} --queries {sys.argv[3]}: {line}")
PY
  impls="${impls//lightrag/}"
fi
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
rm -f "$target_dir/python/scripted-url"
"$target_dir/debug/scripted-llm" --dim 1536 >"$target_dir/python/scripted-url" &
scripted=$!
trap 'kill $scripted 2>/dev/null || true' EXIT
# an empty URL would send the runs to api.openai.com (the bindings' default host): wait for it
for _ in $(seq 300); do [[ -s "$target_dir/python/scripted-url" ]] && break; sleep 0.1; done
url="$(head -1 "$target_dir/python/scripted-url")"
[[ "$url" == http* ]] || { echo "the scripted model server did not start (no URL after 30 s)" >&2; exit 1; }

for impl in ${impls//,/ }; do
  work="$(mktemp -d)"
  "$venv/bin/python" crates/interfaces/python/bench/bench_vs_lightrag.py --impl "$impl" --url "$url" \
    --corpus "$corpus" --chunks "$chunks" --queries "$queries" --work "$work" | tee "$results/$impl.out"
  # the JSON line only (LightRAG's import prints its package checks on stdout)
  tail -1 "$results/$impl.out" >"$results/$impl.json"
  rm -rf "$work"
done
lightrag_line="$results/lightrag.json"
if [[ -n "$reuse" ]]; then
  lightrag_line="$reuse"
  echo "reused: $(tail -1 "$reuse")"
fi

# LightRAG's figures over ours (indexing CPU: the targets are >= 10 with callbacks, >= 30 native)
python3 - "$lightrag_line" "$results" ${impls//,/ } <<'PY'
import json, sys
from pathlib import Path
def line(path):
    return json.loads(Path(path).read_text().splitlines()[-1]) if Path(path).is_file() else None
base = line(sys.argv[1])
for impl in sys.argv[3:]:
    ours = line(Path(sys.argv[2]) / f"{impl}.json")
    if base and ours and impl != "lightrag":
        print(f"{impl}: indexing CPU 1/{base['index_cpu_s'] / ours['index_cpu_s']:.1f}, "
              f"query context p50 1/{base['query_context_p50_ms'] / ours['query_context_p50_ms']:.1f}")
PY
