"""A WebSocket client that offers permessage-deflate, as SocketIO-Client-Swift does with `.compress` (BuyOrNot).

python-socketio cannot compress, so this speaks Engine.IO 4 and Socket.IO 5 itself over wsproto (PyPI, installed
with python-socketio), a WebSocket implementation whose permessage-deflate extension is negotiated in the handshake
and applied to every frame. It opens `/socket.io/?EIO=4&transport=websocket` at the given URL, joins the room's
namespace `/chats-<room>`, posts the messages over REST (as socketio_client.py does) and collects the `chat` events.
Prints one JSON object: the extensions the server accepted, whether the namespace was joined, the refusal if any,
the ids posted, the events received, and the bytes that arrived on the wire after the handshake beside the bytes of
the text they decoded to (fewer on the wire: the server compressed).

usage: deflate_socket_client.py CONFIG_JSON
  {"url": "http://127.0.0.1:18080", "room": "...", "rest": [{"url": ..., "token": ..., "key": ...}],
   "messages": 2, "timeout": 20}
"""
import json
import socket
import sys
import time
import urllib.parse

import requests
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, CloseConnection, Ping, RejectConnection, Request, TextMessage
from wsproto.extensions import PerMessageDeflate

config = json.loads(sys.argv[1])
timeout = config.get("timeout", 20)
namespace = "/chats-" + config["room"]
url = urllib.parse.urlparse(config["url"])
result = {
    "extensions": [], "joined": False, "refusal": None, "posted": [], "events": [], "wire_bytes": 0, "text_bytes": 0}
connection = WSConnection(ConnectionType.CLIENT)
sock = socket.create_connection((url.hostname, url.port or 80), timeout=timeout)
sock.sendall(connection.send(Request(
    host="%s:%d" % (url.hostname, url.port or 80), target="/socket.io/?EIO=4&transport=websocket",
    extensions=[PerMessageDeflate()])))

pending_text = []


def pump(deadline):
    """Reads from the socket until an event is available or the deadline passes; returns the events."""
    events = []
    while not events and time.time() < deadline:
        sock.settimeout(max(0.05, deadline - time.time()))
        try:
            data = sock.recv(65536)
        except socket.timeout:
            break
        if not data:
            break
        accepted = result["extensions"] or result["joined"]
        connection.receive_data(data)
        for event in connection.events():
            if isinstance(event, AcceptConnection):
                result["extensions"] = [ext.name for ext in event.extensions]
                accepted = False  # this read held the handshake's answer: not counted
            elif isinstance(event, RejectConnection):
                result["refusal"] = "rejected with %d" % event.status_code
            elif isinstance(event, TextMessage):
                pending_text.append(event.data)
                if accepted:
                    result["text_bytes"] += len(event.data.encode("utf-8"))
            elif isinstance(event, Ping):
                sock.sendall(connection.send(event.response()))
            elif isinstance(event, CloseConnection):
                result["refusal"] = result["refusal"] or "closed %s" % event.code
        if accepted:
            result["wire_bytes"] += len(data)
        events = list(pending_text)
        pending_text.clear()
        if result["refusal"]:
            break
    return events


def send_text(text):
    sock.sendall(connection.send(TextMessage(data=text)))


deadline = time.time() + timeout
opened = False
while time.time() < deadline and not result["refusal"]:
    for packet in pump(deadline):
        if packet.startswith("0") and not opened:
            opened = True
            send_text("40" + namespace + ",")
        elif packet == "2":
            send_text("3")
        elif packet.startswith("40" + namespace):
            result["joined"] = True
        elif packet.startswith("44" + namespace):
            result["refusal"] = json.loads(packet[len("44" + namespace) + 1:]).get("message")
        elif packet.startswith("42" + namespace + ","):
            name, payload = json.loads(packet[len("42" + namespace) + 1:])[:2]
            if name == "chat":
                result["events"].append(payload)
    if result["joined"]:
        break

if result["joined"]:
    targets = config["rest"]
    for index in range(config.get("messages", 0)):
        target = targets[index % len(targets)]
        reply = requests.post(
            target["url"] + "/v1/chats/" + config["room"],
            headers={"Authorization": target["token"], "SesacKey": target["key"], "Content-Type": "application/json"},
            data=json.dumps({"content": "compressed message %d " % index + "압축 " * 40}).encode("utf-8"), timeout=30)
        result["posted"].append(reply.json().get("chat_id") if reply.status_code == 200 else reply.status_code)
    deadline = time.time() + timeout
    while len(result["events"]) < config.get("messages", 0) and time.time() < deadline and not result["refusal"]:
        for packet in pump(deadline):
            if packet == "2":
                send_text("3")
            elif packet.startswith("42" + namespace + ","):
                name, payload = json.loads(packet[len("42" + namespace) + 1:])[:2]
                if name == "chat":
                    result["events"].append(payload)

print(json.dumps(result), flush=True)
try:
    sock.sendall(connection.send(CloseConnection(code=1000)))
    sock.close()
except Exception:
    pass
