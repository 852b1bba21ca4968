#!/usr/bin/env bash
# Builds the Python package `lightrag-rs` (import name lightrag_rs; crates/interfaces/python) into
# dist/ as one abi3 wheel for CPython >= 3.10:
#
#   scripts/build-wheel.sh            # release build, stripped: dist/lightrag_rs-<version>-cp310-abi3-<platform>.whl
#   scripts/build-wheel.sh --dev      # the dev profile (what scripts/test.sh installs: reuses the test build)
#   pip install dist/lightrag_rs-*.whl
#
# maturin comes from PyPI, pinned with its hash (scripts/python/build-requirements.txt), into a
# venv of its own under the cargo target folder; python3 (>= 3.10) must be on PATH.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

profile=(--release)
out=dist
for arg in "$@"; do
  case "$arg" in
    --dev) profile=(--profile dev) ;;
    --out=*) out="${arg#--out=}" ;;
    *) echo "usage: scripts/build-wheel.sh [--dev] [--out=DIR]" >&2; exit 2 ;;
  esac
done

target_dir="${CARGO_TARGET_DIR:-target}"
venv="$target_dir/python/build-venv"
# made again when the pinned requirements change (or a previous install was interrupted)
stamp="$venv/.requirements.sha256"
wanted="$(sha256sum scripts/python/build-requirements.txt | cut -d' ' -f1)"
if [[ ! -x "$venv/bin/maturin" || "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes \
    -r scripts/python/build-requirements.txt
  echo "$wanted" >"$stamp"
fi

# the vector index's C++ (usearch) needs a compiler, as for every other build of the workspace
scripts/ensure-cxx.sh
mkdir -p "$out"
# a wheel of an older build would be picked up by `pip install dist/lightrag_rs-*.whl`
rm -f "$out"/lightrag_rs-*.whl
"$venv/bin/maturin" build --locked "${profile[@]}" --strip \
  --manifest-path crates/interfaces/python/Cargo.toml --out "$out" --interpreter python3 >&2
ls "$out"/lightrag_rs-*.whl
