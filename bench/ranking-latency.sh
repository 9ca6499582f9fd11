#!/usr/bin/env bash
# How long from a like (HTTP 200 from the posts service) until the rankings (social service) show it, through
# the whole path: posts' outbox → relay → broker → social's projection → ranking query. Runs against a
# running local stack (`./sns start`). Prints one line per sample and the median; asserts nothing.
# Usage: bench/ranking-latency.sh [samples=20]
set -euo pipefail
SAMPLES="${1:-20}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
RUN="$(date +%s%N)"; NICK="rank${RUN: -9}"; PRODUCT="rankbench-$RUN"
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
call() { curl -fsS "$BASE$1" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" "${@:2}"; }

curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"

results=()
for i in $(seq 1 "$SAMPLES"); do
  id="$(call /v1/posts -H 'Content-Type: application/json' -d "{\"product_id\":\"$PRODUCT-$i\"}" | json "['post_id']")"
  start=$(date +%s%N)
  call "/v1/posts/$id/like" -H 'Content-Type: application/json' -d '{"like_status":true}' >/dev/null
  until call "/v1/rankings/posts?product_id=$PRODUCT-$i&window=1h" | grep -q "\"$id\""; do sleep 0.005; done
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  results+=("$ms"); echo "sample $i: ${ms} ms"
done
printf '%s\n' "${results[@]}" | sort -n | awk '{a[NR]=$1} END {printf "median %d ms, max %d ms over %d samples\n", a[int((NR+1)/2)], a[NR], NR}'
