#!/usr/bin/env bash
# Event-pipeline benchmark against a running local stack (`./sns start`; SNS_PROFILE picks another profile's
# stack). Prints numbers; asserts nothing.
#  1. Relay throughput: $BURST outbox rows are committed at once into the posts outbox (topic sns.bench, which no
#     service consumes) and the time until the relay has published them all is measured.
#  2. End-to-end latency at a steady rate: `post-created` events are committed into posts' outbox at $RATE/s for
#     $SECONDS_RUN s (one small transaction every 10 ms, as the posts service's own writes would, with the same
#     NOTIFY), and for each one, commit (outbox row) → applied by social's projection consumer (its
#     processed_events row), both read from PostgreSQL, so no clocks differ: p50/p99/max. The events name posts
#     that exist only in social's and market's read models (product "bench-pipeline"): measure a bench stack.
#     Split at the outbox's `published_at` (when the relay recorded the broker's acknowledgement): commit → published
#     (the relay: wake-up, read, send, acknowledgement) and published → applied (the consumer: fetch, poll, apply).
# Usage: bench/event-pipeline.sh [burst=20000] [rate=1000] [seconds=20]
# Measured with the settings the stack ships (deploy/local/lib.sh): nothing to set.
set -euo pipefail
BURST="${1:-20000}"; RATE="${2:-1000}"; SECONDS_RUN="${3:-20}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
PSQL="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql"
sql() { "$PSQL" "$DB" -qAtX -v ON_ERROR_STOP=1 -c "$1"; }
RUN="$(date +%s)"
broker_fill

# 1. Relay throughput.
echo "relay: committing $BURST outbox rows at once …" >&2
first_id="$(sql "SELECT coalesce(max(id), 0) FROM posts.outbox")"
sql "INSERT INTO posts.outbox (event_id, topic, partition_key, event_type, payload, headers)
     SELECT gen_random_uuid(), 'sns.bench', 'bench-' || (g % 64), 'bench',
            jsonb_build_object('event_id', gen_random_uuid(), 'type', 'bench', 'n', g), '{}'::jsonb
     FROM generate_series(1, $BURST) g; SELECT pg_notify('sns_outbox_posts', '');" >/dev/null
until [ "$(sql "SELECT count(*) FROM posts.outbox WHERE id > $first_id AND published_at IS NULL")" = 0 ]; do sleep 0.2; done
sql "SELECT format('relay: %s events in %s s = %s events/s (commit of the burst → last acknowledged publish)',
            count(*), round(extract(epoch FROM max(published_at) - min(created_at))::numeric, 2),
            round(count(*) / extract(epoch FROM max(published_at) - min(created_at))::numeric))
     FROM posts.outbox WHERE id > $first_id"

# 2. End-to-end latency at a steady rate: one psql session is fed a transaction every 10 ms by a pacing loop
#    that keeps to absolute deadlines (a late tick is not made up by sending faster later).
echo "latency: committing post-created events at $RATE/s for $SECONDS_RUN s …" >&2
from="$(sql "SELECT coalesce(max(id), 0) FROM posts.outbox")"
python3 - "$RATE" "$SECONDS_RUN" "$RUN" <<'PY' | "$PSQL" "$DB" -qAtX -v ON_ERROR_STOP=1 >/dev/null
import sys, time
rate, seconds, run = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
tick = 0.01
per_tick = rate * tick
start = time.monotonic(); sent = 0; n = 0
while True:
    now = time.monotonic() - start
    if now >= seconds: break
    due = int(rate * min(now + tick, seconds)) - sent
    if due > 0:
        sys.stdout.write(f"""
INSERT INTO posts.outbox (event_id, topic, partition_key, event_type, payload, headers)
SELECT e.id, 'sns.posts', e.post_id, 'post-created',
       jsonb_build_object('type', 'post-created', 'event_id', e.id, 'producer', 'bench', 'schema_version', 1,
                          'occurred_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          'aggregate_id', e.post_id,
                          'payload', jsonb_build_object('post', jsonb_build_object(
                              'post_id', e.post_id, 'user_id', 'bench-pipeline-user', 'product_id', 'bench-pipeline',
                              'files', '[]'::jsonb, 'hash_tags', '[]'::jsonb,
                              'created_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                              'updated_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))),
       jsonb_build_object('sns-event-id', e.id::text, 'sns-producer', 'bench', 'sns-event-type', 'post-created',
                          'sns-schema-version', '1')
FROM (SELECT gen_random_uuid() AS id, 'bench-{run}-' || g AS post_id FROM generate_series({n}, {n + due - 1}) g) e;
SELECT pg_notify('sns_outbox_posts', '');
""")
        sys.stdout.flush()
        sent += due; n += due
    next_tick = start + (int(now / tick) + 1) * tick
    time.sleep(max(0.0, next_tick - time.monotonic()))
PY
total="$(sql "SELECT count(*) FROM posts.outbox WHERE id > $from AND event_type = 'post-created'")"
sql "SELECT format('load: %s events committed in %s s = %s events/s', count(*),
            round(extract(epoch FROM max(created_at) - min(created_at))::numeric, 2),
            round(count(*) / greatest(extract(epoch FROM max(created_at) - min(created_at)), 0.001)::numeric))
     FROM posts.outbox WHERE id > $from AND event_type = 'post-created'"
for _ in $(seq 1 600); do
  done_count="$(sql "SELECT count(*) FROM posts.outbox o JOIN social.processed_events p
                     ON p.event_id = o.event_id AND p.consumer = 'social-projections'
                     WHERE o.id > $from AND o.event_type = 'post-created'")"
  [ "$done_count" = "$total" ] && break; sleep 0.2
done
sql "SELECT format('end to end (commit → applied by social-projections) over %s events: p50 %s ms, p90 %s ms, p99 %s ms, max %s ms',
            count(*),
            round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
            round(percentile_cont(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 1),
            round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
            round(max(ms)::numeric, 1))
     FROM (SELECT extract(epoch FROM p.processed_at - o.created_at) * 1000 AS ms
           FROM posts.outbox o JOIN social.processed_events p ON p.event_id = o.event_id AND p.consumer = 'social-projections'
           WHERE o.id > $from AND o.event_type = 'post-created') t"
sql "SELECT format('split: commit → published by the relay (acknowledged) p50 %s / p99 %s ms; published → applied p50 %s / p99 %s ms',
            round(percentile_cont(0.5) WITHIN GROUP (ORDER BY relay_ms)::numeric, 1),
            round(percentile_cont(0.99) WITHIN GROUP (ORDER BY relay_ms)::numeric, 1),
            round(percentile_cont(0.5) WITHIN GROUP (ORDER BY consume_ms)::numeric, 1),
            round(percentile_cont(0.99) WITHIN GROUP (ORDER BY consume_ms)::numeric, 1))
     FROM (SELECT extract(epoch FROM o.published_at - o.created_at) * 1000 AS relay_ms,
                  extract(epoch FROM p.processed_at - o.published_at) * 1000 AS consume_ms
           FROM posts.outbox o JOIN social.processed_events p ON p.event_id = o.event_id AND p.consumer = 'social-projections'
           WHERE o.id > $from AND o.event_type = 'post-created') t"
