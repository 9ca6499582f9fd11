# Sourced by the single-endpoint bench scripts (after stack.sh): the ceiling server, and one wrk run per table row
# beside the run's ceilings, each started once the machine is quiet (stack.sh's `settle`). Needs CONNECTIONS and SECONDS_PER_RUN; `row` sets CONSTANT and SELECT1 when asked to
# (the ceilings come first).

# Builds and starts `sns-bench ceiling` on $CEILING_PORT against the stack's database; sets CEILING_PID.
start_ceiling() {
  echo "building sns-bench ($CONFIGURATION) …" >&2
  (cd "$ROOT" && swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product sns-bench >/dev/null)
  # With NIO's default of one event loop per core, not the local stack's one loop per service: the higher ceiling
  # (2026-11-27: `SELECT 1` about the same either way, 10 961 req/s with one loop; the constant route 30 604 with one
  # loop against 41 000–45 000 with two).
  SNS_EVENT_LOOPS="" "$SCRATCH/$CONFIGURATION/sns-bench" ceiling --port "$CEILING_PORT" --database-url "$DB" &
  CEILING_PID=$!
  until curl -fsS -o /dev/null "http://127.0.0.1:$CEILING_PORT/select1" 2>/dev/null; do sleep 0.2; done
}

# One wrk run → "req/s p50 p99 non2xx".
measure() {
  local url="$1" script="${2:-}"
  wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_PER_RUN}s" --latency ${script:+-s "$script"} "$url" | awk '
    /Requests\/sec/ { rps = $2 }
    /^ +50%/ { p50 = $2 } /^ +99%/ { p99 = $2 }
    /Non-2xx/ { bad = $4 } /Socket errors/ { sub(/.*Socket errors: /, ""); err = $0 }
    END { printf "%s %s %s %s\n", rps, p50, p99, (bad ? bad : 0) (err ? " (" err ")" : "") }'
}

CONSTANT=""; SELECT1=""
row() {  # label url [script] [ceiling variable to set]
  local label="$1" result rps p50 p99 bad
  # Each row starts on a quiet machine: the previous row's leftovers (bcrypt hashes of logins wrk gave up on, the
  # consumers applying the events of thousands of new posts) would otherwise be charged to this one.
  settle
  echo "measuring: $label" >&2
  result="$(measure "$2" "${3:-}")"
  read -r rps p50 p99 bad <<<"$result"
  [ -z "${4:-}" ] || printf -v "$4" '%s' "$rps"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$rps" "$p50" "$p99" "$bad" \
    "$(python3 -c "print(f'{$rps / $CONSTANT:.3f}')")" "$(python3 -c "print(f'{$rps / ${SELECT1:-$rps}:.3f}')")"
}
