#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seeds of fuzz_tracing: the TRACING_DATA feature of a perf.data
file with the raw payload of each of its first tracepoint samples, as
fuzz/fuzz_tracing.c reads them (a 4-byte blob size, the blob, the payload).

    perf record -o trace.data -e sched:sched_switch -e sched:sched_process_exec \\
        -e sched:sched_process_fork -e sched:sched_process_exit -- sh -c '/bin/true'
    fuzz/make_tracing_corpus.py trace.data fuzz/corpus/tracing
"""
import os
import struct
import sys

TRACING_DATA = 1
# PERF_SAMPLE_* bits up to RAW, in the order a SAMPLE record holds them.
ORDER = [(1 << 16, 8), (1, 8), (2, 8), (4, 8), (8, 8), (64, 8), (512, 8), (128, 8), (256, 8)]


def main(path, out, per_event=2):
    d = open(path, 'rb').read()
    _, _, attr_size, attrs_off, attrs_size, data_off, data_size = struct.unpack_from('<8sQQQQQQ', d)
    feats = int.from_bytes(d[72:104], 'little')
    table = data_off + data_size
    blob = None
    for bit in range(256):
        if feats >> bit & 1:
            off, size = struct.unpack_from('<QQ', d, table)
            table += 16
            if bit == TRACING_DATA:
                blob = d[off:off + size]
    if blob is None:
        sys.exit(f'{path} has no TRACING_DATA feature')
    sample_type = struct.unpack_from('<Q', d, attrs_off + 24)[0]
    if sample_type & ~(sum(b for b, _ in ORDER) | 1024):
        sys.exit(f'{path}: sample_type {sample_type:#x} has fields this script does not skip')
    os.makedirs(out, exist_ok=True)
    seen, pos, kept = 0, data_off, {}
    while pos + 8 <= data_off + data_size:
        rtype, _, rsize = struct.unpack_from('<IHH', d, pos)
        if rtype == 9:  # PERF_RECORD_SAMPLE
            p = pos + 8
            for bit, width in ORDER:
                if sample_type & bit:
                    p += width
            raw_size = struct.unpack_from('<I', d, p)[0]
            raw = d[p + 4:p + 4 + raw_size]
            kind = raw[:2]
            kept[kind] = kept.get(kind, 0) + 1
            if kept[kind] > per_event:
                pos += rsize
                continue
            with open(os.path.join(out, f'sample-{seen:02d}'), 'wb') as f:
                f.write(struct.pack('<I', len(blob)) + blob + raw)
            seen += 1
        pos += rsize
    with open(os.path.join(out, 'no-payload'), 'wb') as f:
        f.write(struct.pack('<I', len(blob)) + blob)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
