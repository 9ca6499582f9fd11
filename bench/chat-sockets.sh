#!/usr/bin/env bash
# Chat's Socket.IO delivery against a running local stack (`./sns start`, any replicas; SNS_PROFILE picks another
# profile's stack). Prints numbers; asserts nothing.
#  - $SOCKETS WebSocket clients (Engine.IO 4 over WebSocket through the gateway, answering pings) join the
#    namespaces of $SOCKETS/2 rooms (two participants each); the chat processes' RSS before and after gives the
#    memory per idle socket.
#  - Messages are posted over REST through the gateway at $RATE/s for $SECONDS_RUN s, spread over the rooms; each
#    carries its send time, and each socket that receives it records post → receipt (one clock: same machine).
#    p50/p90/p99/max and how many deliveries arrived of those expected.
# Usage: bench/chat-sockets.sh [sockets=1000] [rate=200] [seconds=20]
# Needs aiohttp (installed into .local/python, the tests' venv, on first use).
set -euo pipefail
SOCKETS="${1:-1000}"; RATE="${2:-200}"; SECONDS_RUN="${3:-20}"
source "$(dirname "$0")/stack.sh"
VENV="$ROOT/.local/python"
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c 'import aiohttp' 2>/dev/null || "$VENV/bin/pip" install -q --disable-pip-version-check "aiohttp==3.14.5"
chat_pids() { for f in "$STATE"/run/chat*.pid; do [ -s "$f" ] && cat "$f"; done; }
rss_kib() { local total=0 pid; for pid in $(chat_pids); do total=$((total + $(awk '/VmRSS/ {print $2}' "/proc/$pid/status"))); done; echo "$total"; }
echo "chat processes: $(chat_pids | wc -l) (pids $(chat_pids | tr '\n' ' '))" >&2
RSS_BEFORE="$(rss_kib)"
"$VENV/bin/python" - "$BASE" "$KEY" "$SOCKETS" "$RATE" "$SECONDS_RUN" "$RSS_BEFORE" "$STATE" <<'PY'
import asyncio, json, random, statistics, sys, time, glob
import aiohttp

base, key, sockets, rate, seconds, rss_before, state = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
ws_base = base.replace("http://", "ws://")
latencies, received = [], 0

def rss():
    total = 0
    for f in glob.glob(state + "/run/chat*.pid"):
        try:
            pid = open(f).read().strip()
            for line in open("/proc/%s/status" % pid):
                if line.startswith("VmRSS"): total += int(line.split()[1])
        except Exception: pass
    return total

async def account(http, n):
    nick = "bench%d_%d" % (int(time.time()), n)
    body = {"email": nick + "@example.com", "password": "password123", "nick": nick}
    h = {"SesacKey": key, "Content-Type": "application/json"}
    async with http.post(base + "/v1/users/join", json=body, headers=h) as r: await r.read()
    async with http.post(base + "/v1/users/login", json={"email": body["email"], "password": "password123"}, headers=h) as r:
        j = await r.json()
    return j["user_id"], j["accessToken"]

async def socket(http, room, ready):
    global received
    ns = "/chats-" + room
    async with http.ws_connect(ws_base + "/socket.io/?EIO=4&transport=websocket") as ws:
        await ws.receive()  # open
        await ws.send_str("40" + ns + ",")
        joined = False
        async for msg in ws:
            text = msg.data
            if text == "2": await ws.send_str("3"); continue
            if text.startswith("40" + ns) and not joined:
                joined = True; ready.release(); continue
            if text.startswith("42" + ns + ","):
                event = json.loads(text[len("42" + ns + ","):])
                sent = float(event[1]["content"].split()[1])
                latencies.append((time.time() - sent) * 1000); received += 1

async def main():
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None)) as http:
        rooms_n = max(1, sockets // 2)
        users = [await account(http, i) for i in range(2)]
        h = {"SesacKey": key, "Authorization": users[0][1], "Content-Type": "application/json"}
        # One room per pair: rooms between user 0 and fresh users.
        rooms = []
        print("opening %d rooms …" % rooms_n, file=sys.stderr)
        for i in range(rooms_n):
            other = await account(http, 1000 + i)
            async with http.post(base + "/v1/chats", json={"opponent_id": other[0]}, headers=h) as r:
                rooms.append((await r.json())["room_id"])
        ready = asyncio.Semaphore(0)
        tasks = [asyncio.create_task(socket(http, rooms[i % rooms_n], ready)) for i in range(sockets)]
        joined = 0
        try:
            for _ in range(sockets):
                await asyncio.wait_for(ready.acquire(), timeout=60); joined += 1
        except asyncio.TimeoutError:
            failed = [t for t in tasks if t.done() and t.exception()]
            print("only %d of %d sockets joined within 60 s (%d failed: %s)" % (
                joined, sockets, len(failed), failed[0].exception() if failed else "-"))
            return
        await asyncio.sleep(2)
        rss_after = rss()
        print("sockets: %d joined; chat RSS %d → %d KiB: %.1f KiB per idle socket" % (
            sockets, rss_before, rss_after, (rss_after - rss_before) / sockets))
        interval, start, sent = 1.0 / rate, time.time(), 0
        async def post(room):
            async with http.post(base + "/v1/chats/" + room, json={"content": "t %.6f" % time.time()}, headers=h) as r:
                await r.read()
        posts = []
        while time.time() - start < seconds:
            deadline = start + sent * interval
            delay = deadline - time.time()
            if delay > 0: await asyncio.sleep(delay)
            posts.append(asyncio.create_task(post(rooms[sent % rooms_n]))); sent += 1
        await asyncio.gather(*posts)
        await asyncio.sleep(3)
        expected = sent * (sockets // rooms_n)
        s = sorted(latencies)
        q = lambda p: s[min(len(s) - 1, int(p * len(s)))] if s else float("nan")
        print("messages: %d posted at %d/s for %ds; deliveries %d of %d; post → socket p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms" % (
            sent, rate, seconds, received, expected, q(0.5), q(0.9), q(0.99), s[-1] if s else float("nan")))
        print("chat RSS after the run: %d KiB" % rss())
        for t in tasks: t.cancel()

asyncio.run(main())
PY
