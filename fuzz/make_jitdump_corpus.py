#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_jitdump: jitdump files as `node --perf-prof`
writes them (loads, line tables, unwinding info), moves and code replaced at
one address, in both byte orders, cut short; and programs for the harness's
structured mode (first byte odd).

    python3 fuzz/make_jitdump_corpus.py [OUT_DIR]   (default fuzz/corpus/jitdump)
"""
import os
import struct
import sys

MAGIC = 0x4A695444
BASE = 0x7F0000001000


def header(e, pid, flags=0):
    return struct.pack(e + "IIIIIIQQ", MAGIC, 1, 40, 62, 0, pid, 1000, flags)


def record(e, rid, time, body):
    return struct.pack(e + "IIQ", rid, 16 + len(body), time) + body


def load(e, time, pid, addr, size, index, name):
    body = struct.pack(e + "IIQQQQ", pid, pid, addr, addr, size, index)
    return record(e, 0, time, body + name + b"\0" + b"\xcc" * size)


def move(e, time, pid, old, new, size, index):
    return record(e, 1, time, struct.pack(e + "IIQQQQQ", pid, pid, new, old, new, size, index))


def debug_info(e, time, addr, entries):
    body = struct.pack(e + "QQ", addr, len(entries))
    for a, line, name in entries:
        body += struct.pack(e + "QII", a, line, 0) + name + b"\0"
    return record(e, 2, time, body)


def unwinding_info(e, time):
    return record(e, 4, time, struct.pack(e + "QQQ", 24, 20, 24) + bytes(24))


def dump(e):
    d = header(e, 4242)
    d += debug_info(e, 90, BASE, [(BASE, 1, b"node:internal/util"),
                                  (BASE + 0x10, 2, b"\xff"), (BASE + 0x20, 3, b"\xff")])
    d += load(e, 100, 4242, BASE, 0x40, 1, b"JS:^hotLoop /tmp/hot.js:1:17")
    d += unwinding_info(e, 101)
    d += load(e, 200, 4242, BASE + 0x1000, 0x30, 2, b"Builtin:InterpreterEntryTrampoline")
    d += load(e, 300, 4242, BASE, 0x38, 3, b"JS:*hotLoop /tmp/hot.js:1:17")
    d += move(e, 400, 4242, BASE + 0x1000, BASE + 0x2000, 0x30, 2)
    d += record(e, 3, 500, b"")
    return d


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "corpus", "jitdump")
    os.makedirs(out, exist_ok=True)
    seeds = {
        "v8_like": b"\0" + dump("<"),
        "v8_like_swapped": b"\0" + dump(">"),
        "cut_short": b"\0" + dump("<")[:150],
        "arch_timestamp": b"\0" + header("<", 1, 1) + load("<", 5, 1, BASE, 16, 1, b"f"),
        # Structured: load, load over it, debug info then its load, move, close, a lying size.
        "program": bytes([1]) + bytes([0, 10, 0, 16, 0, 1, 1, 0,
                                       0, 10, 8, 16, 0, 1, 2, 1,
                                       2, 5, 0, 32, 16, 0, 3, 0,
                                       0, 1, 0, 32, 64, 0, 3, 3,
                                       1, 9, 0, 16, 0, 1, 1, 0,
                                       3, 1, 0, 0, 0, 0, 0, 0,
                                       5, 1, 0, 0, 0, 0, 0, 200]),
        "program_swapped": bytes([3]) + bytes([0, 10, 0, 16, 0, 1, 1, 0,
                                               0, 0x85, 8, 16, 0, 1, 2, 1,
                                               4, 1, 0, 0, 0, 0, 7, 0]),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
