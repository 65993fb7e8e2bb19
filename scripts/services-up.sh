#!/usr/bin/env bash
# Start (or reuse) the services the integration/e2e tests need: PostgreSQL 15 and a
# single-node Kafka 4.x (KRaft). Idempotent and quiet: one line per service, details only
# on failure. See docs/services.md. Stop with scripts/services-down.sh.
#
#   ACM_PG_PORT        PostgreSQL port            (default 55432)
#   ACM_KAFKA_PORT     Kafka PLAINTEXT port        (default 9092; controller uses +1)
#   ACM_KAFKA_VERSION  org.apache.kafka:kafka_2.13 (default 4.4.0)
#   ACM_KAFKA_DIR      Kafka config, pid file and data (default .services/kafka)
#   ACM_KAFKA_SASL_SSL_PORT  adds a SASL_SSL listener on this port (default none): TLS material
#                      made with openssl and keytool in $ACM_KAFKA_DIR/tls (ca.crt, client.crt,
#                      client.key), SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 for the user
#                      ACM_KAFKA_SASL_USER (default acm) / ACM_KAFKA_SASL_PASSWORD (default acm-secret)
#
# Arguments: the services to start, `postgres` and/or `kafka` (default both). A second broker for
# a fault test: ACM_KAFKA_PORT=19092 ACM_KAFKA_DIR=.services/fault-kafka-x scripts/services-up.sh kafka
set -euo pipefail

if [ "${ACM_TEST_SERVICES:-scripts}" = containers ]; then
  # The tests' global setup runs PostgreSQL and Kafka in containers (test/support/test-containers.ts).
  echo "$(basename "$0"): ACM_TEST_SERVICES=containers, nothing to do"
  exit 0
fi

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SERVICES_DIR="$REPO/.services"

PG_PORT="${ACM_PG_PORT:-55432}"
PG_BIN=/usr/lib/postgresql/15/bin
PG_USER=acm
PG_PASSWORD=acm
PG_DB=acm

KAFKA_PORT="${ACM_KAFKA_PORT:-9092}"
KAFKA_CONTROLLER_PORT=$((KAFKA_PORT + 1))
KAFKA_VERSION="${ACM_KAFKA_VERSION:-4.4.0}"
KAFKA_DIR="${ACM_KAFKA_DIR:-$SERVICES_DIR/kafka}"
KAFKA_CACHE="${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/acm-runtime/kafka-$KAFKA_VERSION"
KAFKA_SASL_SSL_PORT="${ACM_KAFKA_SASL_SSL_PORT:-}"
KAFKA_SASL_USER="${ACM_KAFKA_SASL_USER:-acm}"
KAFKA_SASL_PASSWORD="${ACM_KAFKA_SASL_PASSWORD:-acm-secret}"
KAFKA_TOPICS=(policy-acruntime-participant acm-ppnt-sync)
KAFKA_PARTITIONS=10

export DEBIAN_FRONTEND=noninteractive
export PGCONNECT_TIMEOUT=5

die() {
  echo "services-up: $*" >&2
  exit 1
}

mkdir -p "$SERVICES_DIR"

# One services-up at a time (npm scripts may call it concurrently).
exec 9>"$SERVICES_DIR/.lock"
flock -w 300 9 || die "another services-up has held $SERVICES_DIR/.lock for 5 min"

STEP_LOG="$SERVICES_DIR/services-up.log"
: >"$STEP_LOG"

# Run a command quietly; on failure show its output and stop.
quiet() {
  if ! "$@" >>"$STEP_LOG" 2>&1; then
    echo "services-up: command failed: $*" >&2
    tail -n 40 "$STEP_LOG" >&2
    exit 1
  fi
}

apt_updated=0
apt_install() {
  if [ "$apt_updated" = 0 ]; then
    quiet apt-get update -qq
    apt_updated=1
  fi
  quiet apt-get install -y -qq --no-install-recommends "$@"
}

