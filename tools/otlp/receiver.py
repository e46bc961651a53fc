#!/usr/bin/env python3
"""A small OTLP/HTTP trace receiver for bridgescope's tests and benchmark.

Not ours: every request body is decoded with the official classes of the
`opentelemetry-proto` package (PyPI), so what bridgescope sends is judged by the
OpenTelemetry project's own definitions, not by our encoder's twin.

    receiver.py [--port 0] [--out spans.jsonl] [--fail N --fail-status 503 [--retry-after S]]
                [--hang] [--reject N] [--stdin-eof-stops] [--discard]

Prints `listening <port>` on standard output once bound. Serves POST /v1/traces
(Content-Type application/x-protobuf): answers an ExportTraceServiceResponse, after
answering the first N requests with --fail-status (and a Retry-After header when
given). --hang accepts connections and never answers. --reject N reports N rejected
spans per request in partial_success. --discard answers 200 without decoding (the
benchmark's Swift-side measure: spans are then not counted). --out writes one JSON object per span received
(hex ids, times as integers, attributes, events, resource attributes). On SIGTERM (or the end of
standard input, with --stdin-eof-stops) it prints `received requests=R spans=S failed=F bytes=B` and exits.
"""
import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def any_value(v):
    kind = v.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: any_value(kv.value) for kv in v.kvlist_value.values}
    if kind == "bytes_value":
        return v.bytes_value.hex()
    return getattr(v, kind)


def attrs(kvs):
    return {kv.key: any_value(kv.value) for kv in kvs}


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.requests = 0
        self.spans = 0
        self.failed = 0
        self.bytes = 0
        self.out = open(args.out, "w") if args.out else None

    def summary(self):
        return f"received requests={self.requests} spans={self.spans} failed={self.failed} bytes={self.bytes}"


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            if state.args.hang:
                time.sleep(3600)
                return
            with state.lock:
                if state.failed < state.args.fail:
                    state.failed += 1
                    self.send_response(state.args.fail_status)
                    if state.args.retry_after is not None:
                        self.send_header("Retry-After", state.args.retry_after)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
            if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/x-protobuf":
                self.send_response(415 if self.path == "/v1/traces" else 404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if state.args.discard:
                with state.lock:
                    state.requests += 1
                    state.bytes += len(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            req = ExportTraceServiceRequest()
            req.ParseFromString(body)
            count = 0
            lines = []
            for rs in req.resource_spans:
                res = attrs(rs.resource.attributes) if state.out else None
                for ss in rs.scope_spans:
                    count += len(ss.spans)
                    if not state.out:
                        continue
                    for s in ss.spans:
                        lines.append(json.dumps({
                            "traceId": s.trace_id.hex(), "spanId": s.span_id.hex(),
                            "parentSpanId": s.parent_span_id.hex(), "name": s.name, "kind": s.kind,
                            "start": s.start_time_unix_nano, "end": s.end_time_unix_nano,
                            "attributes": attrs(s.attributes),
                            "events": [{"name": e.name, "time": e.time_unix_nano, "attributes": attrs(e.attributes)} for e in s.events],
                            "status": {"code": s.status.code, "message": s.status.message},
                            "resource": res, "scope": ss.scope.name, "scopeVersion": ss.scope.version,
                            "headers": {k.lower(): v for k, v in self.headers.items() if k.lower().startswith("x-")},
                        }))
            resp = ExportTraceServiceResponse()
            rejected = min(state.args.reject, count)
            if rejected:
                resp.partial_success.rejected_spans = rejected
                resp.partial_success.error_message = f"test receiver rejects {rejected} span(s) per request"
            out = resp.SerializeToString()
            with state.lock:
                state.requests += 1
                state.spans += count
                state.bytes += len(body)
                if state.out:
                    for line in lines:
                        state.out.write(line + "\n")
                    state.out.flush()
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--out")
    p.add_argument("--fail", type=int, default=0)
    p.add_argument("--fail-status", type=int, default=503)
    p.add_argument("--retry-after")
    p.add_argument("--hang", action="store_true")
    p.add_argument("--reject", type=int, default=0)
    p.add_argument("--stdin-eof-stops", action="store_true")
    p.add_argument("--discard", action="store_true")
    args = p.parse_args()
    state = State(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(state))
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)

    def stop(*_):
        with state.lock:
            print(state.summary(), flush=True)
            if state.out:
                state.out.close()
        os._exit(0)

    # A parent may have blocked SIGTERM (a test runner does), and the mask is inherited.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, stop)
    if args.stdin_eof_stops:
        # Ends with the test that started it, even when that test crashes.
        threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
