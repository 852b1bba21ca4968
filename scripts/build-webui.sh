#!/usr/bin/env bash
# Builds the web UI from webui/src into webui/dist, which the `lightrag` binary embeds (commit
# the result: a plain `cargo build` then needs no Node.js).
#
#   scripts/build-webui.sh          type-check, build, write webui/dist
#   scripts/build-webui.sh --check  build into a temporary folder and fail when webui/dist differs
#                                   (a stale embedded build; CI runs this)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root/webui"

"$root/scripts/install-webui-deps.sh"
npx tsc --noEmit -p tsconfig.json

if [[ "${1:-}" == "--check" ]]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
  npx vite build --logLevel error --outDir "$out/dist"
  if ! diff -r "$out/dist" dist >/dev/null; then
    echo "build-webui.sh: webui/dist is stale: it does not match a build of webui/src." >&2
    diff -rq "$out/dist" dist >&2 || true
    echo "Run scripts/build-webui.sh and commit webui/dist." >&2
    exit 1
  fi
  echo "build-webui.sh: webui/dist matches the source"
else
  npx vite build --logLevel warn
  echo "build-webui.sh: wrote webui/dist ($(du -sh dist | cut -f1))"
fi
