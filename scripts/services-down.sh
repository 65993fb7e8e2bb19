#!/usr/bin/env bash
# Stop what scripts/services-up.sh started (its Kafka pid file, its PostgreSQL data dir).
# Services that services-up merely reused (started by someone else) are left alone.
# Data is kept; to reset, run this and then `rm -rf .services` (see docs/services.md).
set -euo pipefail

if [ "${ACM_TEST_SERVICES:-scripts}" = containers ]; then
  # The tests' global setup runs PostgreSQL and Kafka in containers (test/support/test-containers.ts).
  echo "$(basename "$0"): ACM_TEST_SERVICES=containers, nothing to do"
  exit 0
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICES_DIR="$REPO/.services"
PG_BIN=/usr/lib/postgresql/15/bin
KAFKA_PID_FILE="$SERVICES_DIR/kafka/kafka.pid"

if [ ! -d "$SERVICES_DIR" ]; then
  echo "services-down: nothing started here (no $SERVICES_DIR)"
  exit 0
fi

# Wait for a services-up that is still running.
exec 9>"$SERVICES_DIR/.lock"
flock -w 120 9 || true

# --- Kafka -------------------------------------------------------------------------------
kafka_pid="$(cat "$KAFKA_PID_FILE" 2>/dev/null || true)"
kafka_cmdline=""
if [ -n "$kafka_pid" ] && [ -r "/proc/$kafka_pid/cmdline" ]; then
  kafka_cmdline="$(tr '\0' ' ' <"/proc/$kafka_pid/cmdline" 2>/dev/null || true)"
fi
if [[ "$kafka_cmdline" == *kafka.Kafka* ]]; then
  kill "$kafka_pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$kafka_pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$kafka_pid" 2>/dev/null; then
    kill -9 "$kafka_pid" 2>/dev/null || true
    echo "kafka: killed (pid $kafka_pid did not stop within 30s)"
  else
    echo "kafka: stopped (pid $kafka_pid)"
  fi
else
  echo "kafka: not running from this checkout (left alone)"
fi
rm -f "$KAFKA_PID_FILE"

# --- PostgreSQL --------------------------------------------------------------------------
pg_dir="$(cat "$SERVICES_DIR/postgres.dir" 2>/dev/null || true)"
pg_data="${pg_dir:+$pg_dir/data}"
pg_pid=""
if [ -n "$pg_data" ] && [ -f "$pg_data/postmaster.pid" ]; then
  pg_pid="$(head -n 1 "$pg_data/postmaster.pid" 2>/dev/null || true)"
fi
if [ -n "$pg_pid" ] && kill -0 "$pg_pid" 2>/dev/null && [ "$(readlink "/proc/$pg_pid/cwd" 2>/dev/null)" = "$pg_data" ]; then
  if (cd / && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$pg_data" -m fast -w -t 60 stop) >/dev/null 2>&1; then
    echo "postgres: stopped (data $pg_data)"
  else
    kill -QUIT "$pg_pid" 2>/dev/null || true
    echo "postgres: pg_ctl stop failed; sent SIGQUIT to $pg_pid" >&2
  fi
else
  echo "postgres: not running from this checkout (left alone)"
fi
