"""Loopback WebSocket traffic at a fixed rate, for the live-capture benchmark.

One TCP connection on 127.0.0.1: an HTTP/1.1 upgrade, then `count` request envelopes
(masked, web to host) each answered by a response envelope (host to web), sent in
batches every 5 ms so the envelope rate is `rate` per second (both directions
counted): with --per-message each message is its own send (one TCP segment, as a
browser and a host write them), otherwise a batch is one send (a few large segments). With --deflate the frames use permessage-deflate with context takeover, as
Chromium negotiates it. Frames are built before the timed part, so Python's speed does
not limit the rate. Prints one JSON line: envelopes sent, seconds, rate achieved.

    python3 traffic.py PORT --count N --rate R [--deflate] [--per-message]
"""
import argparse
import json
import os
import socket
import struct
import threading
import time
import zlib

REQUEST = ('{"version":"1.0","correlationId":"%08x-4e1f-4c2a-9d3b-%012x","type":"request","timestamp":%d,'
           '"payload":{"action":"%s","data":{"side":"front","attempt":%d}}}')
RESPONSE = ('{"version":"1.0","correlationId":"%08x-4e1f-4c2a-9d3b-%012x","type":"response","timestamp":%d,'
            '"payload":{"action":"%s","status":"success","data":{"width":1280,"height":800,"quality":%d}}}')
ACTIONS = ["camera.document.capture", "capability.query", "nfc.read", "camera.selfie.capture"]


def frame(payload: bytes, opcode=1, mask=None, rsv1=False) -> bytes:
    head = bytes([0x80 | (0x40 if rsv1 else 0) | opcode])
    n = len(payload)
    mbit = 0x80 if mask is not None else 0
    if n < 126:
        head += bytes([mbit | n])
    elif n < 65536:
        head += bytes([mbit | 126]) + struct.pack("!H", n)
    else:
        head += bytes([mbit | 127]) + struct.pack("!Q", n)
    if mask is None:
        return head + payload
    key = struct.pack("!I", mask)
    # XOR with the repeated key, fast: through big integers.
    rep = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(rep, "big")).to_bytes(n, "big") if n else b""
    return head + key + masked


def build(count: int, deflate: bool):
    """Returns (client frames, server frames), each a list of bytes, one per message."""
    cz = zlib.compressobj(1, zlib.DEFLATED, -15) if deflate else None
    sz = zlib.compressobj(1, zlib.DEFLATED, -15) if deflate else None
    client, server = [], []
    t0 = 1_700_000_000_000
    for i in range(count):
        a = ACTIONS[i % len(ACTIONS)]
        req = (REQUEST % (i * 2654435761 & 0xFFFFFFFF, i, t0 + i, a, i % 5)).encode()
        resp = (RESPONSE % (i * 2654435761 & 0xFFFFFFFF, i, t0 + i + 3, a, 80 + i % 20)).encode()
        if deflate:
            req = (cz.compress(req) + cz.flush(zlib.Z_SYNC_FLUSH))[:-4]
            resp = (sz.compress(resp) + sz.flush(zlib.Z_SYNC_FLUSH))[:-4]
        client.append(frame(req, mask=(i * 0x9E3779B1) & 0xFFFFFFFF, rsv1=deflate))
        server.append(frame(resp, rsv1=deflate))
    return client, server


def drain(sock):
    try:
        while sock.recv(1 << 20):
            pass
    except OSError:
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("port", type=int)
    ap.add_argument("--count", type=int, default=150_000, help="request/response pairs")
    ap.add_argument("--rate", type=float, default=60_000, help="envelopes per second, both directions")
    ap.add_argument("--deflate", action="store_true")
    ap.add_argument("--per-message", action="store_true",
                    help="one send (so one TCP segment) per message, as a browser and a host write them")
    a = ap.parse_args()
    client_frames, server_frames = build(a.count, a.deflate)

    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", a.port))
    listener.listen(1)
    c = socket.create_connection(("127.0.0.1", a.port))
    s, _ = listener.accept()
    for sock in (c, s):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    ext = "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" if a.deflate else ""
    c.sendall(("GET /bridge HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n" + ext + "\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += s.recv(4096)
    ext = "Sec-WebSocket-Extensions: permessage-deflate\r\n" if a.deflate else ""
    s.sendall(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n" + ext + "\r\n").encode())
    buf = b""
    while b"\r\n\r\n" not in buf:
        buf += c.recv(4096)
    threading.Thread(target=drain, args=(s,), daemon=True).start()
    threading.Thread(target=drain, args=(c,), daemon=True).start()

    pairs_per_tick = max(1, int(a.rate / 2 * 0.005))
    start = time.perf_counter()
    i = 0
    tick = 0
    while i < a.count:
        j = min(a.count, i + pairs_per_tick)
        if a.per_message:
            for k in range(i, j):
                c.sendall(client_frames[k])
                s.sendall(server_frames[k])
        else:
            c.sendall(b"".join(client_frames[i:j]))
            s.sendall(b"".join(server_frames[i:j]))
        i = j
        tick += 1
        wait = start + tick * 0.005 - time.perf_counter()
        if wait > 0:
            time.sleep(wait)
    elapsed = time.perf_counter() - start
    c.shutdown(socket.SHUT_WR)
    s.shutdown(socket.SHUT_WR)
    time.sleep(0.2)
    c.close()
    s.close()
    print(json.dumps({"envelopes": 2 * a.count, "seconds": round(elapsed, 3), "rate": round(2 * a.count / elapsed)}))


if __name__ == "__main__":
    main()
