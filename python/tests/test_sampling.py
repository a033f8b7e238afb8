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
