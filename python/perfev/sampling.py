# SPDX-License-Identifier: MIT
"""Sampling sessions: events over CPUs and threads, records in time order."""

import ctypes
import sys
from ctypes import c_size_t
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from . import _lib
from .counters import make_target
from .errors import check

RECORD_TYPES = {
    1: "MMAP", 2: "LOST", 3: "COMM", 4: "EXIT", 5: "THROTTLE", 6: "UNTHROTTLE", 7: "FORK",
    8: "READ", 9: "SAMPLE", 10: "MMAP2", 11: "AUX", 12: "ITRACE_START", 13: "LOST_SAMPLES",
    14: "SWITCH", 15: "SWITCH_CPU_WIDE", 16: "NAMESPACES", 17: "KSYMBOL", 18: "BPF_EVENT",
    19: "CGROUP", 20: "TEXT_POKE", 21: "AUX_OUTPUT_HW_ID",
}


@dataclass
class Record:
    """One record of a session.

    type: the kernel's record type name ("SAMPLE", "MMAP2", "COMM", ...);
    event: the name of the event that wrote it (None when unknown); cpu:
    the ring's CPU (-1 for a per-thread ring); time: its timestamp; pid,
    tid: from the record's sample_id. Samples also have ip, addr, period and
    callchain (user and kernel addresses, innermost first, context markers
    left out). raw: the record's bytes, as the kernel wrote them. fields: a
    tracepoint sample's fields by name (common_* ones left out): integers,
    pointers as integers, strings as str, other arrays as lists of integers
    (bytes for dynamic ones); None for other records. frames: with
    symbolize=True, the sample's call chain (or its ip) as Frames.
    """
    type: str
    event: Optional[str]
    cpu: int
    time: int
    pid: int
    tid: int
    raw: bytes
    ip: int = 0
    addr: int = 0
    period: int = 0
    callchain: List[int] = field(default_factory=list)
    fields: Optional[Dict[str, Any]] = None
    frames: Optional[List["Frame"]] = None


@dataclass
class Frame:
    """A sample's address, symbolized: the function (or "[unknown]"), the
    offset into it, and the file that holds it (None when no mapping does)."""
    address: int
    name: str
    offset: int
    dso: Optional[str]


class _TracepointFormat:
    """A tracepoint event's format (pev_tp_format), to read its samples' fields."""

    def __init__(self, name):
        system, _, rest = name.partition(":")
        self._f = ctypes.c_void_p()
        err = _lib.Error()
        check(_lib.tp_format_load(None, system.encode(), rest.split(":")[0].encode(),
                                  ctypes.byref(self._f), ctypes.byref(err)), err)
        self.fields = [_lib.tp_format_field_at(self._f, i)
                       for i in range(_lib.tp_format_nr_fields(self._f))]
        self.fields = [f for f in self.fields if not f.contents.is_common]

    def decode(self, raw, size):
        out = {}
        for f in self.fields:
            fc = f.contents
            data, n = ctypes.c_void_p(), c_size_t()
            check(_lib.tp_field_bytes(f, raw, size, ctypes.byref(data), ctypes.byref(n)))
            b = ctypes.string_at(data, n.value) if n.value else b""
            if fc.is_string:
                value = b.decode("utf-8", errors="replace")
            elif fc.kind in (_lib.TP_FIELD_INTEGER, _lib.TP_FIELD_POINTER):
                v = ctypes.c_int64()
                check(_lib.tp_field_int(f, raw, size, ctypes.byref(v)))
                value = v.value if fc.is_signed else v.value & ((1 << 64) - 1)
            elif fc.kind == _lib.TP_FIELD_ARRAY and fc.elem_size in (1, 2, 4, 8):
                value = [int.from_bytes(b[k:k + fc.elem_size], sys.byteorder,
                                        signed=bool(fc.is_signed))
                         for k in range(0, len(b) - fc.elem_size + 1, fc.elem_size)]
            else:
                value = b
            out[_lib.text(fc.name)] = value
        return out

    def close(self):
        if self._f:
            _lib.tp_format_free(self._f)
            self._f = ctypes.c_void_p()


