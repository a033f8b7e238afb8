#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seeds of fuzz_http: the requests Debian's prometheus sends when
it scrapes (captured on loopback: a listener answers each scrape with one
sample), what curl sends, and malformed requests of each kind the parser
refuses.

    fuzz/make_http_corpus.py fuzz/corpus/http
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

# Three scrape jobs: the default one, one with a query string and a shorter
# timeout, one with basic authentication: each sends its own headers.
CONFIG = """global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: plain
    static_configs:
      - targets: ['127.0.0.1:{port}']
  - job_name: params
    scrape_timeout: 500ms
    metrics_path: /metrics
    params:
      collect: [cpu, faults]
    static_configs:
      - targets: ['127.0.0.1:{port}']
  - job_name: auth
    basic_auth:
      username: perfev
      password: secret
    static_configs:
      - targets: ['127.0.0.1:{port}']
"""

OTHERS = {
    "curl.txt": b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nUser-Agent: curl/7.88.1\r\n"
                b"Accept: */*\r\n\r\n",
    "head-http10.txt": b"HEAD / HTTP/1.0\r\n\r\n",
    "lf-only.txt": b"GET /metrics?x=1 HTTP/1.1\nHost: h\n\n",
    "bad-nul.txt": b"GET /\0metrics HTTP/1.1\r\n\r\n",
    "bad-line.txt": b"hello\r\n\r\n",
    "bad-version.txt": b"GET / HTTP/2.0\r\n\r\n",
    "bad-folded.txt": b"GET / HTTP/1.1\r\nHost: a\r\n b\r\n\r\n",
    "unfinished.txt": b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-",
}


def capture(count=6, seconds=30):
    """The first count scrapes prometheus makes of a listener of ours."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    listener.settimeout(seconds)
    port = listener.getsockname()[1]
    tmp = tempfile.mkdtemp(prefix="perfev-http-corpus.")
    with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
        f.write(CONFIG.format(port=port))
    prom = subprocess.Popen(["prometheus", "--config.file=" + os.path.join(tmp, "prometheus.yml"),
                             "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                             "--web.listen-address=127.0.0.1:0", "--log.level=warn"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seen = {}
    try:
        deadline = time.monotonic() + seconds
        while len(seen) < count and time.monotonic() < deadline:
            conn, _ = listener.accept()
            conn.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                more = conn.recv(4096)
                if not more:
                    break
                data += more
            body = b"perfev_seed 1\n"
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\n"
                         b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            conn.close()
            seen[data] = True
    finally:
        prom.terminate()
        prom.wait()
        shutil.rmtree(tmp)
    return list(seen)


def main(out):
    os.makedirs(out, exist_ok=True)
    for i, req in enumerate(sorted(capture())):
        with open(os.path.join(out, "prometheus-%d.txt" % i), "wb") as f:
            f.write(req)
    for name, req in OTHERS.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(req)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