port_open() {
  timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# Keep a listening port out of Linux's ephemeral range (32768-60999 by default: 55432 is in
# it), so a client socket cannot hold it when the server starts. Best effort, this netns only.
reserve_port() {
  local port=$1 file=/proc/sys/net/ipv4/ip_local_reserved_ports current lo hi
  [ -w "$file" ] || return 0
  read -r lo hi </proc/sys/net/ipv4/ip_local_port_range || return 0
  [ "$port" -ge "$lo" ] && [ "$port" -le "$hi" ] || return 0
  current="$(cat "$file" 2>/dev/null || true)"
  if printf '%s\n' "$current" | tr ',' '\n' | awk -F- -v p="$port" \
    '$1 != "" && p >= $1 && p <= ($2 == "" ? $1 : $2) { found = 1 } END { exit !found }'; then
    return 0
  fi
  { echo "${current:+$current,}$port" >"$file"; } 2>/dev/null || true
}

# Is $1 a live process whose command line contains $2?
pid_matches() {
  local pid=$1 pattern=$2 cmdline
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 1
  cmdline="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)"
  [[ "$cmdline" == *"$pattern"* ]]
}

# ---------------------------------------------------------------------------------------
# PostgreSQL
# ---------------------------------------------------------------------------------------

pg_url="postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DB"

# Does a server on PG_PORT accept acm/acm/acm?
pg_answers() {
  local psql isready
  psql="$(command -v "$PG_BIN/psql" psql 2>/dev/null | head -n 1 || true)"
  isready="$(command -v "$PG_BIN/pg_isready" pg_isready 2>/dev/null | head -n 1 || true)"
  if [ -n "$psql" ] && [ -n "$isready" ]; then
    "$isready" -q -h 127.0.0.1 -p "$PG_PORT" -t 3 || return 1
    [ "$(PGPASSWORD="$PG_PASSWORD" "$psql" -X -q -w -t -A -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d "$PG_DB" \
      -c 'SELECT 1' 2>/dev/null)" = 1 ]
  elif [ -d "$REPO/node_modules/pg" ]; then
    port_open "$PG_PORT" || return 1
    (cd "$REPO" && node -e '
      const c = new (require("pg").Client)({ connectionString: process.argv[1], connectionTimeoutMillis: 3000 });
      c.connect().then(() => c.query("SELECT 1")).then(() => c.end()).then(() => process.exit(0), () => process.exit(1));
    ' "$pg_url") >/dev/null 2>&1
  else
    return 1
  fi
}

# Where the cluster lives: inside the repo when the postgres user can reach it, otherwise
# (checkout under a directory postgres cannot traverse, e.g. /root) in /tmp.
pg_choose_dir() {
  local candidate="$SERVICES_DIR/postgres"
  mkdir -p "$candidate"
  chown postgres:postgres "$candidate"
  chmod 700 "$candidate"
  if runuser -u postgres -- test -w "$candidate" 2>/dev/null; then
    PG_DIR="$candidate"
  else
    rmdir "$candidate" 2>/dev/null || true
    PG_DIR="/tmp/acm-services-$(printf '%s' "$REPO" | sha256sum | cut -c1-12)/postgres"
    mkdir -p "$PG_DIR"
    chmod 755 "$(dirname "$PG_DIR")"
    chown postgres:postgres "$PG_DIR"
    chmod 700 "$PG_DIR"
  fi
  printf '%s\n' "$PG_DIR" >"$SERVICES_DIR/postgres.dir"
  PG_DATA="$PG_DIR/data"
}

# fd 9 holds the services lock: never let a daemon inherit it.
pg_as() {
  (cd / && runuser -u postgres -- "$@") 9>&-
}

# Is the postmaster of OUR data dir running? (pid alive and its cwd is our data dir)
pg_ours_running() {
  local pid
  [ -f "$PG_DATA/postmaster.pid" ] || return 1
  pid="$(head -n 1 "$PG_DATA/postmaster.pid" 2>/dev/null || true)"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(readlink "/proc/$pid/cwd" 2>/dev/null)" = "$PG_DATA" ]
}

pg_ensure_installed() {
  if [ ! -x "$PG_BIN/postgres" ] || [ ! -x "$PG_BIN/psql" ]; then
    # The package may create and start Debian's default cluster on 5432: we leave it alone.
    apt_install postgresql-15 postgresql-client-15
  fi
  [ -x "$PG_BIN/postgres" ] || die "postgresql-15 did not install $PG_BIN/postgres"
  id postgres >/dev/null 2>&1 || die "no 'postgres' OS user (expected from the postgresql-15 package)"
}

pg_initdb() {
  local pwfile="$PG_DIR/.pwfile"
  rm -rf "$PG_DATA"
  printf '%s\n' "$PG_PASSWORD" >"$pwfile"
  chown postgres:postgres "$pwfile"
  chmod 600 "$pwfile"
  # acm is the bootstrap superuser (tests may create databases); password auth over TCP.
  quiet pg_as "$PG_BIN/initdb" -D "$PG_DATA" -U "$PG_USER" --pwfile="$pwfile" \
    --auth-host=scram-sha-256 --auth-local=trust --encoding=UTF8 --locale=C.UTF-8
  rm -f "$pwfile"
  cat >>"$PG_DATA/postgresql.conf" <<EOF

# --- acm-runtime test cluster (scripts/services-up.sh) ---
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
logging_collector = off
log_min_messages = warning
EOF
}

# A port >= 32768 lies in Linux's ephemeral range: a client socket (or its TIME_WAIT, up to
# 60 s) may hold it ("Address already in use"), so keep retrying for about a minute.
pg_start() {
  local attempt
  reserve_port "$PG_PORT"
  for attempt in $(seq 1 35); do
    rm -f "$PG_DATA/postmaster.pid"
    : >"$PG_DIR/postgres.log"
    chown postgres:postgres "$PG_DIR/postgres.log"
    if pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/postgres.log" -o "-p $PG_PORT" -w -t 60 start \
      >>"$STEP_LOG" 2>&1; then
      return
    fi
    if [ "$attempt" -lt 35 ] && grep -q 'Address already in use' "$PG_DIR/postgres.log"; then
      sleep 2
      continue
    fi
    break
  done
  echo "services-up: PostgreSQL did not start; tail of $PG_DIR/postgres.log:" >&2
  tail -n 30 "$PG_DIR/postgres.log" >&2
  exit 1
}

pg_stop_ours() {
  if pg_ours_running; then
    quiet pg_as "$PG_BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop
  fi
}

pg_ensure_database() {
  local exists
  exists="$(PGPASSWORD="$PG_PASSWORD" "$PG_BIN/psql" -X -q -w -t -A -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" \
    -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'")"
  if [ "$exists" != 1 ]; then
    quiet env PGPASSWORD="$PG_PASSWORD" "$PG_BIN/psql" -X -q -w -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" \
      -d postgres -c "CREATE DATABASE $PG_DB OWNER $PG_USER"
  fi
}

postgres_up() {
  if pg_answers; then
    echo "postgres: reused 127.0.0.1:$PG_PORT ($pg_url)"
    return
  fi
  pg_ensure_installed
  pg_choose_dir
  if port_open "$PG_PORT" && ! pg_ours_running; then
    die "port $PG_PORT is taken by something that does not accept $PG_USER/$PG_PASSWORD/$PG_DB; set ACM_PG_PORT"
  fi
  if pg_ours_running; then
    local running_port
    running_port="$(sed -n 4p "$PG_DATA/postmaster.pid" 2>/dev/null || true)"
    if [ -n "$running_port" ] && [ "$running_port" != "$PG_PORT" ]; then
      die "this checkout's PostgreSQL runs on port $running_port, not $PG_PORT: run services:down first (or unset ACM_PG_PORT)"
    fi
  fi
  # Ours but not answering properly (half-started previous run): restart it.
  pg_stop_ours
  if [ ! -f "$PG_DIR/.initialized" ] || [ ! -f "$PG_DATA/PG_VERSION" ]; then
    rm -f "$PG_DIR/.initialized"
    pg_initdb
    pg_start
    pg_ensure_database
    touch "$PG_DIR/.initialized"
  else
    pg_start
    pg_ensure_database
  fi
  pg_answers || die "PostgreSQL started but $pg_url does not answer; see $PG_DIR/postgres.log"
  echo "postgres: started 127.0.0.1:$PG_PORT ($pg_url; data $PG_DATA)"
}

# ---------------------------------------------------------------------------------------
# Kafka
# ---------------------------------------------------------------------------------------

KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT"
KAFKA_PID_FILE="$KAFKA_DIR/kafka.pid"
KAFKA_LOG="$KAFKA_DIR/kafka.log"

kafka_admin() {
  (cd "$REPO" && node scripts/kafka-admin.js "$@")
}

kafka_answers() {
  port_open "$KAFKA_PORT" && kafka_admin ping "$KAFKA_BROKERS" 5000 >/dev/null 2>&1
}

kafka_our_pid() {
  local pid
  pid="$(cat "$KAFKA_PID_FILE" 2>/dev/null || true)"
  if pid_matches "$pid" 'kafka.Kafka'; then
    echo "$pid"
  fi
}

kafka_ensure_java() {
  if ! command -v java >/dev/null 2>&1; then
    apt_install openjdk-17-jre-headless
  fi
  local major
  major="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [ "${major%%.*}" -ge 17 ] 2>/dev/null || die "Kafka $KAFKA_VERSION needs Java 17+, found '${major:-none}'"
}

# Resolve kafka_2.13 and its runtime classpath once into a per-user cache.
kafka_ensure_libs() {
  KAFKA_LIBS="$KAFKA_CACHE/libs"
  if [ -f "$KAFKA_CACHE/.complete" ] && [ -f "$KAFKA_LIBS/kafka_2.13-$KAFKA_VERSION.jar" ]; then
    return
  fi
  if ! command -v mvn >/dev/null 2>&1; then
    apt_install maven
  fi
  local tmp="$KAFKA_CACHE/libs.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  local mvn_args=(-B -q -Dstyle.color=never -f "$REPO/scripts/kafka/pom.xml" dependency:copy-dependencies
    -Dkafka.version="$KAFKA_VERSION" -DincludeScope=runtime -DoutputDirectory="$tmp")
  # Offline first (instant when ~/.m2 already has everything), then online.
  if ! mvn -o "${mvn_args[@]}" >>"$STEP_LOG" 2>&1; then
    rm -rf "$tmp" && mkdir -p "$tmp"
    quiet mvn "${mvn_args[@]}"
  fi
  [ -f "$tmp/kafka_2.13-$KAFKA_VERSION.jar" ] || die "maven did not produce kafka_2.13-$KAFKA_VERSION.jar"
  rm -rf "$KAFKA_LIBS"
  mv "$tmp" "$KAFKA_LIBS"
  touch "$KAFKA_CACHE/.complete"
}

# A CA, a broker certificate for 127.0.0.1/localhost and a client certificate, made once per broker
# directory. The broker reads PKCS12 stores (keytool); clients read the PEM files.
kafka_make_tls() {
  local tls="$KAFKA_DIR/tls"
  [ -f "$tls/.complete" ] && return 0
  rm -rf "$tls"
  mkdir -p "$tls"
  quiet openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=acm-test-ca" \
    -keyout "$tls/ca.key" -out "$tls/ca.crt"
  local name
  for name in broker client; do
    quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=acm-test-$name" \
      -keyout "$tls/$name.key" -out "$tls/$name.csr"
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tls/$name.ext"
    quiet openssl x509 -req -in "$tls/$name.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial \
      -days 30 -extfile "$tls/$name.ext" -out "$tls/$name.crt"
  done
  quiet openssl pkcs12 -export -in "$tls/broker.crt" -inkey "$tls/broker.key" -certfile "$tls/ca.crt" \
    -name broker -passout pass:acm-store -out "$tls/broker.p12"
  quiet keytool -importcert -noprompt -alias ca -file "$tls/ca.crt" -storetype PKCS12 \
    -keystore "$tls/truststore.p12" -storepass acm-store
  touch "$tls/.complete"
}

kafka_write_config() {
  mkdir -p "$KAFKA_DIR/data"
  local listeners="PLAINTEXT://127.0.0.1:$KAFKA_PORT" protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
  if [ -n "$KAFKA_SASL_SSL_PORT" ]; then
    listeners="$listeners,SASL_SSL://127.0.0.1:$KAFKA_SASL_SSL_PORT"
    protocols="$protocols,SASL_SSL:SASL_SSL"
  fi
  cat >"$KAFKA_DIR/server.properties" <<EOF
# Generated by scripts/services-up.sh - single node KRaft (broker + controller), tests only.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=$listeners,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
log.dirs=$KAFKA_DIR/data
num.partitions=10
default.replication.factor=1
auto.create.topics.enable=true
delete.topic.enable=true
group.initial.rebalance.delay.ms=0
offsets.topic.replication.factor=1
offsets.topic.num.partitions=10
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=10
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
log.retention.hours=24
log.segment.bytes=16777216
EOF
  if [ -n "$KAFKA_SASL_SSL_PORT" ]; then
    local tls="$KAFKA_DIR/tls"
    # PLAIN users live in the JAAS line; SCRAM users in the cluster metadata (kafka_format --add-scram).
    # A client certificate is checked when one is sent (mutual TLS), not required.
    cat >>"$KAFKA_DIR/server.properties" <<EOF
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512
listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$KAFKA_SASL_USER="$KAFKA_SASL_PASSWORD";
listener.name.sasl_ssl.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
ssl.keystore.type=PKCS12
ssl.keystore.location=$tls/broker.p12
ssl.keystore.password=acm-store
ssl.truststore.type=PKCS12
ssl.truststore.location=$tls/truststore.p12
ssl.truststore.password=acm-store
ssl.client.auth=requested
EOF
  fi
  # Broker log: WARN (plus start/stop lines) to stdout, redirected to kafka.log; per-partition
  # INFO lines would be thousands per test run. Tools: WARN to stderr.
  cat >"$KAFKA_DIR/log4j2.properties" <<'EOF'
status = warn
appender.out.type = Console
appender.out.name = OUT
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.out.ref = OUT
logger.server.name = kafka.server.KafkaRaftServer
logger.server.level = INFO
logger.shutdown.name = kafka.Kafka
logger.shutdown.level = INFO
EOF
  cat >"$KAFKA_DIR/log4j2-tools.properties" <<'EOF'
status = warn
appender.err.type = Console
appender.err.name = ERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = WARN
rootLogger.appenderRef.err.ref = ERR
EOF
}

# Formats the log dir only when it was never formatted: a broker restarted after a stop or a crash
# keeps its topics, committed offsets and producer state, so nothing accepted before is lost.
# (A restart with many leftover test partitions is slower; `rm -rf` the dir to start afresh.)
kafka_format() {
  if [ -f "$KAFKA_DIR/data/meta.properties" ]; then
    return 0
  fi
  if [ -n "$(ls -A "$KAFKA_DIR/data" 2>/dev/null)" ]; then
    die "$KAFKA_DIR/data holds files but no meta.properties: not formatting it; remove it by hand to start afresh"
  fi
  mkdir -p "$KAFKA_DIR/data"
  local cluster_id
  cluster_id="$(java -cp "$KAFKA_LIBS/*" -Dlog4j2.configurationFile="$KAFKA_DIR/log4j2-tools.properties" \
    kafka.tools.StorageTool random-uuid 2>>"$STEP_LOG" | tail -n 1)"
  [ -n "$cluster_id" ] || die "could not generate a Kafka cluster id (see $STEP_LOG)"
  local scram=()
  if [ -n "$KAFKA_SASL_SSL_PORT" ]; then
    scram=(--add-scram "SCRAM-SHA-256=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]"
      --add-scram "SCRAM-SHA-512=[name=$KAFKA_SASL_USER,password=$KAFKA_SASL_PASSWORD]")
  fi
  quiet java -cp "$KAFKA_LIBS/*" -Dlog4j2.configurationFile="$KAFKA_DIR/log4j2-tools.properties" \
    kafka.tools.StorageTool format -t "$cluster_id" -c "$KAFKA_DIR/server.properties" "${scram[@]}"
}

kafka_stop_ours() {
  local pid
  pid="$(kafka_our_pid)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$KAFKA_PID_FILE"
}

kafka_fail() {
  echo "services-up: $*; tail of $KAFKA_LOG:" >&2
  tail -n 40 "$KAFKA_LOG" >&2 || true
  kafka_stop_ours
  exit 1
}

kafka_start() {
  : >"$KAFKA_LOG"
  echo "$KAFKA_PORT" >"$KAFKA_DIR/kafka.port"
  reserve_port "$KAFKA_PORT"
  reserve_port "$KAFKA_CONTROLLER_PORT"
  [ -z "$KAFKA_SASL_SSL_PORT" ] || reserve_port "$KAFKA_SASL_SSL_PORT"
  # setsid: not killed with the caller's process group; the pid written is java's (exec).
  # shellcheck disable=SC2016 # $$, $0.. expand in the child shell
  setsid nohup bash -c '
    echo $$ >"$2"
    exec java -Xms512m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
      -Dlog4j2.configurationFile="$0/log4j2.properties" -cp "$1/*" kafka.Kafka "$0/server.properties"
  ' "$KAFKA_DIR" "$KAFKA_LIBS" "$KAFKA_PID_FILE" </dev/null >>"$KAFKA_LOG" 2>&1 9>&- &
  local deadline=$((SECONDS + 60)) pid=""
  while [ "$SECONDS" -lt "$deadline" ]; do
    sleep 0.5
    pid="$(cat "$KAFKA_PID_FILE" 2>/dev/null || true)"
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      kafka_fail "Kafka exited during startup"
    fi
    if port_open "$KAFKA_PORT" && kafka_admin ping "$KAFKA_BROKERS" 5000 >/dev/null 2>&1; then
      return
    fi
  done
  kafka_fail "Kafka did not answer on $KAFKA_BROKERS within 60s"
}

kafka_up() {
  local state
  if kafka_answers; then
    state=reused
  else
    mkdir -p "$KAFKA_DIR"
    local running_port
    running_port="$(cat "$KAFKA_DIR/kafka.port" 2>/dev/null || true)"
    if [ -n "$(kafka_our_pid)" ] && [ -n "$running_port" ] && [ "$running_port" != "$KAFKA_PORT" ]; then
      die "this checkout's Kafka runs on port $running_port, not $KAFKA_PORT: run services:down first (or unset ACM_KAFKA_PORT)"
    fi
    # Ours but not answering (half-started previous run): stop it; drop a stale pid file.
    kafka_stop_ours
    if port_open "$KAFKA_PORT" || port_open "$KAFKA_CONTROLLER_PORT"; then
      die "port $KAFKA_PORT or $KAFKA_CONTROLLER_PORT is taken by something that is not a Kafka broker; set ACM_KAFKA_PORT"
    fi
    kafka_ensure_java
    kafka_ensure_libs
    [ -z "$KAFKA_SASL_SSL_PORT" ] || kafka_make_tls
    kafka_write_config
    kafka_format
    kafka_start
    state=started
  fi
  if ! kafka_admin ensure "$KAFKA_BROKERS" "$KAFKA_PARTITIONS" "${KAFKA_TOPICS[@]}" >>"$STEP_LOG" 2>&1; then
    echo "services-up: could not create the Kafka topics on $KAFKA_BROKERS" >&2
    tail -n 20 "$STEP_LOG" >&2
    exit 1
  fi
  if [ "$state" = started ]; then
    echo "kafka: started $KAFKA_BROKERS (Kafka $KAFKA_VERSION KRaft; log $KAFKA_LOG)"
  else
    echo "kafka: reused $KAFKA_BROKERS"
  fi
}

[ -d "$REPO/node_modules/kafkajs" ] || die "node_modules missing: run 'npm ci' first"

services=("$@")
[ "${#services[@]}" -gt 0 ] || services=(postgres kafka)
for service in "${services[@]}"; do
  case "$service" in
    postgres) postgres_up ;;
    kafka) kafka_up ;;
    *) die "unknown service '$service' (postgres, kafka)" ;;
  esac
done
