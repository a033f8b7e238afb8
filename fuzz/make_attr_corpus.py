#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpus of fuzz_attr: perf_event_attr blocks of the kinds
perf and perfev really open, laid out as Linux 6.18 defines them.

    python3 fuzz/make_attr_corpus.py [OUT_DIR]   (default fuzz/corpus/attr)
"""
import os
import struct
import sys

# (name, struct format, offset) of every field of struct perf_event_attr.
FIELDS = [
    ("type", "I", 0), ("size", "I", 4), ("config", "Q", 8), ("sample_period", "Q", 16),
    ("sample_type", "Q", 24), ("read_format", "Q", 32), ("flags", "Q", 40),
    ("wakeup_events", "I", 48), ("bp_type", "I", 52), ("config1", "Q", 56),
    ("config2", "Q", 64), ("branch_sample_type", "Q", 72), ("sample_regs_user", "Q", 80),
    ("sample_stack_user", "I", 88), ("clockid", "i", 92), ("sample_regs_intr", "Q", 96),
    ("aux_watermark", "I", 104), ("sample_max_stack", "H", 108), ("reserved_2", "H", 110),
    ("aux_sample_size", "I", 112), ("aux_action", "I", 116), ("sig_data", "Q", 120),
    ("config3", "Q", 128),
]
SIZES = [64, 72, 80, 96, 104, 112, 120, 128, 136]

# attr.flags bits
DISABLED, INHERIT, EXCLUDE_KERNEL, EXCLUDE_HV = 1 << 0, 1 << 1, 1 << 5, 1 << 6
MMAP, COMM, FREQ, ENABLE_ON_EXEC, TASK = 1 << 8, 1 << 9, 1 << 10, 1 << 12, 1 << 13
WATERMARK, SAMPLE_ID_ALL, MMAP2, COMM_EXEC = 1 << 14, 1 << 18, 1 << 23, 1 << 24
USE_CLOCKID, CONTEXT_SWITCH, WRITE_BACKWARD = 1 << 25, 1 << 26, 1 << 27
INHERIT_THREAD, REMOVE_ON_EXEC, SIGTRAP = 1 << 35, 1 << 36, 1 << 37
PRECISE_IP_2 = 2 << 15
# sample_type bits
IP, TID, TIME, ADDR, CALLCHAIN, ID, CPU, PERIOD = 1, 2, 4, 8, 32, 64, 128, 256
BRANCH_STACK, REGS_USER, STACK_USER, IDENTIFIER = 1 << 11, 1 << 12, 1 << 13, 1 << 16
# read_format bits
TOTAL_TIME_ENABLED, TOTAL_TIME_RUNNING, FMT_ID, GROUP, LOST = 1, 2, 4, 8, 16


def block(**values):
    """One attribute block with the smallest size that holds its non-zero fields."""
    raw = bytearray(136)
    for name, fmt, off in FIELDS:
        struct.pack_into("<" + fmt, raw, off, values.pop(name, 0))
    assert not values, values
    end = max([64] + [i + 1 for i, b in enumerate(raw) if b])
    size = next(s for s in SIZES if s >= end)
    struct.pack_into("<I", raw, 4, size)
    return bytes(raw[:size])


SEEDS = {
    # perfev stat: task-clock counting from exec, inherited, with times
    "stat-task-clock": block(type=1, config=1, flags=DISABLED | INHERIT | ENABLE_ON_EXEC,
                             read_format=TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING),
    # cycles:u, what perf stat asks first even where there is no PMU
    "cycles-user": block(type=0, config=0, flags=DISABLED | EXCLUDE_KERNEL | EXCLUDE_HV),
    # perf record -F 4000 -g: frequency sampling with callchains and side records
    "record-cpu-clock-freq": block(
        type=1, config=0, sample_period=4000, flags=DISABLED | INHERIT | MMAP | COMM | FREQ |
        ENABLE_ON_EXEC | TASK | SAMPLE_ID_ALL | MMAP2 | COMM_EXEC,
        sample_type=IP | TID | TIME | CALLCHAIN | PERIOD | IDENTIFIER, sample_max_stack=127),
    # a write watchpoint: 8 bytes at an address
    "breakpoint-w8": block(type=5, bp_type=2, config1=0x7ffd12345678, config2=8,
                           flags=DISABLED | EXCLUDE_KERNEL | EXCLUDE_HV),
    # a uprobe: config1 points to a path, config2 is the file offset
    "uprobe": block(type=8, config1=0x5555deadbe00, config2=0x1139,
                    flags=DISABLED | EXCLUDE_KERNEL),
    # a tracepoint sampled every event with raw data
    "tracepoint-sched-switch": block(type=2, config=316, sample_period=1,
                                     sample_type=IP | TID | TIME | CPU | 1 << 10,
                                     flags=DISABLED | SAMPLE_ID_ALL, wakeup_events=1),
    # group leader read with ids and lost counts
    "group-leader": block(type=1, config=2, read_format=TOTAL_TIME_ENABLED |
                          TOTAL_TIME_RUNNING | FMT_ID | GROUP | LOST, flags=DISABLED),
    # user stack and registers for DWARF unwinding, monotonic clock, byte wake-up
    "dwarf-unwind": block(type=1, config=0, sample_period=100000,
                          sample_type=IP | TID | TIME | REGS_USER | STACK_USER,
                          sample_regs_user=0xff0fff, sample_stack_user=8192,
                          flags=DISABLED | WATERMARK | USE_CLOCKID, wakeup_events=4096,
                          clockid=1),
    # branch stack on a precise event (what perf record -b asks)
    "branch-stack": block(type=0, config=4, sample_period=10007,
                          sample_type=IP | BRANCH_STACK, branch_sample_type=(1 << 3) | 1,
                          flags=DISABLED | PRECISE_IP_2),
    # SIGTRAP on a watchpoint, removed at exec, with signal data
    "sigtrap": block(type=5, bp_type=3, config1=0x601040, config2=4, sample_period=1,
                     flags=DISABLED | INHERIT | INHERIT_THREAD | REMOVE_ON_EXEC | SIGTRAP,
                     sig_data=0xfeedface),
    # overwrite ring with context switches, and a config3 (newest size)
    "backward-config3": block(type=9, config=0x10, config3=0x3,
                              flags=DISABLED | CONTEXT_SWITCH | WRITE_BACKWARD,
                              sample_type=TID | TIME | ID | ADDR),
}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                              "corpus", "attr")
    os.makedirs(out, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(out, name + ".bin"), "wb") as f:
            f.write(data)
        print(f"{name}.bin: {len(data)} bytes")


if __name__ == "__main__":
    main()
