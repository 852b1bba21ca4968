#!/usr/bin/env bash
# Packages the release binary to ship: stripped of its debug information (139 MB → ~56 MB), with
# the line tables kept apart in lightrag.debug (linked from the binary by .gnu_debuglink, so gdb,
# perf and addr2line find them when the two files sit side by side).
#
# Usage: scripts/package.sh [OUT_DIR]        (default: dist/)
#        LIGHTRAG_BIN=path/to/lightrag scripts/package.sh   package a binary built already
# Needs objcopy (Debian: binutils).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/dist}"
command -v objcopy >/dev/null || { echo "objcopy is missing: apt-get install binutils" >&2; exit 1; }
BIN="${LIGHTRAG_BIN:-}"
if [[ -z "$BIN" ]]; then
  (cd "$ROOT" && cargo build --release --locked -p lightrag-cli >&2)
  BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/lightrag"
fi
[[ -x "$BIN" ]] || { echo "no binary at $BIN" >&2; exit 1; }
mkdir -p "$OUT"
objcopy --only-keep-debug "$BIN" "$OUT/lightrag.debug"
objcopy --strip-debug --add-gnu-debuglink="$OUT/lightrag.debug" "$BIN" "$OUT/lightrag"
chmod +x "$OUT/lightrag"
"$OUT/lightrag" --version >/dev/null
printf '%s\t%s\n' "$(du -h "$OUT/lightrag" | cut -f1)" "$OUT/lightrag (ship this)" \
  "$(du -h "$OUT/lightrag.debug" | cut -f1)" "$OUT/lightrag.debug (keep it with the release: symbolises its backtraces)"
