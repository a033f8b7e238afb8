# SPDX-License-Identifier: MIT
"""Counting: perf's event strings opened as counters, groups read together."""

import ctypes
from dataclasses import dataclass

from . import _lib
from .errors import check

# Where struct pev_event_spec keeps its options (after the struct pev_event).
_SPEC_OPTS_OFFSET = ctypes.sizeof(_lib.Event)


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


def make_target(pid=None, cpu=None, all_threads=False):
    """A struct pev_target: the calling thread by default."""
    t = _lib.Target()
    t.pid = _lib.PID_SELF if pid is None else pid
    t.cpu = _lib.CPU_ANY if cpu is None else cpu
    t.all_threads = all_threads
    return t


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
    inherit: threads and children created later are counted too. Entering
    the context resets and enables the counters, leaving it disables them;
    they can also be driven with enable() / disable() / reset(). close()
    (or the end of a `with` on the object returned by open) releases them.
    """

    def __init__(self, events, pid=None, cpu=None, all_threads=False, inherit=False):
        self._handles = []   # every counter, in list order
        self._names = []
        self._leaders = []   # index of each event's group leader (itself when alone)
        self._target = make_target(pid, cpu, all_threads)
        lst = parse(events)
        try:
            n = _lib.event_list_count(lst)
            for i in range(n):
                self._open(_lib.event_list_at(lst, i), inherit)
        except BaseException:
            self.close()
            raise
        finally:
            _lib.event_list_free(lst)

    def _open(self, spec_addr, inherit):
        spec = _lib.EventSpecPrefix.from_address(spec_addr)
        # The options the event string set (modifiers, terms), copied whole:
        # their size is their first field.
        opts_addr = spec_addr + _SPEC_OPTS_OFFSET
        size = _lib.c_size_t.from_address(opts_addr).value
        tail = _lib.EventSpecTail.from_address(opts_addr + size)
        buf = ctypes.create_string_buffer(ctypes.string_at(opts_addr, size), size)
        opts = _lib.OptsPrefix.from_buffer(buf)
        opts.read_format |= _lib.FORMAT_TOTAL_TIME_ENABLED | _lib.FORMAT_TOTAL_TIME_RUNNING
        if inherit:
            opts.inherit = _lib.INHERIT_ALL
        index = len(self._handles)
        leader = None
        if tail.group >= 0:
            opts.read_format |= _lib.FORMAT_GROUP | _lib.FORMAT_ID
            if not tail.group_leader:
                leader = self._leaders[-1]
        # Leaders start disabled; members follow their leader.
        opts.disabled = leader is None
        handle = ctypes.c_void_p()
        err = _lib.Error()
        rc = _lib.counter_open(ctypes.addressof(spec.ev), buf, ctypes.byref(self._target),
                               self._handles[leader] if leader is not None else None,
                               ctypes.byref(handle), ctypes.byref(err))
        check(rc, err)
        self._handles.append(handle)
        self._names.append(_lib.text(spec.ev.name) or _lib.text(_lib.counter_name(handle)))
        self._leaders.append(index if leader is None else leader)

    @property
    def names(self):
        """The events' names, in the order given."""
        return list(self._names)

    def enable(self):
        for i, h in enumerate(self._handles):
            if self._leaders[i] == i:
                check(_lib.counter_enable_group(h) if self._has_members(i)
                      else _lib.counter_enable(h))

    def disable(self):
        for i, h in enumerate(self._handles):
            if self._leaders[i] == i:
                check(_lib.counter_disable_group(h) if self._has_members(i)
                      else _lib.counter_disable(h))

    def reset(self):
        for i, h in enumerate(self._handles):
            if self._leaders[i] == i:
                check(_lib.counter_reset_group(h) if self._has_members(i)
                      else _lib.counter_reset(h))

    def _has_members(self, i):
        return any(l == i and j != i for j, l in enumerate(self._leaders))

    def read(self):
        """Every event's Count, by name (a repeated name gets "#2", "#3", ...)."""
        out = {}
        i = 0
        while i < len(self._handles):
            members = [j for j, l in enumerate(self._leaders) if l == i]
            if len(members) > 1:
                counts = (_lib.Count * len(members))()
                n = check(_lib.counter_read_group(self._handles[i], counts, len(members)))
                values = [_count(counts[k]) for k in range(n)]
            else:
                c = _lib.Count()
                check(_lib.counter_read(self._handles[i], ctypes.byref(c)))
                values = [_count(c)]
            for j, v in zip(members, values):
                name, k = self._names[j], 2
                while name in out:
                    name, k = f"{self._names[j]}#{k}", k + 1
                out[name] = v
            i = members[-1] + 1
        return out

    def close(self):
        """Closes every counter (members before leaders). Safe to call twice."""
        for h in reversed(self._handles):
            _lib.counter_close(h)
        self._handles = []

    def __enter__(self):
        self.reset()
        self.enable()
        return self

    def __exit__(self, *exc):
        if self._handles:
            self.disable()
        return False

    def __del__(self):
        self.close()
