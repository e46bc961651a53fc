#!/usr/bin/env python3
"""Connection churn against a bridge WebSocket endpoint (tools/soak/run.sh).

    churn.py ws://HOST:PORT/PATH [--clients N] [--origin URL]

Opens N connections one after the other. Each does the WebSocket upgrade, then, in turn:
sends one whole masked text frame (a `host.ready`-free request envelope) and closes
cleanly; sends half a frame and resets the connection (SO_LINGER 0: the client killed
mid-message); or resets right after the upgrade. Prints how many upgrades were
accepted; never fails (the soak judges the servers by their resources, not this client).
"""
import argparse, base64, json, os, socket, struct, sys, urllib.parse

def frame(payload: bytes, opcode=1) -> bytes:
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

def reset(s):
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()

def client(url, origin, i):
    u = urllib.parse.urlparse(url)
    s = socket.create_connection((u.hostname, u.port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall((f"GET {u.path or '/'} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\n"
               f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
               f"Origin: {origin}\r\n\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = s.recv(4096)
        if not chunk:
            break
        answer += chunk
    ok = answer.startswith(b"HTTP/1.1 101")
    envelope = json.dumps({"version": "1.0", "correlationId": f"churn-{i}", "type": "request",
                           "timestamp": 1763830000000, "payload": {"action": "capability.query", "data": {}}}).encode()
    kind = i % 3
    if ok and kind == 0:
        s.sendall(frame(envelope))
        s.settimeout(2)
        try:
            s.recv(65536)
        except OSError:
            pass
        s.sendall(frame(struct.pack(">H", 1000), opcode=8))
        s.close()
    elif ok and kind == 1:
        whole = frame(envelope)
        s.sendall(whole[: len(whole) // 2])
        reset(s)
    else:
        reset(s)
    return ok

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("--clients", type=int, default=6)
    ap.add_argument("--origin", default="http://127.0.0.1")
    ap.add_argument("--start", type=int, default=0)
    a = ap.parse_args()
    accepted = 0
    for i in range(a.start, a.start + a.clients):
        try:
            accepted += client(a.url, a.origin, i)
        except OSError:
            pass
    print(f"churn: {accepted}/{a.clients} upgrades accepted")

if __name__ == "__main__":
    main()
