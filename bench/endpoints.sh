#!/usr/bin/env bash
# Single-endpoint figures beside the machine's ceilings, all measured in this one run with the same wrk settings
# (closed loop, -t2 -c$CONNECTIONS, $SECONDS_PER_RUN s each) against a running local stack (`./sns start`,
# ideally SNS_BUILD_CONFIGURATION=release SNS_LOG_LEVEL=warning). Prints a Markdown table; asserts nothing.
#   ceilings: `sns-bench ceiling` — a bare Hummingbird 2 route returning a constant, and a route running
#             `SELECT 1` through a PostgresNIO pool (10 connections, the services' default) on the stack's database.
#   endpoints, through the gateway: login (bcrypt at the stack's SNS_BCRYPT_COST, 10 by default), pages of 20 of
#             GET /v1/posts, the following feed and a user's timeline, create post, like (random post of 200,
#             random desired state), upload of one 1 MB PNG.
# Usage: bench/endpoints.sh [seconds=10] [connections=64]
set -euo pipefail
SECONDS_PER_RUN="${1:-10}"; CONNECTIONS="${2:-64}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, DB and ports of the profile to measure (SNS_PROFILE)
CONFIGURATION="${SNS_BUILD_CONFIGURATION:-release}"
CEILING_PORT="${SNS_BENCH_CEILING_PORT:-8199}"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
json() { python3 -c "import sys, json; print(json.load(sys.stdin)$1)"; }
RUN="$(date +%s)"; NICK="ep$RUN"; PRODUCT="bench-ep-$RUN"
WORK="$(mktemp -d)"; CEILING_PID=""
cleanup() { [ -n "$CEILING_PID" ] && kill "$CEILING_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT

source "$(dirname "$0")/wrk-rows.sh"   # start_ceiling, measure, row
start_ceiling

echo "preparing a user, 200 posts under product_id=$PRODUCT and a 1 MB PNG …" >&2
curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\",\"nick\":\"$NICK\"}" >/dev/null
LOGIN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"$NICK@example.com\",\"password\":\"password123\"}")"
TOKEN="$(echo "$LOGIN" | json "['accessToken']")"; USER_ID="$(echo "$LOGIN" | json "['user_id']")"
# A reader who follows the author: the following feed shows the author's 200 posts.
curl -fsS "$BASE/v1/users/join" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"r$NICK@example.com\",\"password\":\"password123\",\"nick\":\"r$NICK\"}" >/dev/null
READER_TOKEN="$(curl -fsS "$BASE/v1/users/login" -H "SesacKey: $KEY" -H 'Content-Type: application/json' \
  -d "{\"email\":\"r$NICK@example.com\",\"password\":\"password123\"}" | json "['accessToken']")"
curl -fsS -X POST "$BASE/v1/follow/$USER_ID" -H "SesacKey: $KEY" -H "Authorization: $READER_TOKEN" >/dev/null
POST_IDS=()
for i in $(seq 1 200); do
  POST_IDS+=("$(curl -fsS "$BASE/v1/posts" -H "SesacKey: $KEY" -H "Authorization: $TOKEN" -H 'Content-Type: application/json' \
    -d "{\"product_id\":\"$PRODUCT\",\"title\":\"post $i\",\"content\":\"endpoint bench $i #bench #tag$((i % 10))\"}" | json "['post_id']")")
done
# A 1 MB PNG of noise (incompressible, so the file really is ~1 MB), built with zlib only.
python3 - "$WORK/1mb.png" <<'PY'
import os, struct, sys, zlib
w, h = 592, 592
raw = b"".join(b"\x00" + os.urandom(w * 3) for _ in range(h))
def chunk(kind, data): return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
PNG_BYTES="$(stat -c %s "$WORK/1mb.png")"

# wrk scripts: every request carries SesacKey (and the token where the API needs one).
cat >"$WORK/login.lua" <<LUA
wrk.method = "POST"; wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"email":"$NICK@example.com","password":"password123"}'
LUA
cat >"$WORK/read.lua" <<LUA
wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Authorization"] = "$TOKEN"
LUA
cat >"$WORK/reader.lua" <<LUA
wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Authorization"] = "$READER_TOKEN"
LUA
create_lua "$TOKEN" "$PRODUCT" " @$NICK" >"$WORK/create.lua"
like_lua "$TOKEN" "${POST_IDS[@]}" >"$WORK/like.lua"
cat >"$WORK/upload.lua" <<LUA
local file = io.open("$WORK/1mb.png", "rb"); local png = file:read("*a"); file:close()
local boundary = "snsbenchboundary$RUN"
wrk.method = "POST"; wrk.headers["SesacKey"] = "$KEY"; wrk.headers["Authorization"] = "$TOKEN"
wrk.headers["Content-Type"] = "multipart/form-data; boundary=" .. boundary
wrk.body = "--" .. boundary .. "\r\nContent-Disposition: form-data; name=\"files\"; filename=\"bench.png\"\r\nContent-Type: image/png\r\n\r\n"
  .. png .. "\r\n--" .. boundary .. "--\r\n"
LUA


settle   # the seed's events applied, autovacuum done
echo "| endpoint | req/s | p50 | p99 | non-2xx | ÷ constant route | ÷ SELECT 1 route |"
echo "|---|---:|---:|---:|---:|---:|---:|"
row "ceiling: Hummingbird route returning a constant" "http://127.0.0.1:$CEILING_PORT/constant" "" CONSTANT
row "ceiling: SELECT 1 through PostgresNIO" "http://127.0.0.1:$CEILING_PORT/select1" "" SELECT1
row "posts /health (direct, the services' middleware)" "$(direct_url posts)/health"
row "login (bcrypt cost ${SNS_BCRYPT_COST:-10})" "$BASE/v1/users/login" "$WORK/login.lua"
row "GET /v1/posts page of 20" "$BASE/v1/posts?next=&limit=20&product_id=$PRODUCT" "$WORK/read.lua"
row "GET /v1/posts/feed/following page of 20" "$BASE/v1/posts/feed/following?next=&limit=20&product_id=$PRODUCT" "$WORK/reader.lua"
row "GET /v1/posts/users/{id} page of 20" "$BASE/v1/posts/users/$USER_ID?next=&limit=20&product_id=$PRODUCT" "$WORK/reader.lua"
row "create post (2 hashtags, 1 mention)" "$BASE/v1/posts" "$WORK/create.lua"
row "like (random post of 200, random state)" "$BASE/v1/posts" "$WORK/like.lua"
row "upload one $((PNG_BYTES / 1024)) KiB PNG" "$BASE/v1/posts/files" "$WORK/upload.lua"
