#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Measures how `perfev stat --serve` answers a good scraper while local
clients attack it (loopback only): the figures of docs/FLEET.md.

    bench/bench_serve_attack.py [--perfev build/perfev] [--scrapes 50]

Starts `perfev stat --serve 127.0.0.1:0 -e page-faults -- sleep 3600`, then:
  1. quiet: N scrapes one after another, nothing else connected;
  2. attacked: the same while 48 idle connections (connect, send nothing)
     and 40 slowloris ones (a request's first line, then a header byte
     every 2 s) are held; a connection the server closes is opened again,
     as an attacker would;
  3. a request with a NUL byte: what comes back, and whether it is closed;
  4. 600 scrapes at once: how many are answered, and how fast.
Every wait is bounded (--timeout, 30 s by default). Prints latencies (median,
90th percentile, maximum) and failures; exits 0 whatever they are.
"""
import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import time

REQUEST = (b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Prometheus/2.42.0+ds\r\n"
           b"Accept: text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n\r\n")


async def scrape(port, timeout):
    """One good scrape: (seconds, status line or why it failed)."""
    start = time.monotonic()
    try:
        async def go():
            r, w = await asyncio.open_connection("127.0.0.1", port)
            w.write(REQUEST)
            await w.drain()
            data = await r.read()
            w.close()
            return data
        data = await asyncio.wait_for(go(), timeout)
    except asyncio.TimeoutError:
        return time.monotonic() - start, "no answer in %gs" % timeout
    except OSError as e:
        return time.monotonic() - start, "error: %s" % e
    line = data.split(b"\r\n", 1)[0].decode("latin-1")
    if not line:
        line = "closed without an answer"
    return time.monotonic() - start, line


class Attack:
    """Holds idle and slowloris connections, reopening those the server closes."""

    def __init__(self, port, idle, slow, drip):
        self.port, self.idle, self.slow, self.drip = port, idle, slow, drip
        self.closed = 0       # connections the server closed
        self.answers = {}     # their first status lines, counted
        self.stop = False

    async def one(self, slowloris):
        while not self.stop:
            try:
                r, w = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                await asyncio.sleep(0.1)
                continue
            if slowloris:
                w.write(b"GET /metrics HTTP/1.1\r\n")
            read = asyncio.ensure_future(r.read())
            while not self.stop and not read.done():
                await asyncio.wait([read], timeout=self.drip)
                if slowloris and not read.done():
                    try:
                        w.write(b"X")
                        await w.drain()
                    except OSError:
                        pass
            if read.done():
                self.closed += 1
                try:
                    line = read.result().split(b"\r\n", 1)[0].decode("latin-1") or "closed"
                except OSError as e:
                    line = "reset (%s)" % e.__class__.__name__
                self.answers[line] = self.answers.get(line, 0) + 1
            else:
                read.cancel()
            w.close()

    def start(self):
        self.tasks = [asyncio.ensure_future(self.one(False)) for _ in range(self.idle)]
        self.tasks += [asyncio.ensure_future(self.one(True)) for _ in range(self.slow)]

    async def end(self):
        self.stop = True
        await asyncio.gather(*self.tasks, return_exceptions=True)


def summary(name, results):
    times = sorted(t for t, line in results if line.startswith("HTTP/1.1 200"))
    bad = [line for t, line in results if not line.startswith("HTTP/1.1 200")]
    if times:
        p90 = times[min(len(times) - 1, int(len(times) * 0.9))]
        print("%-28s %4d answered: median %7.1f ms, p90 %7.1f ms, max %7.1f ms; %d failed"
              % (name, len(times), statistics.median(times) * 1e3, p90 * 1e3, times[-1] * 1e3,
                 len(bad)))
    else:
        print("%-28s    0 answered; %d failed" % (name, len(bad)))
    kinds = {}
    for line in bad:
        kinds[line] = kinds.get(line, 0) + 1
    for line, n in sorted(kinds.items()):
        print("%28s %4d x %s" % ("", n, line))


async def raw(port, payload, timeout):
    """Sends payload; returns (the answer's status line or what happened, closed?, seconds)."""
    start = time.monotonic()
    r, w = await asyncio.open_connection("127.0.0.1", port)
    w.write(payload)
    try:
        data = await asyncio.wait_for(r.read(), timeout)
        closed = True
    except asyncio.TimeoutError:
        data, closed = b"", False
    w.close()
    line = data.split(b"\r\n", 1)[0].decode("latin-1") or "nothing"
    return line, closed, time.monotonic() - start


async def main(args):
    env = dict(os.environ)
    proc = subprocess.Popen([args.perfev, "stat", "--serve", "127.0.0.1:0", "-e", "page-faults",
                             "-o", "/dev/null", "--", "sleep", "3600"],
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=env)
    port = None
    for line in proc.stderr:
        m = re.search(rb"serving metrics at http://127\.0\.0\.1:(\d+)/", line)
        if m:
            port = int(m.group(1))
            break
    if not port:
        print("perfev said no address", file=sys.stderr)
        proc.kill()
        return 1
    print("perfev %s on port %d; %d scrapes a phase, %gs apart; load average %s"
          % (args.perfev, port, args.scrapes, args.gap, os.getloadavg()[0]))
    try:
        quiet = []
        for _ in range(args.scrapes):
            quiet.append(await scrape(port, args.timeout))
            await asyncio.sleep(args.gap)
        summary("quiet", quiet)

        attack = Attack(port, args.idle, args.slowloris, args.drip)
        attack.start()
        await asyncio.sleep(1.0)  # the attackers connect
        attacked = []
        for _ in range(args.scrapes):
            attacked.append(await scrape(port, args.timeout))
            await asyncio.sleep(args.gap)
        summary("%d idle + %d slowloris" % (args.idle, args.slowloris), attacked)
        await attack.end()
        print("%28s attackers closed by the server: %d (%s)"
              % ("", attack.closed, ", ".join("%d x %s" % (n, l)
                                              for l, n in sorted(attack.answers.items()))))

        line, closed, secs = await raw(port, b"GET /\0metrics HTTP/1.1\r\n\r\n", args.timeout)
        print("%-28s %s, %s after %.1f ms" % ("a NUL byte", line,
                                              "closed" if closed else "NOT closed", secs * 1e3))

        crowd = await asyncio.gather(*[scrape(port, args.timeout)
                                       for _ in range(args.concurrent)])
        summary("%d scrapes at once" % args.concurrent, crowd)
    finally:
        proc.kill()
        proc.wait()
    return 0


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--perfev", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "perfev"))
    p.add_argument("--scrapes", type=int, default=50)
    p.add_argument("--gap", type=float, default=0.1, help="seconds between scrapes")
    p.add_argument("--idle", type=int, default=48)
    p.add_argument("--slowloris", type=int, default=40)
    p.add_argument("--drip", type=float, default=2.0, help="seconds between slowloris bytes")
    p.add_argument("--concurrent", type=int, default=600)
    p.add_argument("--timeout", type=float, default=30.0)
    sys.exit(asyncio.run(main(p.parse_args())))
