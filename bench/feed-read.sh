#!/usr/bin/env bash
# Feed-read benchmark against a running local stack (`./sns start`, ideally with SNS_BUILD_CONFIGURATION=release):
# signs up a bench user, writes $POSTS posts (with hashtags, a like and a comment each) under product_id
# "bench-<run>", then runs wrk on the first feed page, a deep page, one post and a hashtag search through the
# gateway. Prints numbers; asserts nothing. Usage: bench/feed-read.sh [posts=500] [seconds=10]
set -euo pipefail
POSTS="${1:-500}"; SECONDS_PER_RUN="${2:-10}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
RUN="$(date +%s)"; PRODUCT="bench-$RUN"; NICK="bench$RUN"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }

curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"
echo "writing $POSTS posts under product_id=$PRODUCT …" >&2
for i in $(seq 1 "$POSTS"); do
  id="$(curl -fsS "$BASE/v1/posts" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"product_id\":\"$PRODUCT\",\"title\":\"post $i\",\"content\":\"bench post $i #bench$RUN #tag$((i % 10))\",\"price\":$i}" | json "['post_id']")"
  curl -fsS "$BASE/v1/posts/$id/like" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' -d '{"like_status":true}' >/dev/null
  curl -fsS "$BASE/v1/posts/$id/comments" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' -d '{"content":"nice"}' >/dev/null
done
DEEP="$(curl -fsS "$BASE/v1/posts?product_id=$PRODUCT&limit=$((POSTS / 2))" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" | json "['next_cursor']")"

LUA="$(mktemp)"; trap 'rm -f "$LUA"' EXIT
cat >"$LUA" <<LUA
wrk.headers["SesacKey"] = "$KEY"
wrk.headers["Authorization"] = "$TOKEN"
LUA
run() {
  local label="$1" path="$2"
  printf '%-34s ' "$label"
  wrk -t2 -c64 -d"${SECONDS_PER_RUN}s" -s "$LUA" "$BASE$path" | awk '/Requests\/sec/ {rps=$2} /Latency/ {lat=$2} /Non-2xx/ {bad=$4} END {printf "%10s req/s  avg %s%s\n", rps, lat, (bad ? "  NON-2XX: " bad : "")}'
}
run "feed, first page (limit 10)" "/v1/posts?next=&limit=10&product_id=$PRODUCT"
run "feed, deep page (limit 10)" "/v1/posts?next=$DEEP&limit=10&product_id=$PRODUCT"
run "one post" "/v1/posts/$id"
run "hashtag search (limit 10)" "/v1/posts/hashtags?hashTag=bench$RUN&limit=10"
