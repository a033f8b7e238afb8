# SPDX-License-Identifier: MIT
"""Counting: perf's event strings opened as counters, groups read together."""

import ctypes
from dataclasses import dataclass

from . import _lib
from .errors import check

@dataclass(frozen=True)
class Count:
    """One counter's reading.

    value: the raw count; scaled: the estimate of the full count when the
    event was multiplexed (value x enabled / running); time_enabled,
    time_running: ns; counted: False when the counter never ran (there is no
    count, which is not 0).
    """
    value: int
    scaled: int
    time_enabled: int
    time_running: int
    counted: bool

    @property
    def running_fraction(self):
        """time_running / time_enabled (1.0 when both are 0)."""
        return self.time_running / self.time_enabled if self.time_enabled else 1.0


def _count(c):
    return Count(c.value, c.scaled, c.time_enabled, c.time_running, bool(c.counted))


def make_target(pid=None, cpu=None, all_threads=False, cgroup=None):
    """A struct pev_target: the calling thread by default; a cgroup's tasks on every CPU."""
    t = _lib.Target()
    if cgroup is not None:
        t.pid = _lib.PID_ANY
        t.cpu = _lib.CPU_ALL if cpu is None else cpu
        t.cgroup = cgroup_dir(cgroup).encode()
        return t
    t.pid = _lib.PID_SELF if pid is None else pid
    t.cpu = _lib.CPU_ANY if cpu is None else cpu
    t.all_threads = all_threads
    return t


def cgroup_dir(name):
    """The directory of a cgroup named as perf's -G names it ("system.slice/x.service",
    "/" the root, or the directory itself), under the hierarchy perf events use.
    Raises NotFound (a PerfevError) naming where it looked."""
    buf = ctypes.create_string_buffer(4096)
    err = _lib.Error()
    check(_lib.cgroup_dir(str(name).encode(), buf, len(buf), ctypes.byref(err)), err)
    return _lib.text(buf.value)


def container_id(path):
    """The container a cgroup path belongs to (Docker, containerd, CRI-O, Podman): its
    64-hex-digit id, or None."""
    buf = ctypes.create_string_buffer(65)
    found = check(_lib.cgroup_container_id(str(path).encode(), buf, len(buf)))
    return _lib.text(buf.value) if found else None


def parse(text):
    """Parses perf's event syntax; returns the opaque list (free with _lib.event_list_free)."""
    lst = ctypes.c_void_p()
    err = _lib.Error()
    check(_lib.event_parse(text.encode(), None, ctypes.byref(lst), ctypes.byref(err)), err)
    return lst


class Counters:
    """Counters for a list of events in perf's syntax, with groups in braces.

        with perfev.Counters("task-clock,{cpu-clock,page-faults}") as c:
            work()
        c.read()["task-clock"].scaled

    pid: a thread or process (None: the calling thread); cpu: a CPU (None:
    any); all_threads: pid is a process, every thread of it counted;
    cgroup: instead of pid, the tasks of that cgroup (perf's -G name, see
    cgroup_dir()), on every CPU (or cpu's);
    inherit: threads and children created later are counted too. The events
    open disabled, through libperfev's counter lists (groups read in one
    go); entering the context resets and enables them, leaving it disables
    them; enable() / disable() / reset() do the same by hand. close()
    releases them (safe to call twice). An event without a privilege
    modifier counts the kernel too where this user may, and user space only
    where it may not (libperfev's rule, docs/API.md "Privilege levels");
    context-switches and cpu-migrations, which happen only in the kernel,
    raise PermissionDenied there instead of reading 0.
    """

    def __init__(self, events, pid=None, cpu=None, all_threads=False, inherit=False,
                 cgroup=None):
        self._l = ctypes.c_void_p()
        self._target = make_target(pid, cpu, all_threads, cgroup)
        lst = parse(events)
        try:
            o = _lib.CounterListOpts()
            o.sz = ctypes.sizeof(o)
            o.disabled = True
            o.inherit = _lib.INHERIT_ALL if inherit else _lib.INHERIT_NONE
            err = _lib.Error()
            check(_lib.counter_list_open(lst, ctypes.byref(o), ctypes.byref(self._target),
                                         ctypes.byref(self._l), ctypes.byref(err)), err)
            self._names = [_lib.text(_lib.counter_name(_lib.counter_list_at(self._l, i)))
                           for i in range(check(_lib.counter_list_count(self._l)))]
        finally:
            _lib.event_list_free(lst)

    @property
    def names(self):
        """The events' names, in the order given."""
        return list(self._names)

    def enable(self):
        check(_lib.counter_list_enable(self._l))

    def disable(self):
        check(_lib.counter_list_disable(self._l))

    def reset(self):
        check(_lib.counter_list_reset(self._l))

    def read(self):
        """Every event's Count, by name (a repeated name gets "#2", "#3", ...)."""
        n = len(self._names)
        counts = (_lib.Count * max(n, 1))()
        check(_lib.counter_list_read(self._l, counts, n))
        out = {}
        for i, base in enumerate(self._names):
            name, k = base, 2
            while name in out:
                name, k = f"{base}#{k}", k + 1
            out[name] = _count(counts[i])
        return out

    def close(self):
        if self._l:
            _lib.counter_list_close(self._l)
            self._l = ctypes.c_void_p()

    def __enter__(self):
        self.reset()
        self.enable()
        return self

    def __exit__(self, *exc):
        if self._l:
            self.disable()
        return False

    def __del__(self):
        self.close()
