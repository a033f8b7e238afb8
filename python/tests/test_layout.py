# SPDX-License-Identifier: MIT
"""The ctypes structs of perfev/_lib.py against the C headers: every offset
and size, printed by a program compiled from the headers (needs a C
compiler; skipped without one)."""

import ctypes
import os
import shutil
import subprocess

import pytest

from perfev import _lib

HERE = os.path.dirname(__file__)
INCLUDE = os.environ.get("PERFEV_INCLUDE", os.path.join(HERE, "..", "..", "include"))

# (ctypes struct, C struct, whole: the struct's size must match too)
STRUCTS = [
    (_lib.Error, "pev_error", True),
    (_lib.Event, "pev_event", True),
    (_lib.CounterListOpts, "pev_counter_list_opts", False),
    (_lib.Target, "pev_target", True),
    (_lib.Count, "pev_count", True),
    (_lib.SessionOpts, "pev_session_opts", True),
    (_lib.SampleId, "pev_sample_id", True),
    (_lib.ReadData, "pev_read_data", True),
    (_lib.SamplePrefix, "pev_sample", False),
    (_lib.Record, "pev_record", True),
    (_lib.SessionRecord, "pev_session_record", True),
    (_lib.ProfileFrame, "pev_profile_frame", True),
    (_lib.ReplayOpts, "pev_replay_opts", True),
    (_lib.ReportOpts, "pev_report_opts", True),
    (_lib.ReplaySample, "pev_replay_sample", True),
]

# Fields ctypes names differently from C: the record's union.
SKIP = {("pev_record", "u")}


def test_structs_match_the_headers(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not cc:
        pytest.skip("no C compiler to read the headers with")
    lines = ["#include <perfev.h>", "#include <stdio.h>", "#include <stddef.h>",
             "int main(void) {"]
    for cls, name, _ in STRUCTS:
        lines.append(f'printf("{name} %zu\\n", sizeof(struct {name}));')
        for f, *_ in cls._fields_:
            if (name, f) in SKIP:
                continue
            lines.append(f'printf("{name}.{f} %zu\\n", offsetof(struct {name}, {f}));')
    lines.append('printf("record.union %zu\\n", offsetof(struct pev_record, sample));')
    lines.append("return 0; }")
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c11", "-I", INCLUDE, str(src), "-o", str(exe)], check=True)
    c = dict(line.rsplit(" ", 1) for line in subprocess.run(
        [str(exe)], check=True, capture_output=True, text=True).stdout.splitlines())
    c = {k: int(v) for k, v in c.items()}

    for cls, name, whole in STRUCTS:
        if whole:
            assert ctypes.sizeof(cls) == c[name], f"sizeof(struct {name})"
        for f, *_ in cls._fields_:
            if (name, f) in SKIP:
                continue
            assert getattr(cls, f).offset == c[f"{name}.{f}"], f"offsetof(struct {name}, {f})"
    assert _lib.Record.u.offset == c["record.union"]
