#!/usr/bin/env bash
# Where a new post's answer waits, under the constant-rate mixed workload, against a running local stack: each new
# post's event from its commit to its application by the two projections its writer waits for (social and market,
# decision 0013), split where the relay hands it to the producer and where the broker's acknowledgement is
# recorded. Prints Markdown tables; asserts nothing.
#   commit        the outbox row's `created_at` (the writing statement's start)
#   handed over   the Kafka record's own timestamp (librdkafka's, when the relay enqueued it), read back with kcat
#   marked        the outbox row's `published_at` (after the acknowledgement)
#   applied       each consumer's `processed_events.processed_at` (its statement's start)
# All timestamps come from this machine's clock (PostgreSQL's and librdkafka's), so nothing is skewed; the record's
# has millisecond resolution.
# Usage: bench/new-post-wait.sh [rate=1000] [seconds=15]   (needs the scenario of bench/mixed-workload.sh)
set -euo pipefail
RATE="${1:-1000}"; SECONDS_RUN="${2:-15}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
command -v kcat >/dev/null || { echo "kcat is missing: apt-get install -y kcat" >&2; exit 1; }
PSQL="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql"
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
SCENARIO="${SNS_BENCH_SCENARIO:-$ROOT/.local/bench/scenario.json}"
BROKER="$(cat "$ROOT/.local/${SNS_PROFILE:-dev}/broker.addr")"
[ -f "$SCENARIO" ] || { echo "no scenario at $SCENARIO: run bench/mixed-workload.sh once (it seeds one)" >&2; exit 1; }
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT

echo "building sns-bench ($CONFIGURATION) …" >&2
(cd "$ROOT" && swift build -c "$CONFIGURATION" --scratch-path "$SCRATCH" --product sns-bench >/dev/null)
broker_fill

since="$("$PSQL" "$DB" -qAtX -c "SELECT now()")"
"$SCRATCH/$CONFIGURATION/sns-bench" load --scenario "$SCENARIO" --rate "$RATE" --duration "$SECONDS_RUN" --warmup 3 \
  --header
# The records of the run: the newest of every partition of sns.posts (a new post is ~10 % of the mix).
per_partition=$(( RATE * (SECONDS_RUN + 3) / 10 + 100 ))
kcat -b "$BROKER" -C -t sns.posts -o "-$per_partition" -e -q -f '%T\t%h\n' 2>/dev/null | python3 -c '
import sys
for line in sys.stdin:
    timestamp, _, headers = line.rstrip("\n").partition("\t")
    fields = dict(pair.split("=", 1) for pair in headers.split(",") if "=" in pair)
    if fields.get("sns-event-type") == "post-created" and "sns-event-id" in fields:
        print(fields["sns-event-id"] + "\t" + timestamp)
' >"$WORK/records.tsv"

"$PSQL" "$DB" -qX -v ON_ERROR_STOP=1 -v since="$since" <<SQL
CREATE TEMP TABLE handed (event_id uuid PRIMARY KEY, at_ms bigint);
\\copy handed FROM '$WORK/records.tsv'
CREATE TEMP VIEW waits AS
SELECT extract(epoch FROM to_timestamp(h.at_ms / 1000.0) - o.created_at) * 1000 AS to_producer,
       extract(epoch FROM o.published_at - to_timestamp(h.at_ms / 1000.0)) * 1000 AS to_marked,
       extract(epoch FROM s.processed_at - to_timestamp(h.at_ms / 1000.0)) * 1000 AS to_social,
       extract(epoch FROM m.processed_at - to_timestamp(h.at_ms / 1000.0)) * 1000 AS to_market,
       extract(epoch FROM greatest(s.processed_at, m.processed_at) - o.created_at) * 1000 AS total
  FROM handed h
  JOIN posts.outbox o USING (event_id)
  JOIN social.processed_events s USING (event_id)
  JOIN market.processed_events m USING (event_id)
 WHERE o.created_at >= :'since';
\\pset tuples_only on
\\pset format unaligned
\\echo
\\echo '### Where a new post waits ($RATE req/s mix, ${SECONDS_RUN} s + 3 s warm-up)'
\\echo
\\echo '| part | events | p50 | p90 | p99 | max |'
\\echo '|---|---:|---:|---:|---:|---:|'
SELECT format('| %s | %s | %s ms | %s ms | %s ms | %s ms |', part, count(*),
              round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
              round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 1),
              round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
              round(max(ms)::numeric, 1))
  FROM waits, LATERAL (VALUES (1, 'commit → handed to the producer (the relay)', to_producer),
                              (2, 'handed over → acknowledged and marked', to_marked),
                              (3, 'handed over → applied by social', to_social),
                              (4, 'handed over → applied by market', to_market),
                              (5, 'commit → applied by both', total)) AS p(n, part, ms)
 GROUP BY n, part ORDER BY n;
SQL
