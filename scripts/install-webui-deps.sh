#!/usr/bin/env bash
# Installs what the web UI's build and tests need, idempotently:
#   * the npm packages of webui/ exactly as pinned in webui/package-lock.json (`npm ci`), skipped
#     when node_modules already matches the lock file;
#   * with --browser: Debian's Chromium (apt package `chromium`) for the browser tests, skipped
#     when /usr/bin/chromium exists. Playwright never downloads a browser here.
#
# Needs Node.js >= 20 and npm (apt package `npm` on Debian). Installing Chromium needs root or
# sudo.
#
# Usage: scripts/install-webui-deps.sh [--browser]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../webui"

die() { echo "install-webui-deps.sh: error: $*" >&2; exit 1; }

command -v node >/dev/null || die "Node.js is not installed (Debian: apt-get install -y nodejs npm)"
command -v npm >/dev/null || die "npm is not installed (Debian: apt-get install -y npm)"
major=$(node -p 'process.versions.node.split(".")[0]')
[[ "$major" -ge 20 ]] || die "Node.js $(node --version) is too old: the web UI needs Node.js 20 or newer"

lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
stamp=node_modules/.lightrag-lock-sha256
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_hash" ]]; then
  echo "install-webui-deps.sh: npm packages up to date"
else
  echo "install-webui-deps.sh: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi

if [[ "${1:-}" == "--browser" ]]; then
  if [[ -x /usr/bin/chromium ]]; then
    echo "install-webui-deps.sh: chromium present ($(/usr/bin/chromium --version 2>/dev/null | head -1))"
  else
    echo "install-webui-deps.sh: installing Debian's chromium (apt)"
    sudo_cmd=()
    if [[ "$(id -u)" -ne 0 ]]; then
      command -v sudo >/dev/null || die "installing chromium needs root or sudo (apt-get install -y chromium)"
      sudo_cmd=(sudo)
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo_cmd[@]}" apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 || {
      "${sudo_cmd[@]}" apt-get update -qq
      "${sudo_cmd[@]}" apt-get install -y --no-install-recommends chromium
    }
    [[ -x /usr/bin/chromium ]] || die "chromium did not install to /usr/bin/chromium"
  fi
fi
