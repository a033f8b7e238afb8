#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A stand-in profile store for the tests of `perfev record --push`
(tests/test_record_push.c): an HTTP server on 127.0.0.1 that takes POSTs as
Pyroscope's /ingest or an OTLP/HTTP collector would, and can misbehave on
request.

    push_receiver.py --port-file FILE --log FILE [options]

It binds a free port (port 0) at once and writes its number into
--port-file (whole, by a rename). Every request is one JSON line in --log:
the path, the query's parameters (name, from, until, format, ...), the
Content-Type, the X-Perfev-Window header, the body's size and sha256, the
status answered ("hang" when none), and with --save-dir the body itself in
a file of that directory (named after the window).

  --down-until FILE   bound but not listening (connections refused) until
                      FILE exists
  --status-first N:CODE  answer CODE to the first N requests, then 200
  --hang-first N      send no answer to the first N requests (hold the
                      connection until the client gives up)
  --pause-after N:FILE  after the N-th accepted request stop listening (a
                      store restarting) until FILE exists, then listen again

It runs until SIGTERM or SIGINT, and exits 0.
"""
import argparse
import hashlib
import http.server
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import urllib.parse

lock = threading.Lock()
counter = {"requests": 0, "accepted": 0}


def wait_for(path, stop):
    while not os.path.exists(path) and not stop.is_set():
        time.sleep(0.02)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # quiet: the log file is the record
        pass

    def do_POST(self):
        opts = self.server.opts
        length = int(self.headers.get("Content-Length") or 0)
        body = b""
        while len(body) < length:
            chunk = self.rfile.read(length - len(body))
            if not chunk:
                break
            body += chunk
        url = urllib.parse.urlsplit(self.path)
        query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
        with lock:
            counter["requests"] += 1
            n = counter["requests"]
        status = 200
        if n <= opts.hang_first:
            status = "hang"
        elif opts.status_first and n <= opts.status_first[0]:
            status = opts.status_first[1]
        entry = {
            "n": n,
            "path": url.path,
            "raw_query": url.query,
            "query": query,
            "content_type": self.headers.get("Content-Type"),
            "window": self.headers.get("X-Perfev-Window"),
            "size": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "status": status,
        }
        if opts.save_dir and entry["window"] and status == 200:
            name = os.path.basename(entry["window"]) + ".body"
            with open(os.path.join(opts.save_dir, name), "wb") as f:
                f.write(body)
        if status == "hang":
            self.log(entry)
            self.close_connection = True
            # Hold the connection, answering nothing, until the client closes it.
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline and not self.server.stopping.is_set():
                r, _, _ = select.select([self.connection], [], [], 0.1)
                if r:
                    try:
                        if not self.connection.recv(4096):
                            break
                    except OSError:
                        break
            return
        text = b"accepted\n" if status == 200 else b"refused by the test receiver: %d\n" % status
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(text)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(text)
        self.wfile.flush()
        self.close_connection = True
        self.log(entry)
        if status == 200:
            with lock:
                counter["accepted"] += 1
                accepted = counter["accepted"]
            if opts.pause_after and accepted == opts.pause_after[0]:
                threading.Thread(target=self.server.pause, daemon=True).start()

    def log(self, entry):
        with lock:
            with open(self.server.opts.log, "a") as f:
                f.write(json.dumps(entry, sort_keys=True) + "\n")


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, opts):
        super().__init__(("127.0.0.1", 0), Handler, bind_and_activate=False)
        self.opts = opts
        self.stopping = threading.Event()
        self.paused = False
        self.server_bind()

    def pause(self):
        """Stops listening (clients are refused) until the pause file exists."""
        port = self.server_address[1]
        self.paused = True
        time.sleep(0.2)  # the main loop leaves the old socket alone
        old = self.socket
        fresh = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        fresh.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Swap in a bound, not listening socket on the same port, then close the old one.
        self.socket = fresh
        old.close()
        # The port may be held a moment longer (a connection the old socket accepted is
        # still closing, seen under a sanitizer's slowness): bind again until it is free.
        # Nobody listens meanwhile, which is what a pause is.
        deadline = time.monotonic() + 60
        while True:
            try:
                fresh.bind(("127.0.0.1", port))
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
        wait_for(self.opts.pause_after[1], self.stopping)
        fresh.listen(64)
        self.paused = False


def pair(text):
    a, b = text.split(":", 1)
    return int(a), b


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--save-dir")
    ap.add_argument("--down-until")
    ap.add_argument("--status-first", type=pair)
    ap.add_argument("--hang-first", type=int, default=0)
    ap.add_argument("--pause-after", type=pair)
    opts = ap.parse_args()
    if opts.status_first:
        opts.status_first = (opts.status_first[0], int(opts.status_first[1]))

    server = Server(opts)
    stop = threading.Event()

    def on_signal(signum, frame):
        stop.set()
        server.stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    open(opts.log, "a").close()
    tmp = opts.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.rename(tmp, opts.port_file)
    if opts.down_until:
        wait_for(opts.down_until, stop)
    if stop.is_set():
        return 0
    server.server_activate()
    # A loop of our own (not serve_forever) so that a pause may swap the socket.
    while not stop.is_set():
        if server.paused:
            time.sleep(0.02)
            continue
        try:
            r, _, _ = select.select([server.socket], [], [], 0.1)
        except (OSError, ValueError):
            time.sleep(0.05)  # the socket is being swapped
            continue
        if r:
            try:
                server._handle_request_noblock()
            except OSError:
                pass
    server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
