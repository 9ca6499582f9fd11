#!/usr/bin/env bash
# Constant-rate mixed workload in DeathStarBench social-network proportions, through the gateway of a running
# local stack. Prints Markdown tables; asserts nothing.
#   workload  60 % following feed (GET /v1/posts/feed/following), 30 % user timeline (GET /v1/posts/users/{id}),
#             10 % post creation (POST /v1/posts, two hashtags and a mention), pages of 10, random users.
#   graph     `sns-bench seed`: 1 000 users following ~19 others on average (Zipf popularity), 10 000 posts,
#             all through the public API; kept in .local/bench/scenario.json and reused by later runs.
#   load      `sns-bench load`: open loop, request i due at start + i/rate, latency from the due time
#             (no coordinated omission); 5 s warm-up, then $SECONDS_RUN s measured at each rate.
#   memory    RSS of every service (and the dev broker) idle before the first rate and the peak during each rate;
#             for runs of 2 minutes or more, also each program's RSS minute by minute (growth over time).
# Start the stack for it with long-lived tokens (the seeded sessions are reused across runs):
#   SNS_BUILD_CONFIGURATION=release SNS_LOG_LEVEL=warning SNS_ACCESS_TOKEN_TTL=86400 ./sns start
# Usage: bench/mixed-workload.sh ["rate rate …"=100 200 400 600 800 1000] [seconds=30]
# SNS_BENCH_RESEED=1 seeds a new graph even if a scenario file exists.
set -euo pipefail
RATES="${1:-100 200 400 600 800 1000}"; SECONDS_RUN="${2:-30}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
STATE="$ROOT/.local/${SNS_PROFILE:-dev}"
SCENARIO="${SNS_BENCH_SCENARIO:-$ROOT/.local/bench/scenario.json}"
BENCH="$SCRATCH/$CONFIGURATION/sns-bench"
# Every running replica (posts, posts-2, …) and the dev broker.
mapfile -t PROGRAMS < <(running_replica_names; echo broker)
WORK="$(mktemp -d)"; SAMPLER=""
cleanup() { [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

echo "building sns-bench ($CONFIGURATION) …" >&2
(cd "$ROOT" && swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product sns-bench >/dev/null)

# The scenario must still describe the stack: its sessions valid (419: the stack was started with the default
# 10-minute tokens), its users known, and the following feeds of users who follow someone not empty. A database
# re-initialised under a kept scenario file answers its (still validly signed) tokens with empty feeds, which made
# some earlier runs measure empty pages (bench/results/2026-11-29-stale-scenario-and-the-mix.md); such a scenario
# is seeded again here.
check_scenario() {
  python3 - "$SCENARIO" "$BASE" "$KEY" <<'PY'
import json, sys, urllib.request, urllib.error
scenario, base, key = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
def get(path, user):
    request = urllib.request.Request(f"{base}{path}", headers={"SesacKey": key, "Authorization": user["token"]})
    with urllib.request.urlopen(request, timeout=10) as reply:
        return json.load(reply)
def stale(reason):
    print(reason, file=sys.stderr)
    sys.exit(3)
followers = [user for user in scenario["users"] if user.get("follows", 0) > 0][:5]
try:
    get("/v1/users/me/profile", scenario["users"][0])
    feeds = [get(f"/v1/posts/feed/following?limit=1&product_id={scenario['productId']}", user) for user in followers]
except urllib.error.HTTPError as error:
    if error.code in (401, 403, 410):
        stale(f"the scenario's users are unknown to this stack ({error.code})")
    sys.exit(f"the scenario's sessions do not work ({error.code}): restart the stack with SNS_ACCESS_TOKEN_TTL=86400 "
             "and seed again (SNS_BENCH_RESEED=1)")
if followers and not any(page.get("data") for page in feeds):
    stale("the following feeds of the scenario's users are empty (its follows are gone)")
print(f"scenario: {len(scenario['users'])} users, {scenario['follows']} follows, {scenario['posts']} seeded posts "
      f"(seeded {scenario['seededAt']})", file=sys.stderr)
PY
}
seed() { "$BENCH" seed --gateway "$BASE" --api-key "$KEY" --out "$SCENARIO" >&2; }
if [ ! -s "$SCENARIO" ] || [ "${SNS_BENCH_RESEED:-}" = 1 ]; then seed; fi
status=0; check_scenario || status=$?
if [ "$status" = 3 ]; then
  echo "seeding a new scenario" >&2
  seed; check_scenario
elif [ "$status" != 0 ]; then
  exit "$status"
fi

rss_kib() { local pid; pid="$(cat "$STATE/run/$1.pid" 2>/dev/null)" && awk '/^VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0; }
sample() {  # every 0.5 s: "<program> <KiB> <seconds since the rate began>" lines, until killed
  local start="$SECONDS"
  while true; do for program in "${PROGRAMS[@]}"; do echo "$program $(rss_kib "$program") $((SECONDS - start))"; done; sleep 0.5; done
}
mib() { awk -v kib="$1" 'BEGIN { printf "%.0f MiB", kib / 1024 }'; }

declare -A IDLE PEAK
for program in "${PROGRAMS[@]}"; do IDLE[$program]="$(rss_kib "$program")"; done
broker_fill >&2

echo "### Mixed workload (feed 60 %, timeline 30 %, create 10 %), ${SECONDS_RUN} s per rate"
echo
first=1
for rate in $RATES; do
  echo "rate $rate/s …" >&2
  sample >"$WORK/rss-$rate" & SAMPLER=$!
  args=(load --scenario "$SCENARIO" --rate "$rate" --duration "$SECONDS_RUN")
  [ $first = 1 ] && args+=(--header)
  "$BENCH" "${args[@]}"
  first=0
  kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=""
  for program in "${PROGRAMS[@]}"; do
    PEAK[$program:$rate]="$(awk -v p="$program" '$1 == p && $2 > max { max = $2 } END { print max + 0 }' "$WORK/rss-$rate")"
  done
  sleep 5   # let the consumers drain the writes of this rate before the next one
done

echo
echo "### Resident memory (RSS)"
echo
printf '| program | idle, before the first rate |'; for rate in $RATES; do printf ' peak at %s/s |' "$rate"; done; echo
printf '|---|---:|'; for _ in $RATES; do printf -- '---:|'; done; echo
for program in "${PROGRAMS[@]}"; do
  printf '| %s | %s |' "$program" "$(mib "${IDLE[$program]}")"
  for rate in $RATES; do printf ' %s |' "$(mib "${PEAK[$program:$rate]}")"; done; echo
done

# Long runs: RSS over time, so growth shows (the last sample of each minute, per rate).
if [ "$SECONDS_RUN" -ge 120 ]; then
  for rate in $RATES; do
    echo
    echo "### RSS over time at $rate/s (last sample of each minute)"
    echo
    minutes=$(( (SECONDS_RUN + 5) / 60 ))
    printf '| program |'; for m in $(seq 0 "$minutes"); do printf ' %s min |' "$m"; done; echo
    printf '|---|'; for _ in $(seq 0 "$minutes"); do printf -- '---:|'; done; echo
    for program in "${PROGRAMS[@]}"; do
      printf '| %s |' "$program"
      for m in $(seq 0 "$minutes"); do
        printf ' %s |' "$(mib "$(awk -v p="$program" -v m="$m" '$1 == p && int($3 / 60) == m { last = $2 } END { print last + 0 }' "$WORK/rss-$rate")")"
      done
      echo
    done
  done
fi
