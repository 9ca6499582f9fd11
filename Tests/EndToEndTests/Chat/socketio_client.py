"""A real Socket.IO client (python-socketio, from PyPI) for the chat end-to-end tests.

Connects to a room's namespace `/chats-<room>` through the given URL, then posts messages over REST (to the URLs
given, one after the other: the gateway or a chat replica directly) and collects the `chat` events the socket
receives. Prints one JSON object: the transport the socket ended on, the refusal if any, the ids posted and the
events received.

usage: socketio_client.py CONFIG_JSON
  {"url": "http://127.0.0.1:18080", "room": "...", "transports": ["polling", "websocket"],
   "headers": {...} (sent on the socket, optional), "rest": [{"url": ..., "token": ..., "key": ...}],
   "files": [...] (paths sent with every message, optional),
   a "rest" entry may instead give the request as an app sends it: {"url": ..., "headers": {...}, "body": "..."}
   (the body as the exact JSON text, sent for every message that entry posts),
   "messages": 3, "timeout": 20}
"""
import json
import sys
import threading
import time

import requests
import socketio

config = json.loads(sys.argv[1])
namespace = "/chats-" + config["room"]
received = []
refusal = []
connected = threading.Event()
finished = threading.Event()
client = socketio.Client(reconnection=False)


@client.on("chat", namespace=namespace)
def on_chat(data):
    received.append(data)
    if len(received) >= config.get("messages", 0):
        finished.set()


@client.on("connect", namespace=namespace)
def on_connect():
    connected.set()


@client.on("connect_error", namespace=namespace)
def on_connect_error(data):
    refusal.append(data)
    finished.set()
    connected.set()


result = {"transport": None, "refusal": None, "posted": [], "events": []}
try:
    client.connect(
        config["url"], namespaces=[namespace], transports=config["transports"],
        headers=config.get("headers", {}), socketio_path="socket.io", wait_timeout=config.get("timeout", 20))
except socketio.exceptions.ConnectionError as error:
    refusal.append(str(error))
connected.wait(config.get("timeout", 20))
if not refusal and config.get("messages", 0) > 0:
    # An upgrade (polling → websocket) completes in the background: wait for it before posting when asked.
    if "websocket" in config["transports"] and "polling" in config["transports"]:
        deadline = time.time() + 5
        while client.transport() != "websocket" and time.time() < deadline:
            time.sleep(0.05)
    targets = config["rest"]
    for index in range(config["messages"]):
        target = targets[index % len(targets)]
        headers = target.get("headers") or {
            "Authorization": target["token"], "SesacKey": target["key"], "Content-Type": "application/json"}
        body = target.get("body") or json.dumps(
            {"content": "socket message %d" % index, "files": config.get("files", [])})
        reply = requests.post(
            target["url"] + "/v1/chats/" + config["room"], headers=headers, data=body.encode("utf-8"), timeout=30)
        result["posted"].append(reply.json().get("chat_id") if reply.status_code == 200 else reply.status_code)
    finished.wait(config.get("timeout", 20))
result["transport"] = client.transport() if client.connected else None
result["refusal"] = refusal[0] if refusal else None
result["events"] = received
print(json.dumps(result), flush=True)
try:
    client.disconnect()
except Exception:
    pass
