#!/usr/bin/env bash
# Media's resident memory and throughput while uploads are in flight (decision 0046: no upload is read whole).
# Signs up two users, opens a chat room between them, makes the files (a QuickTime video laid out as an iPhone writes
# it, with a location in its `moov` after the frames; a JPEG; a HEIF photo when libheif's `heif-enc` is installed),
# then for each file sends COUNT uploads, CONCURRENCY at a time, with curl through the gateway — to
# `POST /v1/posts/files`, and once more to the room's `POST /v1/chats/{room_id}/files` — while media's VmRSS is
# sampled every 50 ms. Prints a Markdown table; asserts nothing. Needs a running stack (SNS_PROFILE picks it, see
# bench/stack.sh) and, for its files, python3 (and ffmpeg for the JPEG's head).
# Usage: bench/upload-memory.sh [COUNT [CONCURRENCY]]        (48 and 16 by default)
set -euo pipefail
COUNT="${1:-48}"
CONCURRENCY="${2:-16}"
source "$(dirname "$0")/stack.sh"   # BASE, KEY, STATE of the profile to measure
PID="$(cat "$STATE/run/media.pid")"
WORK="$(mktemp -d)"; trap 'rm -rf "$WORK"' EXIT

# Two users and a room between them; the first one's token.
python3 - "$BASE" "$KEY" "$WORK" <<'PY'
import json, sys, urllib.request, uuid
base, key, work = sys.argv[1:4]
def call(path, body, token=None):
    headers = {"SesacKey": key, "Content-Type": "application/json"}
    if token: headers["Authorization"] = token
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers, method="POST")
    return json.load(urllib.request.urlopen(request))
users = []
for _ in range(2):
    email = f"upload-{uuid.uuid4().hex[:12]}@bench.test"
    call("/v1/users/join", {"email": email, "password": "password123", "nick": "u" + uuid.uuid4().hex[:10]})
    users.append(call("/v1/users/login", {"email": email, "password": "password123"}))
room = call("/v1/chats", {"opponent_id": users[1]["user_id"]}, users[0]["accessToken"])
open(f"{work}/token", "w").write(users[0]["accessToken"])
open(f"{work}/room", "w").write(room["room_id"])
PY
TOKEN="$(cat "$WORK/token")"; ROOM="$(cat "$WORK/room")"

# The files.
python3 - "$WORK" <<'PY'
import struct, sys
work = sys.argv[1]
def box(kind, content): return struct.pack(">I", 8 + len(content)) + kind + content
position = b"+37.5665+126.9780+012.345/"
xyz = box(b"\xa9xyz", struct.pack(">H", len(position)) + b"\x15\xc7" + position)
moov = box(b"moov", box(b"mvhd", bytes(100)) + box(b"udta", xyz))
open(f"{work}/video.mov", "wb").write(
    box(b"ftyp", b"qt  \x00\x00\x02\x00qt  ") + box(b"mdat", bytes([0x42]) * 9_500_000) + moov)
PY
ffmpeg -loglevel error -y -f lavfi -i testsrc=size=64x64 -frames:v 1 "$WORK/small.jpg"
python3 - "$WORK" <<'PY'
import sys
work = sys.argv[1]
head = open(f"{work}/small.jpg", "rb").read()[:-2]
# 4.5 MB of scan bytes without 0xFF, then EOI: a valid structure, however it decodes.
open(f"{work}/photo.jpg", "wb").write(head + bytes(i % 0xFE for i in range(4_500_000)) + b"\xff\xd9")
PY
FILES=("$WORK/video.mov video/mp4" "$WORK/photo.jpg image/jpeg")
if command -v heif-enc >/dev/null; then
  ffmpeg -loglevel error -y -f lavfi -i "nullsrc=s=2000x2000,geq=random(1)*255:128:128" -frames:v 1 "$WORK/noise.png"
  heif-enc -q 80 "$WORK/noise.png" -o "$WORK/photo.heic" >/dev/null
  FILES+=("$WORK/photo.heic image/heic")
fi

rss() { awk '/VmRSS/ { print $2 }' "/proc/$PID/status"; }
run() {  # file type path
  local file="$1" type="$2" path="$3" before peak start end size
  before="$(rss)"; echo "$before" >"$WORK/peak"; touch "$WORK/sampling"
  ( while [ -e "$WORK/sampling" ]; do r="$(rss)"; [ "$r" -gt "$(cat "$WORK/peak")" ] && echo "$r" >"$WORK/peak"; sleep 0.05; done ) &
  start="$(date +%s.%N)"
  seq "$COUNT" | xargs -P "$CONCURRENCY" -I{} curl -s -o /dev/null -w "%{http_code}\n" -H "SesacKey: $KEY" \
    -H "Authorization: $TOKEN" -F "files=@$file;type=$type" "$BASE$path" >"$WORK/codes"
  end="$(date +%s.%N)"
  rm -f "$WORK/sampling"; wait
  peak="$(cat "$WORK/peak")"; size="$(stat -c %s "$file")"
  printf '| `%s` | %s (%.1f MB) | %s | %.1f → %.1f MiB (%+.1f) | %.1f s | %.1f MB/s |\n' "${path/$ROOM/{room_id\}}" \
    "$(basename "$file")" "$(echo "$size / 1000000" | bc -l)" "$(sort "$WORK/codes" | uniq -c | awk '{ printf "%s×%s ", $1, $2 }')" \
    "$(echo "$before / 1024" | bc -l)" "$(echo "$peak / 1024" | bc -l)" "$(echo "($peak - $before) / 1024" | bc -l)" \
    "$(echo "$end - $start" | bc -l)" "$(echo "$COUNT * $size / 1000000 / ($end - $start)" | bc -l)"
}

echo "$COUNT uploads, $CONCURRENCY at a time, against $BASE (media pid $PID)"
echo
echo "| route | file | answers | media RSS before → peak | all stored in | throughput |"
echo "|---|---|---|---:|---:|---:|"
for entry in "${FILES[@]}"; do run ${entry} /v1/posts/files; done
for entry in "${FILES[@]}"; do run ${entry} "/v1/chats/$ROOM/files"; done
