# SPDX-License-Identifier: MIT
import errno
import mmap
import os
import subprocess
import sys
import time

import pytest

import perfev


def open_fds():
    return len(os.listdir("/proc/self/fd"))


def test_counts_a_region_and_groups():
    before = open_fds()
    # 4096 fresh pages, a fault each: no huge pages (always on in some kernels).
    block = mmap.mmap(-1, 16 << 20)
    block.madvise(mmap.MADV_NOHUGEPAGE)
    with perfev.Counters("task-clock,page-faults,{cpu-clock,context-switches}") as c:
        for i in range(0, len(block), 4096):
            block[i] = 1
    block.close()
    counts = c.read()
    assert list(counts) == ["task-clock", "page-faults", "cpu-clock", "context-switches"]
    assert counts["page-faults"].counted and counts["page-faults"].value >= 4096
    assert counts["task-clock"].value > 0
    # The group was read in one go: its members ran exactly as long as its leader.
    assert counts["cpu-clock"].time_enabled == counts["context-switches"].time_enabled
    # Disabled outside the context: nothing more is counted.
    again = c.read()
    sum(range(100000))
    assert c.read()["task-clock"].value == again["task-clock"].value
    c.close()
    c.close()  # twice is fine
    assert open_fds() == before


def test_modifiers_and_repeated_names():
    with perfev.Counters("task-clock:u,task-clock") as c:
        sum(range(200000))
    counts = c.read()
    assert set(counts) == {"task-clock:u", "task-clock"} or set(counts) == {"task-clock", "task-clock#2"}
    c.close()


def test_never_enabled_is_not_counted():
    c = perfev.Counters("task-clock")
    sum(range(100000))
    count = c.read()["task-clock"]
    # Opened disabled and never enabled: no count, which is not a count of 0.
    assert count.time_running == 0
    assert not count.counted
    c.close()


def test_another_process():
    child = subprocess.Popen([sys.executable, "-c", "import time\nwhile True: sum(range(10**5))"])
    try:
        with perfev.Counters("task-clock", pid=child.pid) as c:
            time.sleep(0.3)
        assert c.read()["task-clock"].value > 10**6  # more than a millisecond of its CPU
        c.close()
    finally:
        child.kill()
        child.wait()


def test_errors_are_typed_and_explained():
    with pytest.raises(perfev.PerfevError) as e:
        perfev.Counters("no-such-event-anywhere")
    assert e.value.name in ("NotFound", "EventNotFound")
    assert e.value.message and "no-such-event-anywhere" in e.value.message

    with pytest.raises(ValueError) as e:  # a parse error is also a ValueError
        perfev.Counters("task-clock,,{")
    assert isinstance(e.value, perfev.PerfevError)

    # A process that does not exist.
    with pytest.raises(ProcessLookupError) as e:
        perfev.Counters("task-clock", pid=2**22 + 7)
    assert isinstance(e.value, perfev.PerfevError) and e.value.errno == 3
    assert e.value.hint or e.value.message


def test_a_call_without_an_error_struct_still_says_why():
    # Reading a closed list fails in a call that takes no struct pev_error:
    # the message is the library's pev_last_error(), naming call and argument.
    c = perfev.Counters("task-clock")
    c.close()
    with pytest.raises(ValueError) as e:
        c.read()
    assert isinstance(e.value, perfev.PerfevError) and e.value.name == "BadArgument"
    assert "pev_counter_list_read: bad argument 'l'" in e.value.message, e.value.message


def test_a_failed_group_leaves_nothing_open():
    before = open_fds()
    with pytest.raises(perfev.PerfevError):
        perfev.Counters("{task-clock,page-faults,no-such-event-anywhere}")
    assert open_fds() == before


def _cgroup2_root():
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            if right.split()[0] == "cgroup2":
                return left.split()[4]
    return None


def test_a_cgroup_counts_its_tasks_on_every_cpu():
    root = _cgroup2_root()
    if os.geteuid() != 0 or root is None:
        pytest.skip("needs root and a cgroup v2 hierarchy")
    name = f"/perfev-py-{os.getpid()}"
    os.mkdir(root + name)
    # Two busy processes, one in the cgroup: only its time is counted.
    busy = subprocess.Popen([sys.executable, "-c", "while True: sum(range(10**5))"])
    idle = subprocess.Popen([sys.executable, "-c", "while True: sum(range(10**5))"])
    try:
        with open(root + name + "/cgroup.procs", "w") as f:
            f.write(str(busy.pid))
        assert perfev.cgroup_dir(name) == root + name
        assert perfev.cgroup_dir(name[1:]) == root + name
        with pytest.raises(perfev.PerfevError, match="no cgroup '/perfev-nothing-here'"):
            perfev.cgroup_dir("perfev-nothing-here")
        try:
            c = perfev.Counters("task-clock", cgroup=name)
        except perfev.PerfevError as e:
            # ENOENT: a kernel that counts in no v2 cgroup (Debian 12's arm64)
            if e.errno == errno.ENOENT or getattr(e, "code", 0) == -errno.ENOENT:
                pytest.skip(f"this kernel counts in no cgroup v2 cgroup: {e}")
            raise
        with c:
            time.sleep(0.5)
        counted = c.read()["task-clock"].value
        c.close()
        # One busy task of two: about half the machine's CPU time, never the other one's.
        assert 10**7 < counted < 2 * 0.5e9 * os.cpu_count()
        with open(root + name + "/cpu.stat") as f:
            usage_ns = int(f.read().split("usage_usec ")[1].split()[0]) * 1000
        assert counted <= usage_ns * 1.02
    finally:
        for p in (busy, idle):
            p.kill()
            p.wait()
        for _ in range(200):
            try:
                os.rmdir(root + name)
                break
            except OSError:
                time.sleep(0.01)


def test_container_ids():
    cid = "0123456789abcdef" * 4
    assert perfev.container_id(f"/system.slice/docker-{cid}.scope") == cid
    assert perfev.container_id(f"/kubepods/besteffort/podx/{cid}") == cid
    assert perfev.container_id("/system.slice/nginx.service") is None
