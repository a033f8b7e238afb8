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
    (_lib.OptsPrefix, "pev_opts", False),
    (_lib.Target, "pev_target", True),
    (_lib.Count, "pev_count", True),
    (_lib.SessionOpts, "pev_session_opts", True),
    (_lib.SampleId, "pev_sample_id", True),
    (_lib.ReadData, "pev_read_data", True),
    (_lib.SamplePrefix, "pev_sample", False),
    (_lib.Record, "pev_record", True),
    (_lib.SessionRecord, "pev_session_record", True),
    (_lib.ProfileFrame, "pev_profile_frame", True),
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
    # Where the spec's options start and what follows them.
    lines.append('printf("spec.opts %zu\\n", offsetof(struct pev_event_spec, opts));')
    lines.append('printf("spec.text %zu\\n", offsetof(struct pev_event_spec, text));')
    lines.append('printf("spec.group %zu\\n", offsetof(struct pev_event_spec, group));')
    lines.append('printf("spec.group_leader %zu\\n", offsetof(struct pev_event_spec, group_leader));')
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
    assert ctypes.sizeof(_lib.Event) == c["spec.opts"]
    assert _lib.Record.u.offset == c["record.union"]
    opts_size = c["pev_opts"]
    assert c["spec.text"] == c["spec.opts"] + opts_size
    assert c["spec.group"] - c["spec.text"] == _lib.EventSpecTail.group.offset
    assert c["spec.group_leader"] - c["spec.text"] == _lib.EventSpecTail.group_leader.offset
