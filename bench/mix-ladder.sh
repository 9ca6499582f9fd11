#!/usr/bin/env bash
# The mixed workload at each rate given, on a fresh stack for every rate (`./sns stop; ./sns start` of the profile
# in SNS_PROFILE, so every run has a fresh dev broker and its consumers hold their groups before it starts), with the
# CPU each process spent (bench/cpu-share.sh). Prints each run's row and CPU table; asserts nothing.
# The scenario must exist (bench/mixed-workload.sh seeds it). Start settings come from the environment, e.g.
#   SNS_SCRATCH_PATH=.build-release SNS_BUILD_CONFIGURATION=release SNS_LOG_LEVEL=warning SNS_ACCESS_TOKEN_TTL=86400
# Usage: bench/mix-ladder.sh rate [rate …]      e.g. bench/mix-ladder.sh 1500 2000 2400
# SNS_BENCH_SECONDS sets the seconds measured at each rate (15 by default; a 3 s warm-up comes before them).
set -euo pipefail
SECONDS_RUN="${SNS_BENCH_SECONDS:-15}"
[ $# -gt 0 ] || { echo "usage: bench/mix-ladder.sh rate [rate …]   (SNS_BENCH_SECONDS=15)" >&2; exit 2; }
source "$(dirname "$0")/stack.sh"   # ROOT, SCRATCH of the profile to measure (SNS_PROFILE)
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
SCENARIO="${SNS_BENCH_SCENARIO:-$ROOT/.local/bench/scenario.json}"
BENCH="$SCRATCH/$CONFIGURATION/sns-bench"
[ -f "$SCENARIO" ] || { echo "no scenario at $SCENARIO: run bench/mixed-workload.sh once to seed it" >&2; exit 1; }
(cd "$ROOT" && swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product sns-bench >/dev/null)
for rate in "$@"; do
  (cd "$ROOT" && ./sns stop >/dev/null 2>&1 || true; ./sns start >/dev/null)
  echo "### $rate req/s ($(date -u +%H:%M:%S) UTC, fresh stack)"
  "$ROOT/bench/cpu-share.sh" "$BENCH" load --scenario "$SCENARIO" --rate "$rate" --duration "$SECONDS_RUN" --warmup 3 --header
  echo
done
