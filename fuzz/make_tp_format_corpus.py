#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seeds of fuzz_tp_format: each format of the fixture tracefs
(and one with __data_loc and __rel_loc fields) with a payload laid out as it
says, as fuzz/fuzz_tp_format.c reads them (a 2-byte text length, the text,
the payload).

    fuzz/make_tp_format_corpus.py tests/fixtures/tracefs fuzz/corpus/tp_format
"""
import os
import re
import struct
import sys

DYNAMIC = (
    "name: dyn\nID: 9\nformat:\n"
    "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
    "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
    "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
    "\tfield:__rel_loc u8[] blob;\toffset:12;\tsize:4;\tsigned:0;\n"
    "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
    "\tfield:unsigned long args[2];\toffset:24;\tsize:16;\tsigned:0;\n\n"
    "print fmt: \"%s\", __get_str(filename)\n")


def payload(text):
    """Bytes for every field the text declares, dynamic data after them."""
    end = 0
    for off, size in re.findall(r"offset:(\d+);\s*size:(\d+);", text):
        end = max(end, int(off) + int(size))
    p = bytearray(b"\x41" * end + b"/tmp/x\x00\x00" + b"\x01\x02\x03\x00")
    for m in re.finditer(r"field:__(data|rel)_loc [^;]*;\s*offset:(\d+);", text):
        off = int(m.group(2))
        if m.group(1) == "data":
            struct.pack_into("<I", p, off, end | (7 << 16))
        else:
            struct.pack_into("<I", p, off, (end + 8 - off - 4) | (3 << 16))
    return bytes(p)


def main(tracefs, out):
    os.makedirs(out, exist_ok=True)
    texts = {"dynamic": DYNAMIC}
    for root, _, files in os.walk(os.path.join(tracefs, "events")):
        if "format" in files:
            name = os.path.relpath(root, os.path.join(tracefs, "events")).replace("/", "-")
            texts[name] = open(os.path.join(root, "format")).read()
    for name, text in sorted(texts.items()):
        t = text.encode()
        with open(os.path.join(out, name), "wb") as f:
            f.write(struct.pack("<H", len(t)) + t + payload(text))
    print(f"{len(texts)} seeds in {out}")


if __name__ == "__main__":
    main(*sys.argv[1:3])
