#!/usr/bin/env bash
# G2 searches (decision 0021) over a large table, beside the machine's ceilings measured in the same run: posts near a
# point (GET /v1/posts/geolocation) and title search (GET /v1/posts/search), through the gateway with SesacKey,
# ProductId and a token, like WeeMo and mychelin. Prints a Markdown table and the plans; asserts nothing.
#   seeds $POSTS posts (default 100 000) straight into posts.posts in the G2 app: 80 % with a place in a 55 × 53 km
#   box around Seoul, 20 % anywhere on the sphere, 10 % without a place; titles of two Hangul words and a number;
#   removes them at the end (SNS_BENCH_KEEP=1 keeps them).
#   ceilings: `sns-bench ceiling` — a bare Hummingbird route returning a constant, and `SELECT 1` through PostgresNIO.
# Usage: bench/g2-search.sh [seconds=10] [connections=64] [posts=100000]
set -euo pipefail
SECONDS_PER_RUN="${1:-10}"; CONNECTIONS="${2:-64}"; POSTS="${3:-100000}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
CEILING_PORT="${SNS_BENCH_CEILING_PORT:-8199}"
APP="${SNS_BENCH_PRODUCT_ID:-${SNS_PRODUCT_IDS:-sns-g2-test}}"; APP="${APP%%,*}"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
RUN="$(date +%s)"; NICK="g2b$RUN"; CATEGORY="bench-g2-$RUN"
WORK="$(mktemp -d)"; CEILING_PID=""
cleanup() {
  [ -n "$CEILING_PID" ] && kill "$CEILING_PID" 2>/dev/null
  if [ "${SNS_BENCH_KEEP:-0}" != 1 ]; then
    psql "$DB" -qAt -c "DELETE FROM posts.posts WHERE product_id = '$CATEGORY'" >/dev/null 2>&1 || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

source "$(dirname "$0")/wrk-rows.sh"   # start_ceiling, measure, row
start_ceiling

echo "joining a G2 user and seeding $POSTS posts (category $CATEGORY, app $APP) …" >&2
JOINED="$(curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H "ProductId: $APP" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}")"
TOKEN="$(echo "$JOINED" | json "['accessToken']")"; USER_ID="$(echo "$JOINED" | json "['user_id']")"
SEED_START="$(date +%s.%N)"
psql "$DB" -v ON_ERROR_STOP=1 -qAt <<SQL
SET search_path TO posts, public;
INSERT INTO posts.users (user_id, nick) VALUES ('$USER_ID', '$NICK') ON CONFLICT (user_id) DO NOTHING;
INSERT INTO posts.posts (post_id, user_id, product_id, app_id, title, content, latitude, longitude, created_at, updated_at)
SELECT lpad(to_hex($RUN::bigint), 10, '0') || lpad(to_hex(g), 14, '0'), '$USER_ID', '$CATEGORY', '$APP',
       (ARRAY['보드게임','주말','산책','맛집','스터디','카페','전시','러닝','독서','요리','캠핑','사진'])[1 + g % 12] || ' ' ||
       (ARRAY['모임','번개','탐방','클럽','투어','파티','챌린지'])[1 + (g / 12) % 7] || ' ' || g,
       'seeded for bench/g2-search.sh',
       CASE WHEN g % 10 = 0 THEN NULL WHEN g % 5 = 0 THEN degrees(asin(2 * random() - 1)) ELSE 37.3 + random() * 0.5 END,
       CASE WHEN g % 10 = 0 THEN NULL WHEN g % 5 = 0 THEN -180 + 360 * random() ELSE 126.7 + random() * 0.6 END,
       now(), now()
FROM generate_series(1, $POSTS) g;
ANALYZE posts.posts;
SQL
echo "seeded in $(python3 -c "import time; print(f'{time.time() - $SEED_START:.0f}')") s" >&2

