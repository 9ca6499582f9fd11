# Sourced by the single-endpoint bench scripts: one wrk run per table row, beside the run's ceilings.
# Needs CONNECTIONS and SECONDS_PER_RUN; `row` sets CONSTANT and SELECT1 when asked to (the ceilings come first).

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
  echo "measuring: $label" >&2
  result="$(measure "$2" "${3:-}")"
  read -r rps p50 p99 bad <<<"$result"
  [ -z "${4:-}" ] || printf -v "$4" '%s' "$rps"
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$rps" "$p50" "$p99" "$bad" \
    "$(python3 -c "print(f'{$rps / $CONSTANT:.3f}')")" "$(python3 -c "print(f'{$rps / ${SELECT1:-$rps}:.3f}')")"
}
