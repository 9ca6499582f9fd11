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

# Waits (up to 90 s) until the machine is quiet after a seed: the consumers have applied the seed's events and
# autovacuum is done, so a measurement does not share the cores with them. Quiet = at least 85 % idle over 2 s.
settle() {
  local tries=0 idle
  while [ "$tries" -lt 45 ]; do
    idle="$(python3 - <<'PY'
import time
def snap():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return f[3] + f[4], sum(f)
i0, t0 = snap(); time.sleep(2); i1, t1 = snap()
print(int(100 * (i1 - i0) / max(t1 - t0, 1)))
PY
)"
    [ "$idle" -lt 85 ] || return 0
    tries=$((tries + 1))
  done
  echo "the machine did not become quiet (idle ${idle} %); measuring anyway" >&2
}
