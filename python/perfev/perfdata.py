# SPDX-License-Identifier: MIT
"""perf.data replay: a file from perf record or perfev record, sample by
sample, symbolized (functions, files, inline frames) by libperfev."""

import ctypes
import errno
import os

from . import _lib, errors
from .errors import check

_BADARG = -4001  # PEV_EBADARG (include/perfev/error.h)


def samples(path):
    """Yields every sample of the perf.data at path, in time order, as a dict:

    event, comm, pid, tid, cpu, time, period; cgroup (its path, for a file
    recorded with --all-cgroups, else None); symbol, dso, address (the
    sampled function, None when unresolved); stack: the call stack, leaf
    first, as a list of dicts (symbol, dso, address, file, line, inlined,
    kernel). Made for tables: pandas.DataFrame(perfev.samples("perf.data")).
    Raises a PerfevError subclass when the file cannot be read.
    """
    pd = ctypes.c_void_p()
    rp = ctypes.c_void_p()
    err = _lib.Error()
    check(_lib.perfdata_open(str(path).encode(), 0, ctypes.byref(pd), ctypes.byref(err)), err)
    try:
        check(_lib.replay_open(pd, None, ctypes.byref(rp), ctypes.byref(err)), err)
        s = _lib.ReplaySample()
        names = {}
        buf = ctypes.create_string_buffer(256)
        while check(_lib.replay_next(rp, ctypes.byref(s), ctypes.byref(err)), err) == 1:
            ev = s.event
            if ev not in names:
                names[ev] = _lib.text(_lib.replay_event_name(ev, buf, len(buf)))
            stack = []
            for i in range(s.nr_frames):
                f = s.frames[i]
                stack.append({
                    "symbol": _lib.text(f.symbol), "dso": _lib.text(f.dso),
                    "address": f.address, "file": _lib.text(f.file), "line": f.line,
                    "inlined": bool(f.flags & _lib.FRAME_INLINED),
                    "kernel": bool(f.flags & _lib.FRAME_KERNEL),
                })
            # The sampled function: the first frame that is not inlined into another.
            top = next((f for f in stack if not f["inlined"]), stack[0] if stack else None)
            yield {
                "event": names[ev], "comm": _lib.text(s.comm), "pid": s.pid, "tid": s.tid,
                "cpu": s.cpu, "time": s.time, "period": s.period,
                "symbol": top["symbol"] if top else None, "dso": top["dso"] if top else None,
                "address": top["address"] if top else 0,
                "cgroup": _lib.text(_lib.replay_sample_cgroup(rp, ctypes.byref(s))),
                "stack": stack,
            }
    finally:
        if rp:
            _lib.replay_close(rp)
        _lib.perfdata_close(pd)


def _load_profile(path, inline):
    """The perf.data at path as a struct pev_profile keeping its timeline
    (every sample in time order), or a raised PerfevError. Free it with
    _lib.profile_free."""
    pd = ctypes.c_void_p()
    prof = ctypes.c_void_p()
    err = _lib.Error()
    check(_lib.perfdata_open(os.fsencode(path), 0, ctypes.byref(pd), ctypes.byref(err)), err)
    try:
        o = _lib.ReplayOpts()
        o.sz = ctypes.sizeof(o)
        o.flags = _lib.REPLAY_TIMELINE | (0 if inline else _lib.REPLAY_NO_INLINE)
        check(_lib.profile_load(pd, ctypes.byref(o), ctypes.byref(prof), ctypes.byref(err)), err)
    finally:
        _lib.perfdata_close(pd)
    return prof


def _write(prof, writer, out_path, event, flags, host=None):
    """Writes prof to out_path with a pev_profile_write_* writer: gzip-compressed
    when out_path ends in ".gz"."""
    name = os.fsencode(out_path)
    o = _lib.ReportOpts()
    o.sz = ctypes.sizeof(o)
    o.event = None if event is None else str(event).encode()
    o.host = None if host is None else str(host).encode()
    o.flags = flags | (_lib.REPORT_GZIP if name.endswith(b".gz") else 0)
    err = _lib.Error()
    created = not os.path.lexists(name)
    f = _lib.fopen(name, b"wb")
    if not f:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e), out_path)
    try:
        rc = writer(prof, f, ctypes.byref(o), ctypes.byref(err))
    finally:
        closed = _lib.fclose(f)
        e = ctypes.get_errno()
    if rc < 0 or closed != 0:
        if created:  # no half-written profile left behind (an existing file, a device, stays)
            try:
                os.unlink(name)
            except OSError:
                pass
        check(rc, err)  # the writer's own error first: a failed close then says no more
        raise OSError(e, os.strerror(e), out_path)


