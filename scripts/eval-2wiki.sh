#!/usr/bin/env bash
# The 2WikiMultiHopQA development set only: `scripts/eval.sh 2wiki`, kept under its old name.
# The index stays in ./eval_storage/2wiki, the results go to ./eval-results/2wiki.
#
# Usage: scripts/eval-2wiki.sh [lightrag eval options …]
set -euo pipefail
exec "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/eval.sh" 2wiki "$@"
