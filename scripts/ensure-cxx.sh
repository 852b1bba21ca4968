#!/usr/bin/env bash
# Makes sure a C++ compiler is there: the HNSW vector index (crate usearch, built by
# lightrag-vector-index) compiles a little C++. Installs Debian's g++ when none is found
# (needs root or sudo). Idempotent: does nothing when `c++` or `g++` exists.
set -euo pipefail
if command -v c++ >/dev/null || command -v g++ >/dev/null; then
  exit 0
fi
echo "no C++ compiler found; installing g++ (apt-get) for the vector index" >&2
sudo_cmd=()
if [[ "$(id -u)" != "0" ]]; then
  command -v sudo >/dev/null || { echo "error: installing g++ needs root or sudo (apt-get install -y g++)" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
"${sudo_cmd[@]}" apt-get install -y --no-install-recommends g++ >/dev/null 2>&1 || {
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y --no-install-recommends g++
}
