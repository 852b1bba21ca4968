#!/usr/bin/env bash
# The Python package's tests (crates/interfaces/python; scripts/test.sh runs this after the Rust
# tests, whose debug `lightrag` and `scripted-llm` binaries the tests drive):
#
#   1. a venv of its own under the cargo target folder with the pinned test tools
#      (scripts/python/test-requirements.txt, pip --require-hashes);
#   2. the wheel, built in the dev profile (scripts/build-wheel.sh --dev) and installed into it;
#   3. mypy --strict on the package and on the examples (through the wheel's type information);
#   4. pytest: LightRAG's examples, callables, streaming, edits, concurrency, cancellation and a
#      knowledge base shared with the CLI and `lightrag serve`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

target_dir="$(mkdir -p "${CARGO_TARGET_DIR:-target}" && cd "${CARGO_TARGET_DIR:-target}" && pwd)"
venv="$target_dir/python/test-venv"
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum scripts/python/test-requirements.txt | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/python" || "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r scripts/python/test-requirements.txt
  echo "$wanted" >"$stamp"
fi

wheel="$(CARGO_TARGET_DIR="$target_dir" scripts/build-wheel.sh --dev --out="$target_dir/python/dist" | tail -1)"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps --force-reinstall "$wheel"

# the package's own code (with its stubs) and the examples as users would type-check them; mypy's
# cache goes under the target folder, so the checkout stays as it was
mypy=("$venv/bin/mypy" --strict --no-incremental --cache-dir "$target_dir/python/mypy-cache")
(cd crates/interfaces/python/python && "${mypy[@]}" lightrag_rs)
(cd crates/interfaces/python/examples && "${mypy[@]}" .)
CARGO_TARGET_DIR="$target_dir" "$venv/bin/python" -m pytest -p no:cacheprovider -q crates/interfaces/python/tests "$@"
