# SPDX-License-Identifier: MIT
"""The C library, loaded with ctypes, and the C structs perfev's Python side uses.

Only what the bindings need is declared. Structs whose first field is their
size (`sz`) may be declared up to the last field used: the library treats
the fields past `sz` as zero, which is what its ABI promises older callers.
tests/test_layout.py checks every offset and size here against the C
headers (it compiles a small program; installing needs no compiler).
"""

import ctypes
import ctypes.util
import os

c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_int32 = ctypes.c_int32
c_uint16 = ctypes.c_uint16
c_uint32 = ctypes.c_uint32
c_uint64 = ctypes.c_uint64
c_size_t = ctypes.c_size_t
c_bool = ctypes.c_bool
c_char_p = ctypes.c_char_p
c_void_p = ctypes.c_void_p
c_double = ctypes.c_double
POINTER = ctypes.POINTER

ERROR_MESSAGE_MAX = 1536

# Kernel ABI constants perfev mirrors (include/perfev/abi.h).
SAMPLE_IP = 1 << 0
SAMPLE_TID = 1 << 1
SAMPLE_TIME = 1 << 2
SAMPLE_ADDR = 1 << 3
SAMPLE_CALLCHAIN = 1 << 5
SAMPLE_CPU = 1 << 7
SAMPLE_PERIOD = 1 << 8
SAMPLE_RAW = 1 << 10
TYPE_TRACEPOINT = 2

PID_SELF = 0
PID_ANY = -1
CPU_ANY = -1
CPU_ALL = -2

INHERIT_NONE = 0
INHERIT_ALL = 1

RECORD_SAMPLE = 9
CONTEXT_MAX = 2 ** 64 - 4095  # callchain entries at or above are context markers

FRAME_KERNEL = 1 << 0
FRAME_INLINED = 1 << 1


def _installed_library():
    """The library `meson install` installed this package with (its full path), or None."""
    try:
        from ._install import LIBRARY
    except ImportError:  # the source tree, or a wheel: the library is found by name
        return None
    return LIBRARY


def _load():
    path = os.environ.get("PERFEV_LIBRARY")
    candidates = [path] if path else []
    installed = _installed_library()
    if installed:
        candidates.append(installed)
    found = ctypes.util.find_library("perfev")
    if found:
        candidates.append(found)
    candidates.append("libperfev.so.0")
    errors = []
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError as e:
            errors.append(f"{name}: {e}")
    raise ImportError(
        "perfev: cannot load libperfev (" + "; ".join(errors) + "); install perfev "
        "(meson install) or set PERFEV_LIBRARY to the path of libperfev.so.0")


lib = _load()


class Error(ctypes.Structure):
    """struct pev_error (caller-allocated)."""
    _fields_ = [
        ("code", c_int),
        ("sys_errno", c_int),
        ("before_syscall", c_bool),
        ("syscall", ctypes.c_char * 24),
        ("event", ctypes.c_char * 96),
        ("field", ctypes.c_char * 48),
        ("position", c_int),
        ("length", c_int),
        ("message", ctypes.c_char * ERROR_MESSAGE_MAX),
        ("hint", ctypes.c_char * ERROR_MESSAGE_MAX),
        ("reserved", c_uint64 * 8),
    ]


class Event(ctypes.Structure):
    """struct pev_event."""
    _fields_ = [
        ("type", c_uint32),
        ("bp_type", c_uint32),
        ("config", c_uint64),
        ("config1", c_uint64),
        ("config2", c_uint64),
        ("config3", c_uint64),
        ("name", c_char_p),
        ("pmu", c_char_p),
        ("reserved", c_uint64 * 4),
    ]


class Target(ctypes.Structure):
    """struct pev_target."""
    _fields_ = [
        ("pid", c_int32),
        ("cpu", c_int),
        ("cgroup", c_char_p),
        ("cpus", c_char_p),
        ("all_threads", c_bool),
        ("reserved", c_uint64 * 2),
    ]


class CounterListOpts(ctypes.Structure):
    """struct pev_counter_list_opts."""
    _fields_ = [
        ("sz", c_size_t),
        ("disabled", c_bool),
        ("enable_on_exec", c_bool),
        ("inherit", c_int),
    ]


class Count(ctypes.Structure):
    """struct pev_count."""
    _fields_ = [
        ("value", c_uint64),
        ("time_enabled", c_uint64),
        ("time_running", c_uint64),
        ("lost", c_uint64),
        ("id", c_uint64),
        ("scaled", c_uint64),
        ("running", c_double),
        ("counted", c_bool),
        ("reserved", c_uint64 * 4),
    ]