cat >"$WORK/g2.lua" <<LUA
wrk.headers["SesacKey"] = "$KEY"; wrk.headers["ProductId"] = "$APP"; wrk.headers["Authorization"] = "$TOKEN"
wrk.headers["Content-Type"] = "application/json"
LUA
count() {  # how many posts an answer holds
  curl -fsS "$BASE$1" -H "SesacKey: $KEY" -H "ProductId: $APP" -H "Authorization: $TOKEN" | json "['data'].__len__()"
}
SEOUL="latitude=37.5665&longitude=126.978"
NEAR3K="/v1/posts/geolocation?category=$CATEGORY&$SEOUL&maxDistance=3000&order_by=distance&sort_by=asc"
NEAR20K="/v1/posts/geolocation?category=$CATEGORY&$SEOUL&maxDistance=20000"
NEWEST3K="/v1/posts/geolocation?category=$CATEGORY&$SEOUL&maxDistance=3000&order_by=createdAt"
FAR150="/v1/posts/geolocation?category=$CATEGORY&$SEOUL&maxDistance=150&order_by=distance&sort_by=desc"
TITLE_COMMON="/v1/posts/search?category=$CATEGORY&title=%EB%AA%A8%EC%9E%84"          # 모임: 1 in 7 titles
TITLE_RARE="/v1/posts/search?category=$CATEGORY&title=%EC%BA%A0%ED%95%91%20%ED%88%AC%EC%96%B4"  # 캠핑 투어
PAGE="/v1/posts?category=$CATEGORY&limit=20"
echo "answers hold: nearby 3 km $(count "$NEAR3K"), 20 km $(count "$NEAR20K"), farthest 150 m $(count "$FAR150"), title 모임 $(count "$TITLE_COMMON"), 캠핑 투어 $(count "$TITLE_RARE") posts" >&2

echo "| endpoint | req/s | p50 | p99 | non-2xx | ÷ constant route | ÷ SELECT 1 route |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row "ceiling: Hummingbird route returning a constant" "http://127.0.0.1:$CEILING_PORT/constant" "" CONSTANT
row "ceiling: SELECT 1 through PostgresNIO" "http://127.0.0.1:$CEILING_PORT/select1" "" SELECT1
row "G2 page of 20 (the app's category, for reference)" "$BASE$PAGE" "$WORK/g2.lua"
row "nearby, 3 km, nearest first (WeeMo's map), 100 posts" "$BASE$NEAR3K" "$WORK/g2.lua"
row "nearby, 20 km, nearest first, 100 posts" "$BASE$NEAR20K" "$WORK/g2.lua"
row "nearby, 3 km, newest first, 100 posts" "$BASE$NEWEST3K" "$WORK/g2.lua"
row "nearby, 150 m, farthest first (mychelin's map)" "$BASE$FAR150" "$WORK/g2.lua"
row "title search, a common word (모임), page of 10" "$BASE$TITLE_COMMON" "$WORK/g2.lua"
row "title search, a rare phrase (캠핑 투어), page of 10" "$BASE$TITLE_RARE" "$WORK/g2.lua"

echo
echo "Plans (EXPLAIN ANALYZE, BUFFERS; the statements' shape, with this run's values):"
psql "$DB" -qAt <<SQL
SET search_path TO posts, public;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
WITH nearest AS MATERIALIZED (
  SELECT p.earth <-> ll_to_earth(37.5665, 126.978) AS chord FROM posts p
  WHERE p.earth IS NOT NULL AND p.app_id = '$APP' AND NOT p.author_withdrawn AND p.product_id = '$CATEGORY'
    AND earth_distance(p.earth, ll_to_earth(37.5665, 126.978)) <= 3000
  ORDER BY p.earth <-> ll_to_earth(37.5665, 126.978) LIMIT 101
), reach AS (SELECT max(chord) AS chord FROM nearest)
SELECT p.doc FROM posts p, reach
WHERE p.earth <@ earth_box(ll_to_earth(37.5665, 126.978), sec_to_gc(reach.chord) + 1)
  AND p.earth <-> ll_to_earth(37.5665, 126.978) <= reach.chord AND p.app_id = '$APP' AND NOT p.author_withdrawn
  AND p.product_id = '$CATEGORY' AND earth_distance(p.earth, ll_to_earth(37.5665, 126.978)) <= 3000
ORDER BY p.earth <-> ll_to_earth(37.5665, 126.978), p.seq LIMIT 101;
EXPLAIN (ANALYZE, BUFFERS, COSTS OFF)
SELECT p.doc FROM posts p
WHERE title_grams(p.title) @> title_grams('모임') AND strpos(lower(p.title), '모임') > 0
  AND p.app_id = '$APP' AND p.product_id = '$CATEGORY' AND NOT p.author_withdrawn
ORDER BY p.seq DESC LIMIT 11;
SQL
