#!/bin/sh
# Install the Debian packages tfsim needs to build, test and validate, if any
# is missing.  Run as root (or with sudo).  Safe to run again.
set -eu
PKGS="build-essential clang libclang-rt-14-dev pkg-config git libgsl-dev libcmocka-dev libcsv-dev
      libsqlite3-dev libhiredis-dev libpq-dev redis-server postgresql
      gnuplot-nox valgrind sqlite3 chromium time bc procps xxd
      python3 python3-httpx python3-uvicorn python3-starlette python3-redis python3-hiredis
      python3-asyncpg python3-fastapi python3-sqlalchemy python3-jinja2 python3-multipart
      python3-itsdangerous"
missing=""
for p in $PKGS; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "installing:$missing" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >&2
fi
