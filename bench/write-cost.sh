#!/usr/bin/env bash
# What one write costs the whole machine: CPU per request of every process group (PostgreSQL, each service, the
# broker, nginx, the load generator), counted from the first request until the machine is quiet again, so the
# events' work (relay, every consumer that applies them) is included. Against a running local stack (`./sns start`,
# ideally release, SNS_LOG_LEVEL=warning). Prints Markdown; asserts nothing.
#   create: POST /v1/posts (2 hashtags), one user
#   like:   POST /v1/posts/{id}/like, a random post of 200, a random state (about half change nothing)
# Usage: bench/write-cost.sh [create|like] [seconds=10] [connections=16]
set -euo pipefail
KIND="${1:-create}"; SECONDS_PER_RUN="${2:-10}"; CONNECTIONS="${3:-16}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY and lib.sh's helpers for the profile (SNS_PROFILE)
command -v wrk >/dev/null || { echo "wrk is missing (Debian: wrk)" >&2; exit 1; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT

RUN="$(date +%s)"; NICK="wc$RUN"; PRODUCT="bench-wc-$RUN"
curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"
case "$KIND" in
  create) create_lua "$TOKEN" "$PRODUCT" >"$WORK/write.lua" ;;
  like)
    echo "preparing 200 posts …" >&2
    ids=()
    for i in $(seq 1 200); do
      ids+=("$(curl -fsS "$BASE/v1/posts" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' \
        -d "{\"product_id\":\"$PRODUCT\",\"title\":\"post $i\",\"content\":\"like bench $i #bench\"}" | json "['post_id']")")
    done
    like_lua "$TOKEN" "${ids[@]}" >"$WORK/write.lua"
    ;;
  *) echo "usage: $0 [create|like] [seconds] [connections]" >&2; exit 2 ;;
esac
settle   # the seed's events applied
# cpu-share.sh counts from the first request until the machine is quiet again (the events applied); the command's
# own row is wrk's CPU (and the few milliseconds of settle's sampling).
"$(dirname "$0")/cpu-share.sh" bash -c "wrk --latency -t1 -c$CONNECTIONS -d${SECONDS_PER_RUN}s -s '$WORK/write.lua' '$BASE/v1/posts' >'$WORK/wrk.txt' 2>&1; source '$(dirname "$0")/stack.sh'; settle" \
  >"$WORK/share.md"
REQUESTS="$(awk '/requests in/ { print $1 }' "$WORK/wrk.txt")"
NON_2XX="$(awk '/Non-2xx/ { print $5 }' "$WORK/wrk.txt")"
echo "$KIND: $REQUESTS requests in ${SECONDS_PER_RUN} s ($(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.txt") req/s, wrk -t1 -c$CONNECTIONS), ${NON_2XX:-0} non-2xx, p50 $(awk '$1 == "50%" { print $2 }' "$WORK/wrk.txt")"
echo
echo "| process group | CPU per request |"
echo "|---|---:|"
# cpu-share.sh's rows: | group | CPU seconds | share | cores |
awk -F'|' -v n="$REQUESTS" 'NR > 2 && $3 ~ /[0-9]/ { gsub(/^ +| +$/, "", $2); printf "| %s | %.0f µs |\n", $2, $3 * 1e6 / n }' \
  "$WORK/share.md" | sed 's/the command (bash: load generator)/load generator (wrk)/' | sort -t'|' -k3 -rn