def write_gecko(path, out_path, event=None, inline=True):
    """Writes the perf.data at path to out_path in the Firefox Profiler's
    Gecko format (JSON, version 24, symbolized), which
    https://profiler.firefox.com opens: a thread per recorded thread with its
    samples in time order, the CPU time each stands for, off-CPU intervals and
    markers (lost records, throttling, exec, thread start and end). Frames are
    "function (in library)"; inline=False leaves inlined functions out.

    event: only that event's samples (by name, e.g. "cpu-clock"; default:
    every event's). out_path ending in ".gz" is gzip-compressed, as the
    Profiler opens it; a file out_path names is replaced, one the call made
    is removed on failure. Raises a PerfevError subclass when the file
    cannot be read or written (NotFound: no event of that name), OSError
    when out_path cannot be opened or closed.
    """
    prof = _load_profile(path, inline)
    try:
        _write(prof, _lib.profile_write_gecko, out_path, event,
               0 if inline else _lib.REPORT_NO_INLINE)
    finally:
        _lib.profile_free(prof)


def write_speedscope(path, out_path, event=None, wall_clock=False, inline=True):
    """Writes the perf.data at path to out_path in speedscope's format (JSON),
    which https://www.speedscope.app opens: the frames shared by all profiles
    (function, file, line) and one sampled profile per thread of one event,
    its stacks root first in time order with their weights in the event's
    unit. An off-CPU sample's stack ends in the frame "[off-cpu]";
    inline=False leaves inlined functions out.

    event: the event to write, by name (default: the first). wall_clock=True
    writes the threads' wall-clock time instead, as the event "wall-clock":
    on-CPU samples weighed by the time they stand for, off-CPU ones by the
    time waited; it needs a recording of perfev record --off-cpu
    (EventNotFound without off-CPU samples) and no event (BadArgument).
    out_path ending in ".gz" is gzip-compressed, as speedscope opens it;
    a file out_path names is replaced, one the call made is removed on failure.
    Raises a PerfevError subclass when the file cannot be read or written
    (NotFound: no event of that name), OSError when out_path cannot be
    opened or closed.
    """
    if wall_clock and event is not None:
        raise errors.error_class(_BADARG)(
            _BADARG, "write_speedscope: event and wall_clock=True exclude each other",
            "the wall-clock view is an event of its own: leave event out")
    prof = _load_profile(path, inline)
    try:
        if wall_clock:
            rc = _lib.profile_add_wall_clock(prof, None)
            if rc == -errno.ENOENT:  # PEV_ENOENT: no off-CPU event to weigh waits by
                raise errors.error_class(rc)(
                    rc, f"write_speedscope: wall_clock=True: '{os.fsdecode(path)}' has no "
                    "off-CPU samples",
                    "record them with 'perfev record --off-cpu'", errno=errno.ENOENT)
            check(rc)
            event = "wall-clock"
        _write(prof, _lib.profile_write_speedscope, out_path, event,
               0 if inline else _lib.REPORT_NO_INLINE)
    finally:
        _lib.profile_free(prof)


def write_otlp(path, out_path, event=None, inline=True, host=None):
    """Writes the perf.data at path to out_path as OpenTelemetry profiles
    (OTLP, signal version v1development): one serialized
    ExportProfilesServiceRequest, the body an OTLP/HTTP receiver takes at
    /v1development/profiles. One profile per event (cpu/nanoseconds for time
    events, off_cpu/nanoseconds for off-CPU ones, the event's name/count else),
    each sample with its observations' weights and UTC times, the attributes
    thread.name, thread.id, process.pid and cpu.logical_number, locations
    with their inline chains and profile.frame.type, mappings with their GNU
    build ids (docs/REPORT.md). inline=False leaves inlined functions out.

    event: only that event (by name; default: every event). host: the
    resource's host.name (default: this machine's name; "" for none). Times
    are UTC where the file ties its clock to the wall clock (perf record -k),
    else counted back from the file's modification time, as perfev report
    does. out_path ending in ".gz" is gzip-compressed; a file out_path names
    is replaced, one the call made is removed on failure. Raises a
    PerfevError subclass when the file cannot be read or written (NotFound:
    no event of that name; Unsupported: libprotobuf-c is missing), OSError
    when out_path cannot be opened or closed.
    """
    prof = _load_profile(path, inline)
    try:
        start, duration = ctypes.c_uint64(), ctypes.c_uint64()
        check(_lib.profile_time(prof, ctypes.byref(start), ctypes.byref(duration)))
        if not start.value:
            st = os.stat(path)
            if os.path.isfile(path) and st.st_mtime_ns > duration.value:
                check(_lib.profile_set_time(prof, st.st_mtime_ns - duration.value,
                                            duration.value))
        _write(prof, _lib.profile_write_otlp, out_path, event,
               0 if inline else _lib.REPORT_NO_INLINE, host)
    finally:
        _lib.profile_free(prof)
