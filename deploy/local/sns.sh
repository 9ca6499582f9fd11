#!/usr/bin/env bash
# Local stack without Docker: PostgreSQL (Debian package, cluster in .local/), the in-memory
# Kafka-protocol dev broker (librdkafka's mock cluster, see Tools/DevBroker), every service and an nginx
# gateway, all as plain processes. docker-compose.yml runs the same binaries against real Kafka.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
source "$ROOT/deploy/local/lib.sh"

usage() {
  cat <<USAGE
usage: ./sns <command>
  up        install what is missing, build, start everything, print the URL; Ctrl-C stops it all
            --scale posts=3,social=2: that many replicas of a service behind the gateway (default 1 each)
  start     the same, detached (for scripts); then: status, stop, logs [service], restart
  restart   a rolling restart of services, one replica at a time: ./sns restart posts social
  status    show what runs and whether each part is ready
  stop      stop everything this profile started
  logs      tail the logs (all, or one: postgres, broker, portone, idp, gateway, auth, posts, media, social, market)
  test      run the whole test suite (own profile, ports and fresh database, posts=3,social=2,chat=2; cleans up after
            itself): the tests, then the resilience tests (kill, rolling restart, database and broker outages) on
            the same stack; with arguments (e.g. --filter X) only the first part; --resilience: only the second
  check-api schemathesis against the OpenAPI document on a fresh private stack (profile check, gateway :28080):
            no 5xx, every response as documented; extra arguments go to 'st run' (e.g. --seed 1). Against a
            running stack instead: deploy/local/schemathesis.sh [--gateway URL] [--api-key KEY]
  sync-deployment
            rewrite the deployment files' parts that repeat the system catalog (compose's database roles, the
            gateway's routes and upstreams, Prometheus's targets, .env.example), after a change to
            Shared/Contract/SystemCatalog.swift (docs/operations.md, "Adding a service")
  admin     the event-pipeline tool against this profile's stack: ./sns admin outbox status, republish … (see README)
environment: SNS_GATEWAY_PORT (8080), SNS_API_KEY (dev default), SNS_ACCESS_TOKEN_TTL, SNS_REFRESH_TOKEN_TTL,
             SNS_BUILD_CONFIGURATION (debug|release), SNS_PROFILE (dev), SNS_SCALE (as --scale)
USAGE
}

cmd="${1:-}"
shift || true
# --scale name=N[,name=N…] (up, start, test): replicas per service; the rest of the arguments stay in "$@".
SCALE_SPEC="${SNS_SCALE:-}"
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) [ $# -ge 2 ] || die "--scale needs a value, e.g. --scale posts=3,social=2"; SCALE_SPEC="$2"; shift 2 ;;
    --scale=*) SCALE_SPEC="${1#--scale=}"; shift ;;
    *) args+=("$1"); shift ;;
  esac
done
set -- "${args[@]+"${args[@]}"}"
case "$cmd" in
  up)
    ensure_packages
    build_all
    set_scale "${SCALE_SPEC:-$(default_scale)}"
    start_stack
    print_banner
    trap 'echo; log "stopping…"; stop_stack; exit 0' INT TERM
    log "running in the foreground; Ctrl-C stops everything (logs: $STATE/logs)"
    while true; do
      sleep 2
      check_alive || { stop_stack; die "a component died; see $STATE/logs"; }
    done
    ;;
  start)
    ensure_packages
    build_all
    set_scale "${SCALE_SPEC:-$(default_scale)}"
    start_stack
    print_banner
    ;;
  status) stack_status ;;
  restart) restart_services "$@" ;;
  stop) stop_stack ;;
  logs)
    if [ -n "${1:-}" ]; then tail -n 100 -f "$STATE/logs/$1.log"; else tail -n 20 -f "$STATE"/logs/*.log; fi
    ;;
  test)
    export SNS_PROFILE=test SNS_SCALE="$SCALE_SPEC"
    source "$ROOT/deploy/local/lib.sh"   # re-derive ports and paths for the test profile
    run_tests "$@"
    ;;
  check-api)
    export SNS_PROFILE=check
    source "$ROOT/deploy/local/lib.sh"   # re-derive ports and paths for the check profile
    run_api_check "$@"
    ;;
  sync-deployment)
    swift build -c "$BUILD_CONFIGURATION" --scratch-path "$SCRATCH" --product sns-admin >/dev/null
    exec "$BIN/sns-admin" catalog --sync-deployment "$ROOT"
    ;;
  admin)
    [ -x "$BIN/sns-admin" ] || swift build -c "$BUILD_CONFIGURATION" --scratch-path "$SCRATCH" --product sns-admin >/dev/null
    [ -s "$STATE/broker.addr" ] || die "no broker address for the $PROFILE profile: start the stack first (./sns start)"
    SNS_DATABASE_URL="$DATABASE_URL" SNS_KAFKA_BROKERS="$(cat "$STATE/broker.addr")" exec "$BIN/sns-admin" "$@"
    ;;
  ""|-h|--help|help) usage ;;
  *) usage; exit 2 ;;
esac