class SessionOpts(ctypes.Structure):
    """struct pev_session_opts."""
    _fields_ = [
        ("sz", c_size_t),
        ("events", c_void_p),
        ("nr_events", c_int),
        ("event_text", c_char_p),
        ("parse_opts", c_void_p),
        ("sample_period", c_uint64),
        ("sample_freq", c_uint64),
        ("sample_type", c_uint64),
        ("target", POINTER(Target)),
        ("data_pages", c_size_t),
        ("track", c_bool),
        ("event_sz", c_size_t),
    ]


class SampleId(ctypes.Structure):
    """struct pev_sample_id."""
    _fields_ = [
        ("pid", c_uint32),
        ("tid", c_uint32),
        ("time", c_uint64),
        ("id", c_uint64),
        ("stream_id", c_uint64),
        ("cpu", c_uint32),
        ("cpu_res", c_uint32),
        ("identifier", c_uint64),
    ]


class ReadData(ctypes.Structure):
    """struct pev_read_data."""
    _fields_ = [
        ("read_format", c_uint64),
        ("nr", c_uint64),
        ("time_enabled", c_uint64),
        ("time_running", c_uint64),
        ("words", POINTER(c_uint64)),
        ("nr_words", c_uint32),
    ]


class SamplePrefix(ctypes.Structure):
    """struct pev_sample, up to the call chain."""
    _fields_ = [
        ("fields", c_uint64),
        ("ip", c_uint64),
        ("addr", c_uint64),
        ("period", c_uint64),
        ("read", ReadData),
        ("callchain_nr", c_uint64),
        ("callchain", POINTER(c_uint64)),
        ("raw_size", ctypes.c_uint32),
        ("raw", c_void_p),
    ]


class AttrPrefix(ctypes.Structure):
    """The start of struct pev_attr: the event's type and config."""
    _fields_ = [("type", ctypes.c_uint32), ("size", ctypes.c_uint32), ("config", c_uint64)]


class SymbolsOpts(ctypes.Structure):
    """struct pev_symbols_opts."""
    _fields_ = [
        ("sz", c_size_t),
        ("flags", ctypes.c_uint),
        ("kallsyms", c_char_p),
        ("jit_dir", c_char_p),
        ("debug_dir", c_char_p),
        ("buildid_cache", c_char_p),
    ]


SYMBOLS_NO_SRCLINE = 1 << 1
SYMBOLS_PROC = 1 << 4


class SymbolPrefix(ctypes.Structure):
    """struct pev_symbol up to dso: its sz says the library fills no more."""
    _fields_ = [
        ("sz", c_size_t),
        ("status", c_int),
        ("flags", ctypes.c_uint),
        ("name", c_char_p),
        ("offset", c_uint64),
        ("start", c_uint64),
        ("size", c_uint64),
        ("dso", c_char_p),
    ]


class TpField(ctypes.Structure):
    """struct pev_tp_field (library-owned, read only)."""
    _fields_ = [
        ("name", c_char_p),
        ("type", c_char_p),
        ("offset", ctypes.c_uint32),
        ("size", ctypes.c_uint32),
        ("is_signed", c_bool),
        ("is_common", c_bool),
        ("is_string", c_bool),
        ("kind", c_int),
        ("elem_size", ctypes.c_uint32),
        ("nr_elems", ctypes.c_uint32),
    ]


TP_FIELD_INTEGER, TP_FIELD_POINTER, TP_FIELD_ARRAY, TP_FIELD_DATA_LOC, TP_FIELD_REL_LOC = range(5)


# struct pev_record: the header and sample_id, then a union of every record's
# fields (its size checked by tests/test_layout.py).
RECORD_UNION_SIZE = 328


class Record(ctypes.Structure):
    """struct pev_record."""
    _fields_ = [
        ("type", c_uint32),
        ("misc", c_uint16),
        ("size", c_uint16),
        ("bytes", c_void_p),
        ("id_fields", c_uint64),
        ("sample_id", SampleId),
        ("u", ctypes.c_uint8 * RECORD_UNION_SIZE),
    ]

    def sample(self):
        return SamplePrefix.from_buffer(self.u)


class SessionRecord(ctypes.Structure):
    """struct pev_session_record."""
    _fields_ = [
        ("rec", Record),
        ("event", c_int),
        ("ring", c_int),
        ("cpu", c_int),
        ("time", c_uint64),
    ]


