#!/usr/bin/env bash
# Payment-validation benchmark against a running local stack (`./sns start`, which starts the PortOne test server;
# ideally with SNS_BUILD_CONFIGURATION=release): a seller lists $POSTS books, the sandbox creates $PAYMENTS paid
# payments spread over them, then $CONCURRENCY apps validate them through the gateway at once (each validation is
# a claim, a PortOne lookup and one transaction with its outbox row; purchases of one post serialise on its outbox
# ordering lock, so POSTS=1 measures a single hot post). Prints throughput and latency, then wrk on the history
# read. Asserts nothing. Usage: bench/payment-validation.sh [payments=400] [concurrency=16] [seconds=10] [posts=20]
set -euo pipefail
PAYMENTS="${1:-400}"; CONCURRENCY="${2:-16}"; SECONDS_PER_RUN="${3:-10}"; POSTS="${4:-20}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
PORTONE="${SNS_BENCH_PORTONE_URL:-http://127.0.0.1:8190}"
RUN="$(date +%s)"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
account() {
  curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$1@example.com\",\"password\":\"password123\",\"nick\":\"$1\"}" >/dev/null
  curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$1@example.com\",\"password\":\"password123\"}" | json "['accessToken']"
}
SELLER="$(account "seller$RUN")"; BUYER="$(account "buyer$RUN")"
POST_IDS=()
for p in $(seq 1 "$POSTS"); do
  POST_IDS+=("$(curl -fsS "$BASE/v1/posts" -H "SesacKey: $KEY" -H "Authorization: $SELLER" -H 'Content-Type: application/json' \
    -d "{\"product_id\":\"bench_market\",\"title\":\"bench book $p\",\"content\":\"for sale\",\"price\":1000}" | json "['post_id']")")
done
echo "waiting for the market to learn of $POSTS posts …" >&2
for post in "${POST_IDS[@]}"; do
  for _ in $(seq 1 300); do
    code="$(curl -s -o /dev/null -w '%{http_code}' "$BASE/v1/payments/validation" -H "SesacKey: $KEY" -H "Authorization: $BUYER" \
      -H 'Content-Type: application/json' -d "{\"imp_uid\":\"imp_probe$RUN\",\"post_id\":\"$post\"}")"
    [ "$code" = 400 ] && break; sleep 0.1
  done
done
echo "creating $PAYMENTS payments at the PortOne test server …" >&2
IMPS="$(mktemp)"; TIMES="$(mktemp)"; LUA="$(mktemp)"; trap 'rm -f "$IMPS" "$TIMES" "$LUA"' EXIT
for i in $(seq 1 "$PAYMENTS"); do
  curl -fsS "$PORTONE/__sandbox/payments" -H 'Content-Type: application/json' \
    -d "{\"merchant_uid\":\"ios_${KEY}_${RUN}_$i\",\"amount\":1000}" | json "['imp_uid']" | tr '\n' ' ' >>"$IMPS"
  echo "${POST_IDS[$((i % POSTS))]}" >>"$IMPS"
done
echo "validating them, $CONCURRENCY at a time …" >&2
export BASE KEY BUYER
start="$(date +%s.%N)"
xargs -P "$CONCURRENCY" -L1 sh -c 'curl -s -o /dev/null -w "%{http_code} %{time_total}\n" "$BASE/v1/payments/validation" \
  -H "SesacKey: $KEY" -H "Authorization: $BUYER" -H "Content-Type: application/json" \
  -d "{\"imp_uid\":\"$0\",\"post_id\":\"$1\"}"' <"$IMPS" >"$TIMES"
end="$(date +%s.%N)"
python3 - "$TIMES" "$start" "$end" <<'PY'
import sys
rows = [line.split() for line in open(sys.argv[1])]
codes = {}
for code, _ in rows: codes[code] = codes.get(code, 0) + 1
times = sorted(float(t) * 1000 for _, t in rows)
q = lambda p: times[min(len(times) - 1, int(p * len(times)))]
elapsed = float(sys.argv[3]) - float(sys.argv[2])
print(f"validations: {len(rows)} in {elapsed:.2f} s = {len(rows) / elapsed:.0f}/s  statuses {codes}")
print(f"latency ms: p50 {q(0.5):.1f}  p95 {q(0.95):.1f}  p99 {q(0.99):.1f}  max {times[-1]:.1f}")
PY
cat >"$LUA" <<LUA
wrk.headers["SesacKey"] = "$KEY"
wrk.headers["Authorization"] = "$BUYER"
LUA
printf '%-34s ' "history (GET /v1/payments/me, $PAYMENTS rows)"
wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" -s "$LUA" "$BASE/v1/payments/me" | awk '/Requests\/sec/ {rps=$2} /Latency/ {lat=$2} /Non-2xx/ {bad=$4} END {printf "%10s req/s  avg %s%s\n", rps, lat, (bad ? "  NON-2XX: " bad : "")}'