class Session:
    """Samples events (perf's syntax) on a target; iterate to get its records.

        with perfev.Session("task-clock", freq=1000, callchain=True) as s:
            work()
        samples = [r for r in s if r.type == "SAMPLE"]

    freq or period sets how often events without their own rate sample
    (1000 Hz by default); pid / cpu / all_threads choose the target as for
    Counters (the calling thread by default); track adds MMAP2, COMM and
    FORK/EXIT records; symbolize names each sample's frames (Record.frames)
    from the records and /proc. Entering the context enables the events, leaving it
    disables them; iterating drains what the rings hold, in time order
    across CPUs (poll() waits for more). close() releases everything.
    """

    def __init__(self, events, freq=0, period=0, pid=None, cpu=None, all_threads=False,
                 callchain=False, track=False, pages=0, symbolize=False):
        self._s = ctypes.c_void_p()
        self._sym = ctypes.c_void_p()
        self._formats = []
        self._target = make_target(pid, cpu, all_threads)
        self._events = events.encode()
        o = _lib.SessionOpts()
        o.sz = ctypes.sizeof(o)
        o.event_text = self._events
        o.sample_freq = freq
        o.sample_period = period
        o.sample_type = (_lib.SAMPLE_IP | _lib.SAMPLE_TID | _lib.SAMPLE_TIME | _lib.SAMPLE_CPU |
                         _lib.SAMPLE_PERIOD | _lib.SAMPLE_RAW |
                         (_lib.SAMPLE_CALLCHAIN if callchain else 0))
        o.target = ctypes.pointer(self._target)
        o.data_pages = pages
        o.track = track
        err = _lib.Error()
        check(_lib.session_open(ctypes.byref(o), ctypes.byref(self._s), ctypes.byref(err)), err)
        if symbolize:
            # Every record is fed to the symbolizer; a process no MMAP record
            # described (one running before the session) is read from /proc.
            so = _lib.SymbolsOpts()
            so.sz = ctypes.sizeof(so)
            so.flags = _lib.SYMBOLS_PROC | _lib.SYMBOLS_NO_SRCLINE
            check(_lib.symbols_new(ctypes.byref(so), ctypes.byref(self._sym), ctypes.byref(err)),
                  err)
        self._names = []
        for i in range(_lib.session_nr_events(self._s)):
            c = _lib.session_counter(self._s, i)
            self._names.append(_lib.text(_lib.counter_name(c)))
            attr = _lib.counter_attr(c).contents
            self._formats.append(_TracepointFormat(self._names[-1])
                                 if attr.type == _lib.TYPE_TRACEPOINT else None)

    @property
    def names(self):
        return list(self._names)

    def enable(self):
        check(_lib.session_enable(self._s))

    def disable(self):
        check(_lib.session_disable(self._s))

    def poll(self, timeout_ms=-1):
        """Waits for a ring to have data; returns how many rings are ready."""
        return check(_lib.session_poll(self._s, timeout_ms))

    def __iter__(self):
        """The records the rings hold now (the session's flush first), then stops."""
        if not self._s:
            return
        check(_lib.session_flush(self._s))
        r = _lib.SessionRecord()
        while check(_lib.session_read(self._s, ctypes.byref(r))) == 1:
            yield self._record(r)

    def _frame(self, pid, address):
        sym = _lib.SymbolPrefix()
        sym.sz = ctypes.sizeof(sym)
        check(_lib.symbols_resolve(self._sym, pid, address, ctypes.byref(sym)))
        return Frame(address, _lib.text(sym.name), sym.offset,
                     _lib.text(sym.dso) if sym.dso else None)

    def _record(self, r):
        rec = r.rec
        if self._sym:
            check(_lib.symbols_feed(self._sym, ctypes.byref(rec)))
        out = Record(
            type=RECORD_TYPES.get(rec.type, str(rec.type)),
            event=self._names[r.event] if 0 <= r.event < len(self._names) else None,
            cpu=r.cpu, time=r.time, pid=rec.sample_id.pid, tid=rec.sample_id.tid,
            raw=ctypes.string_at(rec.bytes, rec.size) if rec.bytes else b"")
        if rec.type == _lib.RECORD_SAMPLE:
            s = rec.sample()
            out.ip, out.addr, out.period = s.ip, s.addr, s.period
            out.callchain = [s.callchain[i] for i in range(s.callchain_nr)
                             if s.callchain[i] < _lib.CONTEXT_MAX]
            if self._sym:
                addresses = out.callchain if out.callchain else [out.ip]
                out.frames = [self._frame(out.pid, a) for a in addresses]
            fmt = self._formats[r.event] if 0 <= r.event < len(self._formats) else None
            if fmt is not None and s.raw:
                out.fields = fmt.decode(s.raw, s.raw_size)
        return out

    def close(self):
        if self._s:
            _lib.session_close(self._s)
            self._s = ctypes.c_void_p()
        for fmt in getattr(self, "_formats", []):
            if fmt is not None:
                fmt.close()
        if getattr(self, "_sym", None):
            _lib.symbols_free(self._sym)
            self._sym = ctypes.c_void_p()

    def __enter__(self):
        self.enable()
        return self

    def __exit__(self, *exc):
        if self._s:
            self.disable()
        return False

    def __del__(self):
        self.close()
