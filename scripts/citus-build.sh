#!/usr/bin/env bash
# Builds and installs the Citus extension for PostgreSQL 15 from a source checkout.
# Usage: scripts/citus-build.sh <citus-source-dir> [tag]
# The source directory is a git clone of https://github.com/citusdata/citus; the tag
# (default v13.0.5) is checked out before building. Nothing is written to this repository.
set -euo pipefail

src="${1:?usage: scripts/citus-build.sh <citus-source-dir> [tag]}"
tag="${2:-v13.0.5}"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y postgresql-server-dev-15 libcurl4-openssl-dev liblz4-dev libzstd-dev libkrb5-dev
fi

cd "$src"
if [ -d .git ] && [ "$(git describe --tags --exact-match 2>/dev/null || true)" != "$tag" ]; then
  git checkout --quiet "$tag"
fi

PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
# A fresh clone gives every file the time of the checkout, in no set order: make may then find
# configure.ac newer than the committed configure and try to regenerate it with autoreconf, which
# the build does not need. The committed configure is the one the tag ships.
touch configure
./configure PG_CONFIG="$PG_CONFIG"
make -j"${JOBS:-2}"
make install

echo "citus $tag installed into $("$PG_CONFIG" --pkglibdir)"
