#!/usr/bin/env bash
# Event-pipeline benchmark against a running local stack (`./sns start`). Prints numbers; asserts nothing.
#  1. Relay throughput: $BURST outbox rows are committed at once into the posts outbox (topic sns.bench, which no
#     service consumes) and the time until the relay has published them all is measured.
#  2. End-to-end latency at a steady load: posts are created through the gateway at ~$RATE/s for $SECONDS_RUN s;
#     for each post-created event, commit (outbox row) → applied by social's projection consumer
#     (its processed_events row), both read from PostgreSQL; p50/p99/max.
# Usage: bench/event-pipeline.sh [burst=20000] [rate=100] [seconds=20]
# The dev broker holds consumer fetches for fetch.wait.max.ms (500 ms by default); start the stack with
# SNS_KAFKA_PROPERTIES="fetch.wait.max.ms=20" for latency figures that are not dominated by it.
set -euo pipefail
BURST="${1:-20000}"; RATE="${2:-100}"; SECONDS_RUN="${3:-20}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BASE="${SNS_BENCH_URL:-http://127.0.0.1:8080}"; KEY="${SNS_API_KEY:-sns-dev-key}"
DB="${SNS_BENCH_DATABASE_URL:-postgres://sns:sns@127.0.0.1:54320/sns}"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
PSQL="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)/psql"
sql() { "$PSQL" "$DB" -qAtX -v ON_ERROR_STOP=1 -c "$1"; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
RUN="$(date +%s)"

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

# 2. End-to-end latency at a steady rate.
NICK="pipe$RUN"
curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"
LUA="$(mktemp)"; trap 'rm -f "$LUA"' EXIT
CONNECTIONS=4
cat >"$LUA" <<LUA
wrk.method = "POST"
wrk.body = '{"product_id":"pipeline-$RUN","title":"pipeline"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["SesacKey"] = "$KEY"
wrk.headers["Authorization"] = "$TOKEN"
function delay() return $(( 1000 * CONNECTIONS / RATE )) end
LUA
echo "latency: creating posts at ~$RATE/s for $SECONDS_RUN s …" >&2
from="$(sql "SELECT coalesce(max(id), 0) FROM posts.outbox")"
wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_RUN}s" -s "$LUA" "$BASE/v1/posts" | awk '/Requests\/sec/ {print "load: " $2 " posts/s"} /Non-2xx/ {print "NON-2XX: " $4}'
total="$(sql "SELECT count(*) FROM posts.outbox WHERE id > $from AND event_type = 'post-created'")"
for _ in $(seq 1 600); do
  done_count="$(sql "SELECT count(*) FROM posts.outbox o JOIN social.processed_events p
                     ON p.event_id = o.event_id AND p.consumer = 'social-projections'
                     WHERE o.id > $from AND o.event_type = 'post-created'")"
  [ "$done_count" = "$total" ] && break; sleep 0.2
done
sql "SELECT format('end to end (commit → applied by social-projections) over %s events: p50 %s ms, p99 %s ms, max %s ms',
            count(*),
            round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
            round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
            round(max(ms)::numeric, 1))
     FROM (SELECT extract(epoch FROM p.processed_at - o.created_at) * 1000 AS ms
           FROM posts.outbox o JOIN social.processed_events p ON p.event_id = o.event_id AND p.consumer = 'social-projections'
           WHERE o.id > $from AND o.event_type = 'post-created') t"
