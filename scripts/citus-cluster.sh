#!/usr/bin/env bash
# A Citus cluster on this machine for the Citus mode of the tests (TEST_CITUS=1) and for trying
# Simgate distributed: a coordinator and two workers, each its own PostgreSQL 15 cluster
# (pg_createcluster), on ports 5440 (coordinator), 5441 and 5442 (workers), trusting localhost.
# Needs Citus installed (scripts/citus-build.sh) and root (or the postgres user) to create clusters.
# It never touches any other cluster (the main one on 5432 included).
#
#   scripts/citus-cluster.sh up     create (once) and start the three, add the workers to the coordinator
#   scripts/citus-cluster.sh down   stop and drop the three
#   scripts/citus-cluster.sh status list them
set -euo pipefail

VERSION=15
COORDINATOR_PORT="${CITUS_COORDINATOR_PORT:-5440}"
WORKER_PORTS=("${CITUS_WORKER_PORT_1:-5441}" "${CITUS_WORKER_PORT_2:-5442}")
NAMES=(citus_coord citus_w1 citus_w2)
PORTS=("$COORDINATOR_PORT" "${WORKER_PORTS[@]}")

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else su postgres -s /bin/bash -c "$(printf '%q ' "$@")"; fi
}

psql_at() {
  local port="$1" db="$2"
  shift 2
  psql -X -v ON_ERROR_STOP=1 -q -h 127.0.0.1 -p "$port" -U postgres -d "$db" "$@"
}

up() {
  for i in 0 1 2; do
    local name="${NAMES[$i]}" port="${PORTS[$i]}"
    if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$VERSION $name"; then
      pg_createcluster "$VERSION" "$name" -p "$port" -- --auth-local=trust --auth-host=trust >/dev/null
      local conf="/etc/postgresql/$VERSION/$name"
      cat >>"$conf/postgresql.conf" <<CONF
# Citus (scripts/citus-cluster.sh)
shared_preload_libraries = 'citus'
listen_addresses = 'localhost'
max_connections = 300
shared_buffers = 128MB
fsync = off
synchronous_commit = off
full_page_writes = off
# Each database with the extension has a maintenance worker: the tests make many databases.
max_worker_processes = 64
citus.shard_count = 4
citus.max_adaptive_executor_pool_size = 4
# simgate_move_credits (a plpgsql function) reads phone_groups and credit_ledger from a statement
# Citus runs on a shard: nested execution, which Citus refuses unless this is on.
citus.allow_nested_distributed_execution = on
CONF
      {
        echo "local all all trust"
        echo "host all all 127.0.0.1/32 trust"
        echo "host all all ::1/128 trust"
      } >"$conf/pg_hba.conf"
    fi
    pg_ctlcluster "$VERSION" "$name" start 2>/dev/null || true
  done
  for port in "${PORTS[@]}"; do
    for _ in $(seq 1 50); do
      pg_isready -q -h 127.0.0.1 -p "$port" && break
      sleep 0.2
    done
    psql_at "$port" postgres -c 'create extension if not exists citus'
  done
  psql_at "$COORDINATOR_PORT" postgres -c "select citus_set_coordinator_host('127.0.0.1', $COORDINATOR_PORT)"
  for port in "${WORKER_PORTS[@]}"; do
    psql_at "$COORDINATOR_PORT" postgres -c "select citus_add_node('127.0.0.1', $port)" >/dev/null
  done
  psql_at "$COORDINATOR_PORT" postgres -c 'select nodename, nodeport, noderole from pg_dist_node order by nodeport'
  echo "coordinator: postgres://postgres@127.0.0.1:$COORDINATOR_PORT/postgres"
}

down() {
  for name in "${NAMES[@]}"; do
    if pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "$VERSION $name"; then
      pg_dropcluster --stop "$VERSION" "$name"
    fi
  done
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) pg_lsclusters | grep -E "^Ver|citus_" ;;
  *)
    echo "usage: $0 up|down|status" >&2
    exit 2
    ;;
esac
