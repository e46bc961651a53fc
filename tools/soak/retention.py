#!/usr/bin/env python3
"""What a closed connection leaves behind in a server (docs/PERFORMANCE.md, "Soak").

    retention.py ws://127.0.0.1:PORT/bridge PID [--connections 100] [--deflate]

Opens and closes CONNECTIONS connections one after the other (each does the upgrade,
offering permessage-deflate with --deflate, sends one capability.query, reads the
answer, closes cleanly), twice, and prints the server's VmRSS (process PID) before and
after each round: the second round's growth divided by CONNECTIONS is what each closed
connection keeps (the first round warms up).
"""
import argparse, base64, json, os, socket, struct, sys, urllib.parse
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from churn import frame

def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))

def connect(url, deflate, i):
    u = urllib.parse.urlparse(url)
    s = socket.create_connection((u.hostname, u.port), timeout=5)
    key = base64.b64encode(os.urandom(16)).decode()
    head = (f"GET {u.path} HTTP/1.1\r\nHost: {u.hostname}:{u.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://{u.hostname}:{u.port}\r\n")
    if deflate:
        head += "Sec-WebSocket-Extensions: permessage-deflate\r\n"
    s.sendall((head + "\r\n").encode())
    answer = b""
    while b"\r\n\r\n" not in answer:
        chunk = s.recv(4096)
        if not chunk:
            return
        answer += chunk
    s.sendall(frame(json.dumps({"version": "1.0", "correlationId": f"q{i}", "type": "request", "timestamp": 1763830000000,
                                "payload": {"action": "capability.query", "data": {}}}).encode()))
    s.settimeout(1)
    try:
        for _ in range(3):
            s.recv(65536)
    except OSError:
        pass
    s.sendall(frame(struct.pack(">H", 1000), opcode=8))
    s.close()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("pid", type=int)
    ap.add_argument("--connections", type=int, default=100)
    ap.add_argument("--deflate", action="store_true")
    a = ap.parse_args()
    before = rss(a.pid)
    for round in (1, 2):
        start = rss(a.pid)
        for i in range(a.connections):
            connect(a.url, a.deflate, round * a.connections + i)
        end = rss(a.pid)
        print(f"round {round}: VmRSS {start} -> {end} kB ({(end - start) / a.connections:.1f} kB per connection)")
    print(f"retained per closed connection (round 2): {(end - start) / a.connections:.1f} kB; since the start {end - before} kB")

if __name__ == "__main__":
    main()
