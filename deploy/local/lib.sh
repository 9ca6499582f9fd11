# Shared functions of ./sns (sourced). Profiles keep a developer's stack and the test suite apart:
# each has its own state folder, ports, database and keys.
PROFILE="${SNS_PROFILE:-dev}"
STATE="$ROOT/.local/$PROFILE"
BUILD_CONFIGURATION="${SNS_BUILD_CONFIGURATION:-debug}"
# SwiftPM's build folder: SNS_SCRATCH_PATH names another (e.g. a release build kept apart from the debug one).
SCRATCH="${SNS_SCRATCH_PATH:-$ROOT/.build}"
BIN="$SCRATCH/$BUILD_CONFIGURATION"

if [ "$PROFILE" = test ]; then
  PG_PORT="${SNS_TEST_PG_PORT:-54330}"; GATEWAY_PORT="${SNS_TEST_GATEWAY_PORT:-18080}"; PORT_BASE=18100
  API_KEY="${SNS_TEST_API_KEY:-sns-test-key}"
  # Swift Testing runs tests in parallel, each in-process service with its own pool.
  PG_MAX_CONNECTIONS=1000
  # Auth's calls to the identity-provider test server: a loaded test machine must not turn them into 503s.
  FEDERATION_TIMEOUT_MS=30000
  # A write answers as soon as the projections applied its event; the bound only matters when they are slow. The
  # suite saturates the machine at times (hundreds of in-process services; consumer-group rebalances of several
  # seconds), and a test must never turn that into a failure, so the test stack waits longer (decision 0013) —
  # below nginx's 60 s, with the internal calls (social's profile edit waits inside auth; posts' G0 images and chat's
  # room uploads wait for media, which a debug build parses at a few MB/s) allowed longer still.
  READ_YOUR_WRITES_TIMEOUT_MS=50000
  INTERNAL_TIMEOUT_MS=58000
elif [ "$PROFILE" = check ]; then
  # ./sns check-api: a private stack for schemathesis, apart from the dev stack and from ./sns test.
  PG_PORT="${SNS_CHECK_PG_PORT:-54340}"; GATEWAY_PORT="${SNS_CHECK_GATEWAY_PORT:-28080}"; PORT_BASE=28100
  API_KEY="${SNS_CHECK_API_KEY:-sns-check-key}"
  PG_MAX_CONNECTIONS=200
else
  PG_PORT="${SNS_PG_PORT:-54320}"; GATEWAY_PORT="${SNS_GATEWAY_PORT:-8080}"; PORT_BASE="${SNS_PORT_BASE:-8100}"
  API_KEY="${SNS_API_KEY:-sns-dev-key}"
  PG_MAX_CONNECTIONS=200
fi
FEDERATION_TIMEOUT_MS="${FEDERATION_TIMEOUT_MS:-5000}"
READ_YOUR_WRITES_TIMEOUT_MS="${READ_YOUR_WRITES_TIMEOUT_MS:-${SNS_READ_YOUR_WRITES_TIMEOUT_MS:-3000}}"
INTERNAL_TIMEOUT_MS="${INTERNAL_TIMEOUT_MS:-${SNS_INTERNAL_TIMEOUT_MS:-10000}}"
DB_NAME="sns"; DB_USER="sns"; DB_PASSWORD="sns"
# Through the cluster's Unix-domain socket in $STATE/run (libpq's `host=/dir`; the services read it the same way):
# cheaper per round trip than loopback TCP, which the cluster also listens on (decision 0037).
DATABASE_URL="postgres://$DB_USER:$DB_PASSWORD@127.0.0.1:$PG_PORT/$DB_NAME?host=$STATE/run"

# The services to run, "name:port-offset" in start order, from the system catalog (Shared/Contract/SystemCatalog.swift)
# as the built sns-admin prints it. The profile keeps a copy, so stop and status need no build.
load_services() {
  if [ -x "$BIN/sns-admin" ] && mkdir -p "$STATE" && "$BIN/sns-admin" catalog --ports >"$STATE/services.tmp" 2>/dev/null; then
    mv "$STATE/services.tmp" "$STATE/services"
  fi
  SERVICES=()
  if [ -s "$STATE/services" ]; then mapfile -t SERVICES <"$STATE/services"; fi
}

