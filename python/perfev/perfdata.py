# SPDX-License-Identifier: MIT
"""perf.data replay: a file from perf record or perfev record, sample by
sample, symbolized (functions, files, inline frames) by libperfev."""

import ctypes

from . import _lib
from .errors import check


def samples(path):
    """Yields every sample of the perf.data at path, in time order, as a dict:

    event, comm, pid, tid, cpu, time, period; symbol, dso, address (the
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
                "stack": stack,
            }
    finally:
        if rp:
            _lib.replay_close(rp)
        _lib.perfdata_close(pd)
