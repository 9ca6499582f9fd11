# Sourced by the bench scripts: where the stack to measure is. `SNS_PROFILE` picks a local profile (dev by default;
# any profile `./sns` knows), so a second stack can be measured beside a developer's; SNS_BENCH_URL,
# SNS_BENCH_API_KEY and SNS_BENCH_DATABASE_URL override each value for a stack elsewhere.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../deploy/local/lib.sh
source "$ROOT/deploy/local/lib.sh"
BASE="${SNS_BENCH_URL:-http://127.0.0.1:$GATEWAY_PORT}"
KEY="${SNS_BENCH_API_KEY:-$API_KEY}"
DB="${SNS_BENCH_DATABASE_URL:-$DATABASE_URL}"
# Services' own ports (direct, without the gateway).
direct_url() { echo "http://127.0.0.1:$(service_port "$1")"; }
