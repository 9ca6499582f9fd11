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

# The dev broker gets slower as its log fills (decision 0003): how many messages sns.posts holds, so that runs can
# be compared ("?" when the admin tool cannot say). The dev broker keeps up to ~5 MB per partition.
broker_fill() {
  local held
  held="$("$ROOT/sns" admin topics 2>/dev/null | awk '$1 == "sns.posts" { print $3 }')" || true
  echo "dev broker: sns.posts holds ${held:-?} messages before the run (it keeps up to ~5 MB per partition)"
}

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

# wrk scripts for the write benchmarks (endpoints.sh, write-cost.sh), on stdout. Every request carries SesacKey and
# the token. create_lua TOKEN PRODUCT [SUFFIX]: new posts with two hashtags (and SUFFIX, e.g. a mention, appended to
# the content). like_lua TOKEN POST_ID…: a like of a random one of the posts, in a random state.
create_lua() {
  cat <<LUA
wrk.method = "POST"; wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Authorization"] = "$1"
wrk.headers["Content-Type"] = "application/json"
local n = 0
request = function()
  n = n + 1
  return wrk.format(nil, nil, nil, '{"product_id":"$2","title":"bench","content":"created by wrk ' .. n .. ' #bench #tag' .. (n % 50) .. '${3:-}"}')
end
LUA
}
like_lua() {
  echo "wrk.method = \"POST\"; wrk.headers[\"SesacKey\"] = \"$KEY\"; wrk.headers[\"Authorization\"] = \"$1\""
  echo "wrk.headers[\"Content-Type\"] = \"application/json\""
  shift
  printf 'local ids = {'; printf '"%s",' "$@"; echo '}'
  cat <<'LUA'
math.randomseed(os.time())
request = function()
  local state = (math.random(2) == 1) and "true" or "false"
  return wrk.format(nil, "/v1/posts/" .. ids[math.random(#ids)] .. "/like", nil, '{"like_status":' .. state .. '}')
end
LUA
}
