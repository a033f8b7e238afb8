# SPDX-License-Identifier: MIT
"""perfev: Linux perf_event_open from Python, over libperfev.

    perfev.Counters("task-clock,{cpu-clock,page-faults}")  counting, groups
    perfev.Counters("cpu-clock", cgroup="system.slice")   a cgroup's tasks, every CPU
    perfev.Session("task-clock", freq=1000)                sampling records
    perfev.samples("perf.data")                            symbolized samples
    perfev.write_gecko("perf.data", "profile.json.gz")     Firefox Profiler file
    perfev.write_speedscope("perf.data", "profile.json")   speedscope file
    perfev.write_otlp("perf.data", "profile.otlp.pb")      OpenTelemetry profiles (OTLP)
    perfev.PerfevError and its subclasses                  typed errors

Every object that holds descriptors is a context manager and has close().
"""

from . import errors
from .counters import Count, Counters, cgroup_dir, container_id
from .errors import PerfevError
from .perfdata import samples, write_gecko, write_otlp, write_speedscope
from .sampling import Record, Session

__all__ = ["Count", "Counters", "PerfevError", "Record", "Session", "cgroup_dir",
           "container_id", "errors", "samples", "write_gecko", "write_otlp", "write_speedscope"]
__version__ = "0.2.0"