class ProfileFrame(ctypes.Structure):
    """struct pev_profile_frame."""
    _fields_ = [
        ("address", c_uint64),
        ("symbol", c_char_p),
        ("offset", c_uint64),
        ("dso", c_char_p),
        ("file", c_char_p),
        ("line", c_uint32),
        ("flags", c_uint32),
        ("dso_offset", c_uint64),
        ("debug_name", c_char_p),
    ]


class ReplaySample(ctypes.Structure):
    """struct pev_replay_sample."""
    _fields_ = [
        ("event", c_void_p),
        ("record", POINTER(Record)),
        ("offset", c_uint64),
        ("comm", c_char_p),
        ("pid", c_int32),
        ("tid", c_int32),
        ("cpu", c_int32),
        ("time", c_uint64),
        ("period", c_uint64),
        ("cpumode", c_uint),
        ("frames", POINTER(ProfileFrame)),
        ("nr_frames", c_size_t),
        ("nr_addresses", c_size_t),
    ]


REPLAY_NO_INLINE = 1 << 1
REPLAY_TIMELINE = 1 << 6


class ReplayOpts(ctypes.Structure):
    """struct pev_replay_opts (sample_text, a callback, left NULL)."""
    _fields_ = [
        ("sz", c_size_t),
        ("flags", c_uint),
        ("symbols", c_void_p),
        ("symbols_opts", POINTER(SymbolsOpts)),
        ("sample_text", c_void_p),
        ("sample_text_ctx", c_void_p),
    ]


REPORT_NO_INLINE = 1 << 7
REPORT_GZIP = 1 << 15


class ReportOpts(ctypes.Structure):
    """struct pev_report_opts, every field (the table's are left zero: their defaults)."""
    _fields_ = [
        ("sz", c_size_t),
        ("sort", c_char_p),
        ("event", c_char_p),
        ("flags", c_uint),
        ("callgraph", c_int),
        ("percent_limit", c_double),
        ("callgraph_limit", c_double),
        ("title", c_char_p),
        ("width", c_uint),
        ("frame_height", c_uint),
        ("min_width", c_double),
        ("labels", c_uint),
        ("callgraph_print", c_int),
        ("callgraph_value", c_int),
        ("callgraph_print_limit", c_uint),
        ("max_stack", c_uint),
        ("comms", c_char_p),
        ("pids", c_char_p),
        ("tids", c_char_p),
        ("dsos", c_char_p),
        ("symbols", c_char_p),
        ("fields", c_char_p),
        ("max_entries", c_uint),
        ("host", c_char_p),
    ]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


strerror = _fn("pev_strerror", c_char_p, c_int)
error_name = _fn("pev_error_name", c_char_p, c_int)
last_error = _fn("pev_last_error", ctypes.POINTER(Error))

event_parse = _fn("pev_event_parse", c_int, c_char_p, c_void_p, POINTER(c_void_p), POINTER(Error))
event_list_count = _fn("pev_event_list_count", c_int, c_void_p)
event_list_at = _fn("pev_event_list_at", c_void_p, c_void_p, c_int)
event_list_free = _fn("pev_event_list_free", None, c_void_p)

cgroup_dir = _fn("pev_cgroup_dir", c_int, c_char_p, c_char_p, c_size_t, POINTER(Error))
cgroup_id = _fn("pev_cgroup_id", c_int, c_char_p, POINTER(c_uint64))
cgroup_container_id = _fn("pev_cgroup_container_id", c_int, c_char_p, c_char_p, c_size_t)

counter_name = _fn("pev_counter_name", c_char_p, c_void_p)
counter_list_open = _fn("pev_counter_list_open", c_int, c_void_p, POINTER(CounterListOpts),
                        POINTER(Target), POINTER(c_void_p), POINTER(Error))
counter_list_close = _fn("pev_counter_list_close", None, c_void_p)
counter_list_count = _fn("pev_counter_list_count", c_int, c_void_p)
counter_list_at = _fn("pev_counter_list_at", c_void_p, c_void_p, c_int)
counter_list_enable = _fn("pev_counter_list_enable", c_int, c_void_p)
counter_list_disable = _fn("pev_counter_list_disable", c_int, c_void_p)
counter_list_reset = _fn("pev_counter_list_reset", c_int, c_void_p)
counter_list_read = _fn("pev_counter_list_read", c_int, c_void_p, POINTER(Count), c_int)

tp_format_load = _fn("pev_tp_format_load", c_int, c_char_p, c_char_p, c_char_p,
                     POINTER(c_void_p), POINTER(Error))