log() { printf '[sns %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi; }
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

# Installs the Debian packages the stack needs, only if something is missing.
ensure_packages() {
  local missing=()
  [ -n "$(pg_bin)" ] || missing+=(postgresql)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
  pkg-config --exists rdkafka 2>/dev/null || missing+=(librdkafka-dev pkg-config)
  command -v openssl >/dev/null || missing+=(openssl)
  command -v curl >/dev/null || missing+=(curl)
  command -v pgrep >/dev/null || missing+=(procps)
  command -v python3 >/dev/null || missing+=(python3)
  python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
  command -v swift >/dev/null || die "swift is not on PATH (install the Swift 6 toolchain first)"
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build_all() {
  log "building ($BUILD_CONFIGURATION; a first build takes several minutes)…"
  mkdir -p "$ROOT/.local"
  local status=0
  swift build -c "$BUILD_CONFIGURATION" --scratch-path "$SCRATCH" "$@" >"$ROOT/.local/build.log" 2>&1 || status=$?
  if [ $status != 0 ]; then
    grep -E 'error:' -A3 "$ROOT/.local/build.log" | head -60 >&2
    die "build failed (full log: .local/build.log)"
  fi
  load_services
  [ ${#SERVICES[@]} -gt 0 ] || die "sns-admin catalog --ports printed no services"
}

# Runs a command as the PostgreSQL owner: initdb refuses to run as root.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
  local pgdata="$STATE/postgres" bin; bin="$(pg_bin)"
  mkdir -p "$STATE/run" "$STATE/logs"
  if [ "$(id -u)" = 0 ]; then chown postgres "$STATE/run"; touch "$STATE/logs/postgres.log"; chown postgres "$STATE/logs/postgres.log"; fi
  if [ ! -s "$pgdata/PG_VERSION" ]; then
    log "initialising PostgreSQL cluster in $pgdata"
    mkdir -p "$pgdata"; [ "$(id -u)" = 0 ] && chown postgres "$pgdata"
    as_pg "$bin/initdb" -D "$pgdata" -U postgres --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
  fi
  if ! as_pg "$bin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
    log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
    as_pg "$bin/pg_ctl" -D "$pgdata" -l "$STATE/logs/postgres.log" -w -t 60 \
      -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories=$STATE/run -c max_connections=$PG_MAX_CONNECTIONS -c fsync=off" start >/dev/null
  fi
  local psql=("$bin/psql" -h "$STATE/run" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
  if [ "$(as_pg "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_roles WHERE rolname='$DB_USER'")" != 1 ]; then
    as_pg "${psql[@]}" -d postgres -c "CREATE ROLE $DB_USER LOGIN PASSWORD '$DB_PASSWORD'"
  fi
  # The fault-tolerance tests give each private mini-stack its own database (see Tests/EndToEndTests/FaultTolerance).
  if [ "$PROFILE" = test ]; then as_pg "${psql[@]}" -d postgres -c "ALTER ROLE $DB_USER CREATEDB"; fi
  if [ "${FRESH_DATABASE:-0}" = 1 ]; then
    as_pg "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $DB_NAME WITH (FORCE)"
  fi
  # Posts' distance search (decision 0021) needs earthdistance, which only a superuser may create (and btree_gist,
  # which needs CREATE on schema public); template1 gives them
  # to the databases the fault-tolerance tests create too.
  local extensions="CREATE EXTENSION IF NOT EXISTS cube WITH SCHEMA public; CREATE EXTENSION IF NOT EXISTS earthdistance WITH SCHEMA public; CREATE EXTENSION IF NOT EXISTS btree_gist WITH SCHEMA public"
  as_pg "${psql[@]}" -d template1 -c "$extensions"
  if [ "$(as_pg "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname='$DB_NAME'")" != 1 ]; then
    as_pg "${psql[@]}" -d postgres -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
  fi
  as_pg "${psql[@]}" -d "$DB_NAME" -c "$extensions"
}

stop_postgres() {
  local bin; bin="$(pg_bin)"
  [ -s "$STATE/postgres/PG_VERSION" ] || return 0
  as_pg "$bin/pg_ctl" -D "$STATE/postgres" -m fast -w stop >/dev/null 2>&1 || true
}

start_broker() {
  if pid_alive broker; then return 0; fi
  rm -f "$STATE/broker.addr"
  log "starting the dev broker (in-memory Kafka protocol)"
  # SNS_DEV_BROKER_ARGS: extra options, e.g. --no-long-poll to measure the mock without its front (decision 0049).
  # shellcheck disable=SC2086
  start_process broker "$BIN/sns-dev-broker" --address-file "$STATE/broker.addr" ${SNS_DEV_BROKER_ARGS:-}
  wait_for "broker address" 30 test -s "$STATE/broker.addr"
}

ensure_keys() {
  mkdir -p "$STATE/keys"
  if [ ! -s "$STATE/keys/jwt-private.pem" ]; then
    log "generating the ES256 signing key pair for access tokens"
    openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$STATE/keys/jwt-private.pem"
    openssl ec -in "$STATE/keys/jwt-private.pem" -pubout -out "$STATE/keys/jwt-public.pem" 2>/dev/null
    chmod 600 "$STATE/keys/jwt-private.pem"
  fi
  if [ ! -s "$STATE/keys/media-signing.key" ]; then
    log "generating the media path-signing key"
    (umask 077; openssl rand -hex 32 >"$STATE/keys/media-signing.key")
  fi
}

# The PortOne-compatible test server (Tools/PortOneTestServer) stands in for api.iamport.kr unless
# SNS_PORTONE_URL points the market service elsewhere (then it is not started; see README "Payments").
PORTONE_TEST_KEY="sns_test_imp_key"
portone_port() { echo $((PORT_BASE + 90)); }
# The test and check profiles always use the test servers, whatever a developer's shell exports.
uses_portone_test_server() { [ "$PROFILE" != dev ] || [ -z "${SNS_PORTONE_URL:-}" ]; }

start_portone_test_server() {
  uses_portone_test_server || { log "market uses PortOne at $SNS_PORTONE_URL"; return 0; }
  pid_alive portone && return 0
  [ -s "$STATE/keys/portone-test-secret" ] || (umask 077; openssl rand -hex 16 >"$STATE/keys/portone-test-secret")
  log "starting the PortOne test server on 127.0.0.1:$(portone_port)"
  SNS_PORTONE_IMP_KEY="$PORTONE_TEST_KEY" SNS_PORTONE_IMP_SECRET="$(cat "$STATE/keys/portone-test-secret")" \
    start_process portone "$BIN/sns-portone-test-server" --host 127.0.0.1 --port "$(portone_port)" \
      --webhook-url "http://127.0.0.1:$GATEWAY_PORT/v1/payments/webhook"
  wait_for "portone test server" 30 curl --max-time 5 -fsS -o /dev/null "http://127.0.0.1:$(portone_port)/__sandbox/health"
}

# The identity-provider test server (Tools/IdentityProviderTestServer: Firebase and Apple key sets and ID tokens, a
# Kakao-like API) stands in for the real providers, unless one of SNS_FIREBASE_PROJECT_ID, SNS_APPLE_CLIENT_IDS,
# SNS_KAKAO_APP_ID is given: then auth gets the real providers' configuration from the environment (the ones not
# given stay off) and the test server is not started (see README "Federated sign-in").
IDP_FIREBASE_PROJECT="sns-test-project"; IDP_APPLE_CLIENT_ID="com.example.sns"; IDP_KAKAO_APP_ID=100001
idp_port() { echo $((PORT_BASE + 91)); }
idp_url() { echo "http://127.0.0.1:$(idp_port)"; }
uses_idp_test_server() { [ "$PROFILE" != dev ] || [ -z "${SNS_FIREBASE_PROJECT_ID:-}${SNS_APPLE_CLIENT_IDS:-}${SNS_KAKAO_APP_ID:-}" ]; }
# federation_value NAME TEST_SERVER_VALUE: the test server's value, or the environment's when real providers are used.
federation_value() { if uses_idp_test_server; then echo "$2"; else echo "${!1:-}"; fi; }

start_idp_test_server() {
  uses_idp_test_server || { log "auth uses the identity providers configured in the environment"; return 0; }
  pid_alive idp && return 0
  log "starting the identity-provider test server on 127.0.0.1:$(idp_port)"
  start_process idp "$BIN/sns-idp-test-server" --host 127.0.0.1 --port "$(idp_port)" --firebase-project "$IDP_FIREBASE_PROJECT" \
    --apple-client-id "$IDP_APPLE_CLIENT_ID" --kakao-app-id "$IDP_KAKAO_APP_ID"
  wait_for "idp test server" 30 curl --max-time 5 -fsS -o /dev/null "$(idp_url)/__sandbox/health"
}

# The HTTP port of a service's replica (1, the default, is the one tests and internal calls use directly). Replica
# i listens on the port base + the catalog's offset + 10·(i-1): up to 8 replicas plus a spare (rolling restarts)
# fit below the test servers' ports (+90, +91).
service_port() {
  local entry replica="${2:-1}"
  for entry in "${SERVICES[@]}"; do
    if [ "${entry%%:*}" = "$1" ]; then echo $((PORT_BASE + ${entry##*:} + 10 * (replica - 1))); return 0; fi
  done
  return 1
}

# Replicas per service (`--scale posts=3,social=2` or SNS_SCALE; the test profile runs posts=3,social=2,chat=2 unless told
# otherwise). `start` records them in the profile, so status, stop and restart know them without being told again.
MAX_REPLICAS=8
default_scale() { if [ "$PROFILE" = test ]; then echo "posts=3,social=2,chat=2"; else echo ""; fi; }
set_scale() {  # spec: name=N[,name=N…]
  local spec="$1" pair name count
  mkdir -p "$STATE"
  : >"$STATE/scale.tmp"
  for pair in ${spec//,/ }; do
    name="${pair%%=*}"; count="${pair#*=}"
    service_port "$name" >/dev/null || die "--scale: unknown service '$name' (services: $(service_names))"
    [[ "$count" =~ ^[1-9][0-9]*$ ]] && [ "$count" -le $MAX_REPLICAS ] || die "--scale $name: the replica count must be 1…$MAX_REPLICAS"
    echo "$name=$count" >>"$STATE/scale.tmp"
  done
  mv "$STATE/scale.tmp" "$STATE/scale"
}
replicas() {
  local line
  if [ -s "$STATE/scale" ]; then
    while IFS= read -r line; do [ "${line%%=*}" = "$1" ] && { echo "${line#*=}"; return 0; }; done <"$STATE/scale"
  fi
  echo 1
}
service_names() { local entry; for entry in "${SERVICES[@]}"; do printf '%s ' "${entry%%:*}"; done; }
# The process name of replica i: the first keeps the service's own name (its pid and log files), the others get -i.
replica_name() { if [ "${2:-1}" = 1 ]; then echo "$1"; else echo "$1-$2"; fi; }
# The replicas that have a pid file (whatever the scale says: a spare, or replicas of an earlier scale).
running_replica_names() {
  local file base entry
  for file in "$STATE"/run/*.pid; do
    [ -e "$file" ] || continue
    base="$(basename "$file" .pid)"
    for entry in "${SERVICES[@]}"; do
      [[ "$base" =~ ^${entry%%:*}(-[0-9]+)?$ ]] && echo "$base"
    done
  done
  return 0   # not the status of the last pattern test (callers run under set -e)
}
# Every replica of every service as "service index" lines, in start order.
all_replicas() {
  local entry i
  for entry in "${SERVICES[@]}"; do
    for i in $(seq 1 "$(replicas "${entry%%:*}")"); do echo "${entry%%:*} $i"; done
  done
}
# Their process names.
all_replica_names() {
  local name i
  all_replicas | while read -r name i; do replica_name "$name" "$i"; done
}

# Environment for every service process: configuration only, so the same binaries run anywhere.
service_env() {
  local name="$1" replica="${2:-1}"
  echo SNS_HTTP_HOST=127.0.0.1 SNS_HTTP_PORT="$(service_port "$name" "$replica")" \
    SNS_DATABASE_URL="$DATABASE_URL" SNS_KAFKA_BROKERS="$(cat "$STATE/broker.addr")" \
    SNS_API_KEY="$API_KEY" SNS_PRODUCT_IDS="${SNS_PRODUCT_IDS:-sns-g2-test}" SNS_JWT_PUBLIC_KEY_FILE="$STATE/keys/jwt-public.pem" \
    SNS_LOG_LEVEL="${SNS_LOG_LEVEL:-info}" \
    SNS_KAFKA_PROPERTIES="${SNS_KAFKA_PROPERTIES:-}" \
    SNS_READ_YOUR_WRITES_TIMEOUT_MS="$READ_YOUR_WRITES_TIMEOUT_MS" SNS_EVENT_LOOPS="${SNS_EVENT_LOOPS:-1}" \
    SNS_ANNOUNCE_HOST="${SNS_ANNOUNCE_HOST-127.0.0.1}"
  # SNS_ANNOUNCE_HOST: consumers tell a waiting writer by datagram that they applied its event, instead of a NOTIFY
  # that wakes every listening database backend (decision 0050); SNS_ANNOUNCE_HOST= (empty) goes back to NOTIFY.
  # fetch.wait.max.ms stays librdkafka's 500 ms: the dev broker's long-poll front answers a waiting fetch as soon as
  # something is produced to its topics, as a real broker does (decision 0049; it was 5 ms while the mock answered an
  # empty fetch only after that wait).
  # SNS_EVENT_LOOPS=1: every process of a local stack shares the machine's cores with six others and PostgreSQL;
  # one event loop each wastes less on thread wake-ups than one per core (decision 0028).
  case "$name" in
    auth) echo SNS_JWT_PRIVATE_KEY_FILE="$STATE/keys/jwt-private.pem" SNS_MEDIA_SIGNING_KEY_FILE="$STATE/keys/media-signing.key" \
               SNS_ACCESS_TOKEN_TTL="${SNS_ACCESS_TOKEN_TTL:-300}" SNS_REFRESH_TOKEN_TTL="${SNS_REFRESH_TOKEN_TTL:-1209600}" \
               SNS_BCRYPT_COST="${SNS_BCRYPT_COST:-10}" \
               SNS_FIREBASE_PROJECT_ID="$(federation_value SNS_FIREBASE_PROJECT_ID "$IDP_FIREBASE_PROJECT")" \
               SNS_FIREBASE_JWKS_URL="$(federation_value SNS_FIREBASE_JWKS_URL "$(idp_url)/firebase/jwks")" \
               SNS_APPLE_CLIENT_IDS="$(federation_value SNS_APPLE_CLIENT_IDS "$IDP_APPLE_CLIENT_ID")" \
               SNS_APPLE_JWKS_URL="$(federation_value SNS_APPLE_JWKS_URL "$(idp_url)/apple/auth/keys")" \
               SNS_KAKAO_APP_ID="$(federation_value SNS_KAKAO_APP_ID "$IDP_KAKAO_APP_ID")" \
               SNS_KAKAO_API_URL="$(federation_value SNS_KAKAO_API_URL "$(idp_url)")" \
               SNS_FEDERATION_TIMEOUT_MS="${SNS_FEDERATION_TIMEOUT_MS:-$FEDERATION_TIMEOUT_MS}" ;;
    posts) echo SNS_MEDIA_SIGNING_KEY_FILE="$STATE/keys/media-signing.key" SNS_MEDIA_URL="http://127.0.0.1:$(service_port media)" \
                SNS_INTERNAL_TIMEOUT_MS="$INTERNAL_TIMEOUT_MS" ;;
    market) if uses_portone_test_server; then
              echo SNS_PORTONE_URL="http://127.0.0.1:$(portone_port)" SNS_PORTONE_IMP_KEY="$PORTONE_TEST_KEY" \
                   SNS_PORTONE_IMP_SECRET_FILE="$STATE/keys/portone-test-secret"
            else  # a real PortOne: its key and secret come from the developer's environment, as the URL does
              echo SNS_PORTONE_URL="$SNS_PORTONE_URL"
            fi
            echo SNS_PAYMENT_REVERIFY_INTERVAL_MS="${SNS_PAYMENT_REVERIFY_INTERVAL_MS:-10000}" ;;
    social) echo SNS_AUTH_URL="http://127.0.0.1:$(service_port auth)" SNS_MEDIA_URL="http://127.0.0.1:$(service_port media)" \
                 SNS_INTERNAL_TIMEOUT_MS="$INTERNAL_TIMEOUT_MS" ;;
    chat) echo SNS_MEDIA_SIGNING_KEY_FILE="$STATE/keys/media-signing.key" SNS_MEDIA_URL="http://127.0.0.1:$(service_port media)" \
               SNS_INTERNAL_TIMEOUT_MS="$INTERNAL_TIMEOUT_MS" ;;
    media) echo SNS_MEDIA_SIGNING_KEY_FILE="$STATE/keys/media-signing.key" SNS_MEDIA_ROOT="$STATE/media" \
                SNS_MEDIA_GC_GRACE="${SNS_MEDIA_GC_GRACE:-86400}" SNS_MEDIA_GC_INTERVAL="${SNS_MEDIA_GC_INTERVAL:-600}" ;;
  esac
}

start_services() {
  local name i replicas_list
  replicas_list="$(all_replicas)"
  while read -r name i; do [ -z "$name" ] || start_replica "$name" "$i"; done <<<"$replicas_list"
  while read -r name i; do
    [ -z "$name" ] || wait_for "$(replica_name "$name" "$i") ready" 120 service_ready "$name" "$i"
  done <<<"$replicas_list"
  # Ready serves requests; the consumers join their groups ~2.5 s later on the dev broker, and until then a write
  # waits its read-your-writes bound (3 s) for projections that are not consuming. The stack is announced once
  # every replica's consumers hold their assignments (each wait bounded at 30 s).
  while read -r name i; do [ -z "$name" ] || wait_for_consumers "$name" "$i"; done <<<"$replicas_list"
}

# Starts replica i of a service unless it runs (migrations run once: under an advisory lock; consumers of one
# service share partitions in its consumer group; one relay per schema publishes, the others stand by).
start_replica() {
  local name="$1" replica="$2" process
  process="$(replica_name "$name" "$replica")"
  pid_alive "$process" && return 0
  log "starting $process on 127.0.0.1:$(service_port "$name" "$replica")"
  # shellcheck disable=SC2046
  env $(service_env "$name" "$replica") bash -c 'exec "$0" "$@"' "$BIN/$name" >>"$STATE/logs/$process.log" 2>&1 &
  echo $! >"$STATE/run/$process.pid"
}

# How long nginx leaves a replica out after a failed attempt (`max_fails=1`; each worker keeps its own count).
GATEWAY_FAIL_TIMEOUT_S=1

# ./sns restart <service>…: a rolling restart, one replica at a time, each back on /ready before the next goes. A
# service with one replica gets a spare first (on the gateway's backup slot), so it never has none; the gateway
# retries what a leaving replica refuses (decision 0018).
restart_services() {
  local name count i spare
  [ $# -gt 0 ] || die "usage: ./sns restart <service>… (services: $(service_names))"
  for name in "$@"; do service_port "$name" >/dev/null || die "unknown service '$name' (services: $(service_names))"; done
  # `./sns up` watches its processes; while this marker exists, a replica missing for a moment is not a death.
  # (A marker left by a restart that died names a process that is gone, and is ignored.)
  echo $$ >"$STATE/run/restarting"
  for name in "$@"; do
    count="$(replicas "$name")"; spare=""
    if [ "$count" = 1 ]; then
      spare=2
      start_replica "$name" "$spare"
      wait_for "$(replica_name "$name" "$spare") ready" 120 service_ready "$name" "$spare"
      wait_for_consumers "$name" "$spare"
    fi
    for i in $(seq 1 "$count"); do
      log "restarting $(replica_name "$name" "$i")"
      stop_pid "$(replica_name "$name" "$i")"
      start_replica "$name" "$i"
      wait_for "$(replica_name "$name" "$i") ready" 120 service_ready "$name" "$i"
      wait_for_consumers "$name" "$i"
      # Requests refused while it was down left it marked failed in nginx until fail_timeout after the last refusal,
      # which came before it listened: stopping the next replica (or the spare) sooner leaves nginx no live server
      # for a moment, and a GET then gets 502 (seen once: social-2 stopped as soon as social's consumers settled).
      sleep $((GATEWAY_FAIL_TIMEOUT_S + 1))
    done
    [ -n "$spare" ] && stop_pid "$(replica_name "$name" "$spare")"
  done
  rm -f "$STATE/run/restarting"
  log "restarted: $*"
}

# After a replica is ready, a rolling restart waits (up to 30 s) until its consumers hold their groups' assignments
# (/ready's "consumers"): the next replica to stop then leaves a settled group. One that leaves in the middle of the
# rebalance that the new member started cannot finish its close in time on the dev broker, and its group waits a
# session timeout (10 s) before its partitions move (decision 0018).
wait_for_consumers() {
  local url; url="http://127.0.0.1:$(service_port "$1" "$2")/ready"
  for _ in $(seq 1 150); do
    curl --max-time 5 -sS "$url" 2>/dev/null | grep -q '"consumers":true' && return 0
    sleep 0.2
  done
  log "$(replica_name "$1" "$2"): its consumers hold no assignment 30 s after it became ready; going on"
}

# Ready when /ready answers 200; fails the wait at once if the process died (its log says why).
service_ready() {
  pid_alive "$(replica_name "$1" "${2:-1}")" || return 99
  curl --max-time 5 -fsS -o /dev/null "http://127.0.0.1:$(service_port "$1" "${2:-1}")/ready"
}

start_gateway() {
  local conf="$STATE/nginx/nginx.conf" user_line=""
  mkdir -p "$STATE/nginx/tmp"
  [ "$(id -u)" = 0 ] && user_line="user root;"
  local upstreams="" entry name i count
  for entry in "${SERVICES[@]}"; do
    name="${entry%%:*}"; count="$(replicas "$name")"
    upstreams+="    upstream $name {"$'\n'
    for i in $(seq 1 "$count"); do
      upstreams+="        server 127.0.0.1:$(service_port "$name" "$i") max_fails=1 fail_timeout=${GATEWAY_FAIL_TIMEOUT_S}s;"$'\n'
    done
    # The slot a rolling restart's spare uses (only when every replica above refuses).
    upstreams+="        server 127.0.0.1:$(service_port "$name" $((count + 1))) backup;"$'\n'
    # Idle connections are closed by nginx before a draining replica stops (SNS_SHUTDOWN_DRAIN_MS 3000 > 2 s).
    # keepalive_requests: nginx's default (1000) would close each upstream connection every second or so under
    # load, and each new connection costs the service a channel set-up.
    upstreams+="        keepalive 256; keepalive_timeout 2s; keepalive_requests 100000;"$'\n'"    }"$'\n'
    # Socket.IO routes (the catalog's socket routes): every request of a client to the same replica, which holds
    # its Engine.IO session (hashing allows no backup server).
    upstreams+="    upstream ${name}_sockets {"$'\n'"        hash \$remote_addr consistent;"$'\n'
    for i in $(seq 1 "$count"); do
      upstreams+="        server 127.0.0.1:$(service_port "$name" "$i") max_fails=1 fail_timeout=${GATEWAY_FAIL_TIMEOUT_S}s;"$'\n'
    done
    upstreams+="    }"$'\n'
  done
  sed -e "s|@USER_LINE@|$user_line|" -e "s|@STATE@|$STATE|g" -e "s|@GATEWAY_PORT@|$GATEWAY_PORT|g" \
    "$ROOT/deploy/nginx/nginx.local.conf.template" | awk -v up="$upstreams" '{ if ($0 ~ /@UPSTREAMS@/) printf "%s", up; else print }' >"$conf"
  cat "$ROOT/deploy/nginx/routes.conf" >"$STATE/nginx/routes.conf"
  # routes.conf serves the API description from sns/openapi.json under nginx's prefix: the repository's file, live.
  mkdir -p "$STATE/nginx/sns"
  ln -sfn "$ROOT/docs/api/openapi.json" "$STATE/nginx/sns/openapi.json"
  if gateway_running; then
    nginx -p "$STATE/nginx" -c "$conf" -s reload
  else
    log "starting the nginx gateway on 127.0.0.1:$GATEWAY_PORT"
    nginx -p "$STATE/nginx" -c "$conf" -t -q || die "nginx configuration invalid"
    nginx -p "$STATE/nginx" -c "$conf"
  fi
  wait_for "gateway" 30 curl --max-time 5 -sS -o /dev/null "http://127.0.0.1:$GATEWAY_PORT/v1/"
}

gateway_running() { [ -s "$STATE/nginx/nginx.pid" ] && kill -0 "$(cat "$STATE/nginx/nginx.pid")" 2>/dev/null; }

start_process() {
  local name="$1"; shift
  mkdir -p "$STATE/run" "$STATE/logs"
  "$@" >>"$STATE/logs/$name.log" 2>&1 &
  echo $! >"$STATE/run/$name.pid"
}

pid_alive() {
  local file="$STATE/run/$1.pid"
  [ -s "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null
}

# SIGTERM to each named process at once, then up to 12 s for all of them (a service bounds its own exit to 8 s,
# SNS_SHUTDOWN_LIMIT_MS), then SIGKILL for what is left.
stop_pid() {
  local name pids=() pid
  for name in "$@"; do
    [ -s "$STATE/run/$name.pid" ] || continue
    pid="$(cat "$STATE/run/$name.pid")"
    kill -0 "$pid" 2>/dev/null && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$name:$pid"); }
  done
  for _ in $(seq 1 120); do
    local alive=0 entry
    for entry in "${pids[@]}"; do kill -0 "${entry##*:}" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.1
  done
  for entry in "${pids[@]}"; do
    kill -0 "${entry##*:}" 2>/dev/null && { log "${entry%%:*} did not stop in 12 s; killing"; kill -KILL "${entry##*:}" 2>/dev/null || true; }
  done
  for name in "$@"; do rm -f "$STATE/run/$name.pid"; done
}

wait_for() {
  local what="$1" seconds="$2"; shift 2
  local rc
  for _ in $(seq 1 $((seconds * 5))); do
    rc=0; "$@" >/dev/null 2>&1 || rc=$?
    [ $rc = 0 ] && return 0
    [ $rc = 99 ] && die "$what: the process exited during start-up; its log ends with:
$(tail -n 8 "$STATE/logs/${what%% *}.log" 2>/dev/null)"
    sleep 0.2
  done
  die "$what: not ready after ${seconds}s (logs in $STATE/logs)"
}

# A log of the stack that outgrew 64 MiB is set aside as <name>.1 (replacing the previous one) before the stack
# starts (and while it runs: start_log_keeper), so benchmarks do not fill the disk: the gateway's access log gains a
# line per request.
BIG_LOG_BYTES=$((64 * 1024 * 1024))
set_aside_big_logs() {
  local file
  for file in "$STATE"/logs/*.log; do
    [ -f "$file" ] || continue
    if [ "$(stat -c %s "$file")" -gt "$BIG_LOG_BYTES" ]; then
      mv -f "$file" "$file.1"
      log "set aside $(basename "$file") ($(du -h "$file.1" | cut -f1)) as $(basename "$file").1"
    fi
  done
  return 0
}

# While the stack runs, a small loop sets aside every log that outgrew 64 MiB once a minute (copied to <name>.1, then
# emptied in place: every process appends, so it goes on writing at the new end; lines written during the copy are
# lost). It ends with the stack, or by itself once the broker is gone (a stack that was killed, not stopped).
start_log_keeper() {
  pid_alive logkeeper && return 0
  start_process logkeeper bash -c '
    logs="$1"; broker_pid_file="$2"; big="$3"
    while sleep 60; do
      [ -s "$broker_pid_file" ] && kill -0 "$(cat "$broker_pid_file")" 2>/dev/null || exit 0
      for file in "$logs"/*.log; do
        [ -f "$file" ] && [ "$(stat -c %s "$file")" -gt "$big" ] || continue
        cp -f "$file" "$file.1" && truncate -s 0 "$file" && echo "set aside $file as $file.1"
      done
    done' logkeeper "$STATE/logs" "$STATE/run/broker.pid" "$BIG_LOG_BYTES"
}

start_stack() {
  mkdir -p "$STATE/run" "$STATE/logs"
  set_aside_big_logs
  start_postgres
  ensure_keys
  start_broker
  start_log_keeper
  start_portone_test_server
  start_idp_test_server
  start_services
  start_gateway
}

stop_stack() {
  local entry
  if [ -s "$STATE/run/gateway.pid" ] || [ -s "$STATE/nginx/nginx.pid" ]; then
    [ -s "$STATE/nginx/nginx.pid" ] && cp "$STATE/nginx/nginx.pid" "$STATE/run/gateway.pid"
    stop_pid gateway
  fi
  # Every replica at once (each drains for SNS_SHUTDOWN_DRAIN_MS), a restart's spare included.
  # shellcheck disable=SC2046
  stop_pid $(running_replica_names)
  stop_pid portone
  stop_pid idp
  stop_pid logkeeper
  stop_pid broker
  stop_postgres
  log "stopped ($PROFILE)"
}

check_alive() {
  local name
  pid_alive broker || return 1
  if uses_portone_test_server; then pid_alive portone || return 1; fi
  if uses_idp_test_server; then pid_alive idp || return 1; fi
  if ! { [ -s "$STATE/run/restarting" ] && kill -0 "$(cat "$STATE/run/restarting")" 2>/dev/null; }; then
    for name in $(all_replica_names); do pid_alive "$name" || return 1; done
  fi
  gateway_running
}

stack_status() {
  local name port i
  printf '%-10s %s\n' profile "$PROFILE"
  if as_pg "$(pg_bin)/pg_ctl" -D "$STATE/postgres" status >/dev/null 2>&1; then printf '%-10s running on 127.0.0.1:%s\n' postgres "$PG_PORT"; else printf '%-10s stopped\n' postgres; fi
  if pid_alive broker; then printf '%-10s running on %s\n' broker "$(cat "$STATE/broker.addr")"; else printf '%-10s stopped\n' broker; fi
  if pid_alive portone; then printf '%-10s PortOne test server on 127.0.0.1:%s\n' portone "$(portone_port)"; elif uses_portone_test_server; then printf '%-10s stopped\n' portone; else printf '%-10s real PortOne at %s\n' portone "$SNS_PORTONE_URL"; fi
  if pid_alive idp; then printf '%-10s identity-provider test server on %s\n' idp "$(idp_url)"; elif uses_idp_test_server; then printf '%-10s stopped\n' idp; else printf '%-10s real identity providers (environment)\n' idp; fi
  local service replicas_list
  replicas_list="$(all_replicas)"
  while read -r service i; do
    [ -n "$service" ] || continue
    name="$(replica_name "$service" "$i")"; port="$(service_port "$service" "$i")"
    if pid_alive "$name"; then printf '%-10s running on 127.0.0.1:%s, ready: %s\n' "$name" "$port" "$(curl --max-time 5 -s "http://127.0.0.1:$port/ready" || echo no)"; else printf '%-10s stopped\n' "$name"; fi
  done <<<"$replicas_list"

  if gateway_running; then printf '%-10s http://127.0.0.1:%s\n' gateway "$GATEWAY_PORT"; else printf '%-10s stopped\n' gateway; fi
}

print_banner() {
  cat <<BANNER

  SNS backend is up ($PROFILE profile)
    base URL   http://127.0.0.1:$GATEWAY_PORT/v1
    SesacKey   $API_KEY
    PortOne    $(if uses_portone_test_server; then echo "test server http://127.0.0.1:$(portone_port) (sandbox API: /__sandbox/)"; else echo "$SNS_PORTONE_URL"; fi)
    sign-in    $(if uses_idp_test_server; then echo "Firebase/Apple/Kakao test server $(idp_url) (sandbox API: /__sandbox/)"; else echo "identity providers from the environment"; fi)
    admin      ./sns admin --help
    logs       $STATE/logs/
    stop       ./sns stop   (or Ctrl-C in './sns up')

BANNER
}

# The whole stack of a throw-away profile (test, check) on an empty database.
start_fresh_stack() {
  FRESH_DATABASE=1 start_postgres
  ensure_keys
  start_broker
  start_portone_test_server
  start_idp_test_server
  start_services
  start_gateway
}

# Processes the tests started themselves (fault-test mini-stacks, crash-test services, sns-admin runs) that
# outlived a test process which crashed or was interrupted: our executables whose environment points at this
# profile's PostgreSQL or whose arguments name its fault-test folder. Left running, such a process keeps
# relaying an outbox with a dead broker address and holds that schema's relay lock (events stall).
kill_test_orphans() {
  local pid programs entry
  programs="sns-dev-broker|sns-admin|sns-portone-test-server|sns-idp-test-server"
  for entry in "${SERVICES[@]}"; do programs+="|${entry%%:*}"; done
  for pid in $(pgrep -f "^$BIN/($programs)( |$)" || true); do
    if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -q "127.0.0.1:$PG_PORT/" \
       || tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$STATE/fault/"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

# The test and check profiles use fixed ports, so two checkouts of the repository (git worktrees) must not run
# them at the same time: the second waits for the first. `./sns <command>` builds, then re-executes itself under
# flock(1) without building again; `-o` keeps the lock in flock's own process only, so no service or database
# started by the run inherits it. (Not `trap '' INT` to keep flock through a Ctrl-C: an ignored signal stays
# ignored in every child, and Ctrl-C would no longer stop the tests.) The path is fixed: the ports are
# machine-wide, whatever TMPDIR says.
hold_profile_lock() {  # command [args…]
  [ -n "${SNS_HOLDS_PORTS_LOCK:-}" ] && return 0
  local file="/tmp/sns-$PROFILE-ports.lock"
  if ! flock -n "$file" true; then
    log "another ./sns run holds the $PROFILE ports ($file); waiting for it to finish"
  fi
  exec env SNS_HOLDS_PORTS_LOCK=1 flock -o "$file" "$ROOT/sns" "$@"
}

# The tests' real Socket.IO client (python-socketio from PyPI, pinned) in a venv of its own under .local/.
SOCKETIO_SPEC="python-socketio[client]==5.18.1"
ensure_test_python() {
  local venv="$ROOT/.local/python"
  if ! "$venv/bin/python" -c 'import importlib.metadata as m, sys; sys.exit(m.version("python-socketio") != "5.18.1")' 2>/dev/null; then
    log "installing $SOCKETIO_SPEC into $venv (PyPI)"
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv" || die "python3 -m venv failed (apt-get install python3-venv)"
    "$venv/bin/pip" install -q --disable-pip-version-check "$SOCKETIO_SPEC" || die "pip install $SOCKETIO_SPEC failed"
  fi
  export SNS_TEST_PYTHON="$venv/bin/python"
}

# How many tests Swift Testing runs at once. Unbounded, every test starts at once and the peak of in-process
# services (each with its own pools) depends on how the tests happen to overlap: 850 connections seen on one run,
# more than the cluster's 1 000 on one CI run, where the stack's own services then could not connect (504s).
TEST_PARALLELISM="${SNS_TEST_PARALLELISM:-24}"
# Hang guards, far above a normal run (suite ~4 min, resilience ~7 min on 2 cores): a test that hangs must end the
# run with the names of the unfinished tests, not consume CI's whole budget silently.
TEST_SUITE_LIMIT="${SNS_TEST_SUITE_LIMIT:-40m}"
TEST_RESILIENCE_LIMIT="${SNS_TEST_RESILIENCE_LIMIT:-20m}"

# swift test under a time limit, its output appended to the tests' log. On the limit: the tests that started and
# never finished, then exit 124.
run_swift_test() {  # limit [swift test arguments…]
  local limit="$1"; shift
  local mark; mark=$(wc -l <"$STATE/logs/tests.log")
  timeout --kill-after=30s "$limit" swift test --skip-build --scratch-path "$SCRATCH" "$@" 2>&1 |
    tee -a "$STATE/logs/tests.log"
  local status=${PIPESTATUS[0]}
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    log "swift test did not finish within $limit; tests that started and did not finish:"
    tail -n +"$((mark + 1))" "$STATE/logs/tests.log" | unfinished_tests >&2
    status=124
  fi
  return "$status"
}

# From Swift Testing's output: the tests with a "started" line and no "passed"/"failed"/"skipped" line.
unfinished_tests() {
  awk '
    /^◇ Test (run|case passing) / { next }
    /^◇ Test .* started\.$/ { name = $0; sub(/^◇ Test /, "", name); sub(/ started\.$/, "", name); open[name] = 1; next }
    /^[^ ]+ Test .* (passed|failed) after [0-9.]+ seconds/ || /^[^ ]+ Test .* skipped/ {
      name = $0; sub(/^[^ ]+ Test /, "", name)
      sub(/ (passed|failed) after [0-9.]+ seconds.*$/, "", name); sub(/ skipped.*$/, "", name)
      sub(/ with [0-9]+ test cases?$/, "", name); delete open[name]
    }
    END { n = 0; for (name in open) { print "  " name; n++ } if (n == 0) print "  (none: the time went elsewhere)" }
  '
}

# ./sns test: a fresh database and broker, the whole stack behind the gateway, then `swift test`.
run_tests() {
  if [ -z "${SNS_HOLDS_PORTS_LOCK:-}" ]; then
    ensure_packages
    build_all --build-tests
    hold_profile_lock test "$@"
  fi
  ensure_test_python
  stop_stack >/dev/null 2>&1 || true   # leftovers of an interrupted run
  kill_test_orphans
  trap 'stop_stack; kill_test_orphans' EXIT
  set_scale "${SNS_SCALE:-$(default_scale)}"
  start_fresh_stack
  export SNS_TEST_DATABASE_URL="$DATABASE_URL"
  export SNS_TEST_KAFKA_BROKERS="$(cat "$STATE/broker.addr")"
  export SNS_TEST_GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT"
  export SNS_TEST_API_KEY="$API_KEY"
  export SNS_TEST_JWT_PRIVATE_KEY_FILE="$STATE/keys/jwt-private.pem"
  export SNS_TEST_JWT_PUBLIC_KEY_FILE="$STATE/keys/jwt-public.pem"
  export SNS_TEST_MEDIA_SIGNING_KEY_FILE="$STATE/keys/media-signing.key"
  export SNS_TEST_AUTH_URL="http://127.0.0.1:$(service_port auth)"
  export SNS_TEST_MEDIA_URL="http://127.0.0.1:$(service_port media)"
  export SNS_TEST_PORTONE_URL="http://127.0.0.1:$(portone_port)"
  export SNS_TEST_IDP_URL="$(idp_url)"
  export SNS_TEST_STATE_DIR="$STATE"
  export SNS_TEST_BIN_DIR="$BIN"
  export SNS_TEST_SCALE="$(tr '\n' ',' <"$STATE/scale")"
  local chat_urls="" i
  for i in $(seq 1 "$(replicas chat)"); do chat_urls+="${chat_urls:+,}http://127.0.0.1:$(service_port chat "$i")"; done
  export SNS_TEST_CHAT_URLS="$chat_urls"
  # Without arguments: the suite, then the resilience tests, which kill, restart and cut off parts of this stack
  # and so run alone, one after the other (Tests/EndToEndTests/Resilience). With arguments: only the suite (or,
  # with --resilience first, only the resilience tests).
  local status=0 resilience=0 suite=1
  if [ $# = 0 ]; then resilience=1; elif [ "$1" = --resilience ]; then shift; resilience=1; suite=0; fi
  : >"$STATE/logs/tests.log"
  set +e
  if [ $suite = 1 ]; then
    log "running swift test (at most $TEST_PARALLELISM tests at a time, stopped after $TEST_SUITE_LIMIT)"
    run_swift_test "$TEST_SUITE_LIMIT" --experimental-maximum-parallelization-width "$TEST_PARALLELISM" "$@"
    status=$?
  fi
  if [ $resilience = 1 ]; then
    log "running the resilience tests (alone, against this stack, stopped after $TEST_RESILIENCE_LIMIT)"
    SNS_TEST_RESILIENCE=1 run_swift_test "$TEST_RESILIENCE_LIMIT" --filter ResilienceTests "$@"
    local resilience_status=$?
    [ $status = 0 ] && status=$resilience_status
  fi
  set -e
  if [ $status != 0 ]; then
    # The failures again, last, so that a log cut to its tail (CI) still names them.
    log "tests failed (exit $status); the failures (whole output: $STATE/logs/tests.log; service logs: $STATE/logs):"
    grep -E '^✘ |recorded an issue|: error: |XCTAssert|Fatal error' "$STATE/logs/tests.log" | grep -v 'known issue' | tail -n 60 >&2 || true
  fi
  return $status
}

# ./sns check-api: schemathesis against a fresh private stack (profile `check`), then everything stops again.
run_api_check() {
  if [ -z "${SNS_HOLDS_PORTS_LOCK:-}" ]; then
    ensure_packages
    build_all
    hold_profile_lock check-api "$@"
  fi
  stop_stack >/dev/null 2>&1 || true   # leftovers of an interrupted run
  trap 'stop_stack' EXIT
  # Long-lived access tokens: the run signs in once and may take several minutes.
  export SNS_ACCESS_TOKEN_TTL="${SNS_ACCESS_TOKEN_TTL:-3600}"
  start_fresh_stack
  log "running schemathesis (deploy/local/schemathesis.sh)"
  set +e
  SNS_CHECK_GATEWAY_URL="http://127.0.0.1:$GATEWAY_PORT" SNS_CHECK_API_KEY="$API_KEY" \
    SNS_CHECK_REPORT_DIR="$STATE/schemathesis-report" "$ROOT/deploy/local/schemathesis.sh" "$@"
  local status=$?
  set -e
  [ $status = 0 ] || log "the API check failed (exit $status); service logs: $STATE/logs"
  return $status
}

load_services
