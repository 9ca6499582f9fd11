#!/usr/bin/env bash
# Where the CPU goes while a command runs: CPU seconds (user + system, from /proc/<pid>/stat) spent by each group
# of processes on the machine during the command: the load generator, nginx, PostgreSQL, each service, the broker.
# Prints a Markdown table; asserts nothing. The machine's other processes are summed as "other"; the command
# itself (the load generator) is counted from bash's `time`.
# Usage: bench/cpu-share.sh <command …>     e.g. bench/cpu-share.sh wrk -t2 -c64 -d10s http://127.0.0.1:8080/…
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 <command …>" >&2; exit 2; }
TICKS="$(getconf CLK_TCK)"

# "<group> <ticks>" for every process, grouped by its command name.
snapshot() {
  for stat in /proc/[0-9]*/stat; do
    # comm is field 2 in parentheses (may contain spaces); utime and stime are fields 14 and 15.
    line="$(cat "$stat" 2>/dev/null)" || continue
    comm="${line#*(}"; comm="${comm%%)*}"
    rest="${line##*) }"
    read -r -a fields <<<"$rest"
    ticks=$(( fields[11] + fields[12] ))
    pid="${stat#/proc/}"; pid="${pid%/stat}"
    echo "$pid $comm $ticks"
  done
}
group_of() {
  case "$1" in
    wrk|sns-bench) echo "load generator" ;;
    nginx) echo "nginx (gateway)" ;;
    postgres|postmaster) echo "PostgreSQL" ;;
    auth|posts|media|social|market) echo "service: $1" ;;
    sns-dev-broker) echo "broker" ;;
    *) echo "other" ;;
  esac
}

BEFORE="$(mktemp)"; AFTER="$(mktemp)"; trap 'rm -f "$BEFORE" "$AFTER"' EXIT
snapshot >"$BEFORE"
start="$(date +%s.%N)"
# The command has exited by the second snapshot, so its own CPU comes from bash's `time` (user + system).
TIMES="$(mktemp)"; TIMEFORMAT='%U %S'
{ time "$@" >&3 2>&3; } 3>&2 2>"$TIMES"   # its output to our stderr, only `time` to the file
end="$(date +%s.%N)"
snapshot >"$AFTER"
read -r command_user command_sys <"$TIMES"; rm -f "$TIMES"

# Per pid: ticks after − ticks before (processes started during the command count from 0).
declare -A SPENT
while read -r pid comm ticks; do
  before="$(awk -v p="$pid" '$1 == p { print $3 }' "$BEFORE")"
  delta=$(( ticks - ${before:-0} ))
  [ "$delta" -gt 0 ] || continue
  group="$(group_of "$comm")"
  SPENT[$group]=$(( ${SPENT[$group]:-0} + delta ))
done <"$AFTER"

SPENT["the command ($1: load generator)"]="$(python3 -c "print(round(($command_user + $command_sys) * $TICKS))")"
wall="$(python3 -c "print(f'{$end - $start:.2f}')")"
total=0; for group in "${!SPENT[@]}"; do total=$(( total + SPENT[$group] )); done
echo "| process group | CPU seconds | share of all CPU used | cores busy (of $(nproc)) |"
echo "|---|---:|---:|---:|"
for group in "${!SPENT[@]}"; do
  python3 -c "
t=${SPENT[$group]}/$TICKS; print(f'| $group | {t:.2f} | {100*${SPENT[$group]}/max($total,1):.0f} % | {t/$wall:.2f} |')"
done | sort -t'|' -k3 -rn
python3 -c "print(f'| all | {$total/$TICKS:.2f} | 100 % | {$total/$TICKS/$wall:.2f} |')"
echo
echo "wall time ${wall} s"
