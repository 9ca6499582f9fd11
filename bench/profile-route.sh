#!/usr/bin/env bash
# Where a page's CPU goes, beside the ceiling's `SELECT 1` route, in one run against a running local stack
# (`./sns start`, ideally release, SNS_LOG_LEVEL=warning): CPU per request of the serving process, of PostgreSQL
# and of nginx (from /proc), and `perf record -e cpu-clock -g` of the serving process, split by library and by the
# functions with the most own samples. (Shares including callees are not shown: a resumed async function's stack
# does not hold its caller, so they would be wrong.)
# wrk -t1 -c$CONNECTIONS, closed loop. Prints Markdown; asserts nothing. (valgrind 3.19 cannot run these servers:
# it fails on the Swift binaries' DWARF 5, and with it stripped, crashes inside valgrind at start.)
# Usage: bench/profile-route.sh [seconds=10] [connections=16]
set -euo pipefail
SECONDS_PER_RUN="${1:-10}"; CONNECTIONS="${2:-16}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB, ports and lib.sh's helpers for the profile (SNS_PROFILE)
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
CEILING_PORT="${SNS_BENCH_CEILING_PORT:-8199}"
for tool in wrk perf; do command -v "$tool" >/dev/null || { echo "$tool is missing (Debian: wrk, linux-perf)" >&2; exit 1; }; done
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
WORK="$(mktemp -d)"; CEILING_PID=""
cleanup() { [ -n "$CEILING_PID" ] && kill "$CEILING_PID" 2>/dev/null; [ -z "${KEEP:-}" ] || cp "$WORK"/*.perf "$KEEP"/ 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
source "$(dirname "$0")/wrk-rows.sh"   # start_ceiling
start_ceiling

RUN="$(date +%s)"; NICK="pr$RUN"; PRODUCT="bench-pr-$RUN"
echo "preparing a user and 40 posts under product_id=$PRODUCT …" >&2
curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"
for i in $(seq 1 40); do
  curl -fsS "$BASE/v1/posts" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"product_id\":\"$PRODUCT\",\"title\":\"post $i\",\"content\":\"profile $i #bench #tag$((i % 10))\"}" \
    >/dev/null
done
settle   # the seed's events applied, autovacuum done
cat >"$WORK/read.lua" <<LUA
wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Authorization"] = "$TOKEN"
LUA

# CPU ticks of the processes whose command name matches $1 (an extended regular expression).
ticks_of() {
  local total=0 line comm rest fields
  for stat in /proc/[0-9]*/stat; do
    line="$(cat "$stat" 2>/dev/null)" || continue
    comm="${line#*(}"; comm="${comm%%)*}"
    [[ "$comm" =~ ^($1)$ ]] || continue
    rest="${line##*) }"; read -r -a fields <<<"$rest"
    total=$(( total + fields[11] + fields[12] ))
  done
  echo "$total"
}
TICK_US=$(( 1000000 / $(getconf CLK_TCK) ))

# One row: label, url, pid to record, process name pattern. Leaves the profile in $WORK/<label>.perf.
row() {
  local label="$1" url="$2" pid="$3" name="$4" before_p before_pg before_ng out requests
  before_p="$(ticks_of "$name")"; before_pg="$(ticks_of 'postgres|postmaster')"; before_ng="$(ticks_of nginx)"
  perf record -q -F 499 -e cpu-clock -p "$pid" -o "$WORK/$label.perf" >/dev/null 2>&1 &
  local perf_pid=$!
  sleep 0.5
  out="$(wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" -s "$WORK/read.lua" "$url")"
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  requests="$(echo "$out" | awk '/requests in/ { print $1 }')"
  python3 - "$label" "$requests" "$SECONDS_PER_RUN" "$TICK_US" \
    "$(( $(ticks_of "$name") - before_p ))" "$(( $(ticks_of 'postgres|postmaster') - before_pg ))" \
    "$(( $(ticks_of nginx) - before_ng ))" <<'PY'
import sys
label, n, secs, tick_us, p, pg, ng = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), *map(int, sys.argv[5:])
per = lambda t: f"{t * tick_us / n:.0f} µs"
print(f"| {label} | {n / secs:.0f} | {per(p)} | {per(pg)} | {per(ng)} |")
PY
}

echo "| route (wrk -t1 -c$CONNECTIONS, ${SECONDS_PER_RUN} s) | req/s | serving process CPU per request | PostgreSQL | nginx |"
echo "|---|---:|---:|---:|---:|"
POSTS_PID="$(cat "$STATE/run/posts.pid")"
row ceiling-select1 "http://127.0.0.1:$CEILING_PORT/select1" "$CEILING_PID" sns-bench
row posts-direct "$(direct_url posts)/v1/posts?next=&limit=20&product_id=$PRODUCT" "$POSTS_PID" posts
row posts-gateway "$BASE/v1/posts?next=&limit=20&product_id=$PRODUCT" "$POSTS_PID" posts

# Shares of the samples: by library, then by part of the request path (inclusive).
report() {
  local file="$1"
  echo
  echo "**$(basename "$file" .perf)**, by library (own samples):"
  echo
  perf report -i "$file" --no-children --sort dso --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -8 \
    | awk '{ printf "- %s %s\n", $1, $2 }'
}
report "$WORK/ceiling-select1.perf"
report "$WORK/posts-direct.perf"
echo
echo "**posts-direct**, the functions with the most own samples (Swift names demangled):"
echo
echo '```'
perf report -i "$WORK/posts-direct.perf" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' \
  | head -25 | swift demangle --simplified | sed -E 's/ +/ /g' | cut -c1-140
echo '```'