tp_format_free = _fn("pev_tp_format_free", None, c_void_p)
tp_format_id = _fn("pev_tp_format_id", c_uint64, c_void_p)
tp_format_nr_fields = _fn("pev_tp_format_nr_fields", c_int, c_void_p)
tp_format_field_at = _fn("pev_tp_format_field_at", POINTER(TpField), c_void_p, c_int)
tp_field_int = _fn("pev_tp_field_int", c_int, POINTER(TpField), c_void_p, c_size_t,
                   POINTER(ctypes.c_int64))
tp_field_uint = _fn("pev_tp_field_uint", c_int, POINTER(TpField), c_void_p, c_size_t,
                    POINTER(c_uint64))
tp_field_bytes = _fn("pev_tp_field_bytes", c_int, POINTER(TpField), c_void_p, c_size_t,
                     POINTER(c_void_p), POINTER(c_size_t))

symbols_new = _fn("pev_symbols_new", c_int, POINTER(SymbolsOpts), POINTER(c_void_p),
                  POINTER(Error))
symbols_free = _fn("pev_symbols_free", None, c_void_p)
symbols_feed = _fn("pev_symbols_feed", c_int, c_void_p, c_void_p)
symbols_resolve = _fn("pev_symbols_resolve", c_int, c_void_p, ctypes.c_int32, c_uint64,
                      POINTER(SymbolPrefix))

session_open = _fn("pev_session_open", c_int, POINTER(SessionOpts), POINTER(c_void_p),
                   POINTER(Error))
session_close = _fn("pev_session_close", None, c_void_p)
session_enable = _fn("pev_session_enable", c_int, c_void_p)
session_disable = _fn("pev_session_disable", c_int, c_void_p)
session_nr_events = _fn("pev_session_nr_events", c_int, c_void_p)
session_counter = _fn("pev_session_counter", c_void_p, c_void_p, c_int)
counter_attr = _fn("pev_counter_attr", POINTER(AttrPrefix), c_void_p)
session_poll = _fn("pev_session_poll", c_int, c_void_p, c_int)
session_read = _fn("pev_session_read", c_int, c_void_p, POINTER(SessionRecord))
session_flush = _fn("pev_session_flush", c_int, c_void_p)

perfdata_open = _fn("pev_perfdata_open", c_int, c_char_p, c_uint, POINTER(c_void_p),
                    POINTER(Error))
perfdata_close = _fn("pev_perfdata_close", None, c_void_p)
replay_open = _fn("pev_replay_open", c_int, c_void_p, c_void_p, POINTER(c_void_p),
                  POINTER(Error))
replay_next = _fn("pev_replay_next", c_int, c_void_p, POINTER(ReplaySample), POINTER(Error))
replay_sample_cgroup = _fn("pev_replay_sample_cgroup", c_char_p, c_void_p, POINTER(ReplaySample))
replay_close = _fn("pev_replay_close", None, c_void_p)
replay_lost = _fn("pev_replay_lost", c_uint64, c_void_p)
replay_event_name = _fn("pev_replay_event_name", c_char_p, c_void_p, ctypes.c_char_p, c_size_t)

profile_load = _fn("pev_profile_load", c_int, c_void_p, POINTER(ReplayOpts), POINTER(c_void_p),
                   POINTER(Error))
profile_free = _fn("pev_profile_free", None, c_void_p)
profile_add_wall_clock = _fn("pev_profile_add_wall_clock", c_int, c_void_p, POINTER(c_uint))
profile_write_gecko = _fn("pev_profile_write_gecko", c_int, c_void_p, c_void_p,
                          POINTER(ReportOpts), POINTER(Error))
profile_write_speedscope = _fn("pev_profile_write_speedscope", c_int, c_void_p, c_void_p,
                               POINTER(ReportOpts), POINTER(Error))
profile_write_otlp = _fn("pev_profile_write_otlp", c_int, c_void_p, c_void_p,
                         POINTER(ReportOpts), POINTER(Error))
profile_time = _fn("pev_profile_time", c_int, c_void_p, POINTER(c_uint64), POINTER(c_uint64))
profile_set_time = _fn("pev_profile_set_time", c_int, c_void_p, c_uint64, c_uint64)

# The C library's stdio, for the FILE * the writers take (errno kept for OSError).
libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
fopen = libc.fopen
fopen.restype = c_void_p
fopen.argtypes = [c_char_p, c_char_p]
fclose = libc.fclose
fclose.restype = c_int
fclose.argtypes = [c_void_p]


def text(b):
    """A C string as str (None for NULL), undecodable bytes escaped."""
    return None if b is None else b.decode("utf-8", "backslashreplace")
