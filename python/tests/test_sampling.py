# SPDX-License-Identifier: MIT
import os

import perfev


def spin():
    t = 0
    for i in range(2_000_000):
        t += i
    return t


def test_samples_in_time_order_with_callchains():
    before = len(os.listdir("/proc/self/fd"))
    with perfev.Session("task-clock", freq=2000, callchain=True, track=True) as s:
        spin()
    records = list(s)
    samples = [r for r in records if r.type == "SAMPLE"]
    assert len(samples) >= 20, f"{len(samples)} samples of about 0.1 s at 2000 Hz"
    assert all(r.event == "task-clock" for r in samples)
    assert all(r.pid == os.getpid() for r in samples)
    times = [r.time for r in records]
    assert times == sorted(times)
    assert all(r.ip and r.callchain and r.callchain[0] == r.ip for r in samples)
    assert all(r.raw and len(r.raw) % 8 == 0 for r in records)
    # Drained: a second pass has nothing new.
    assert [r for r in s if r.type == "SAMPLE"] == []
    s.close()
    assert len(os.listdir("/proc/self/fd")) == before


def test_session_errors():
    try:
        perfev.Session("task-clock", pid=2**22 + 7)
    except ProcessLookupError as e:
        assert isinstance(e, perfev.PerfevError)
    else:
        raise AssertionError("a session on a process that does not exist opened")


def test_tracepoint_fields_by_name():
    import threading
    import time

    import pytest

    try:
        s = perfev.Session("sched:sched_switch", period=1)
    except perfev.PerfevError as e:
        pytest.skip(f"no sched:sched_switch to sample here: {e}")
    with s:
        for _ in range(5):
            time.sleep(0.001)  # each sleep switches this thread out
    samples = [r for r in s if r.type == "SAMPLE"]
    s.close()
    # The kernel's name of this thread (prev_comm), not Python's.
    with open(f"/proc/self/task/{threading.get_native_id()}/comm") as f:
        comm = f.read().strip()
    assert len(samples) >= 5, f"{len(samples)} switches for 5 sleeps"
    for r in samples:
        assert r.fields is not None and "common_pid" not in r.fields
        assert r.fields["prev_comm"] == comm and r.fields["prev_pid"] == threading.get_native_id()
        assert isinstance(r.fields["next_comm"], str) and isinstance(r.fields["next_pid"], int)
    # Other events' samples have no fields.
    with perfev.Session("task-clock", freq=1000) as t:
        spin()
    assert all(r.fields is None for r in t)
    t.close()


def test_samples_symbolized_from_the_records_and_proc():
    import subprocess
    import sys
    import time

    # This thread: frames named from /proc/self/maps (no MMAP record of python itself).
    with perfev.Session("task-clock", freq=1000, callchain=True, symbolize=True) as s:
        spin()
    samples = [r for r in s if r.type == "SAMPLE"]
    s.close()
    assert len(samples) >= 20
    # Debian's python3.11 names only its exported functions: a leaf in one of its static
    # ones is "[unknown]" but in its file (about half the samples, more under load).
    mapped = [r for r in samples if r.frames and r.frames[0].dso]
    assert len(mapped) * 2 > len(samples), [r.frames[:1] for r in samples[:5]]
    assert any(f.name == "_PyEval_EvalFrameDefault" for r in samples for f in r.frames)

    # A process that runs before the session: tracked, it writes no MMAP2 of its program;
    # its maps are read from /proc, so its records are read while it runs.
    child = subprocess.Popen([sys.executable, "-c",
                              "import time\nend = time.time() + 0.6\nwhile time.time() < end: pass"])
    time.sleep(0.2)
    records = []
    with perfev.Session("task-clock", freq=1000, pid=child.pid, track=True,
                        symbolize=True) as s:
        while child.poll() is None:
            s.poll(50)
            records += list(s)
    records += list(s)
    s.close()
    samples = [r for r in records if r.type == "SAMPLE"]
    assert not any(r.type == "MMAP2" and "python" in str(r.raw) for r in records)
    assert len(samples) >= 20, f"{len(samples)} samples of 0.4 s at 1000 Hz"
    mapped = [r for r in samples if r.frames[0].dso and "python" in r.frames[0].dso]
    assert len(mapped) * 2 > len(samples), [r.frames for r in samples[:5]]
    assert any(f.name == "_PyEval_EvalFrameDefault" for r in samples for f in r.frames), \
        [r.frames for r in samples[:5]]
