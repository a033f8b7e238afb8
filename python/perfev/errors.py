# SPDX-License-Identifier: MIT
"""Typed errors: every failure of libperfev as a PerfevError subclass named
after perfev's code (PermissionDenied, ProcessNotFound, EventNotSupported, ...),
carrying the library's message (what failed on this machine) and hint (what
to do). Subclasses also derive from the matching built-in exception where
there is one (PermissionError, ProcessLookupError, ValueError, MemoryError).
"""

import errno as _errno

from . import _lib

# perfev's own codes (include/perfev/error.h) sit below -4000.
_BUILTIN_BY_ERRNO = {
    _errno.EPERM: PermissionError,
    _errno.EACCES: PermissionError,
    _errno.ESRCH: ProcessLookupError,
    _errno.EINVAL: ValueError,
    _errno.ENOMEM: MemoryError,
}


class PerfevError(Exception):
    """A libperfev failure.

    code: the negative PEV_E* code; name: its stable name (pev_error_name);
    errno: the kernel's errno, 0 if none; message, hint: perfev's explanation
    and fix ("" when the call gives none); event, field: what it was about.
    """

    def __init__(self, code, message="", hint="", errno=0, event="", field="", position=-1):
        message = message or _lib.text(_lib.strerror(code))
        # First: OSError's constructor (PermissionError, ...) resets errno.
        super().__init__(message + (("\nhint: " + hint) if hint else ""))
        self.code = code
        self.name = _lib.text(_lib.error_name(code))
        self.errno = errno
        self.message = message
        self.hint = hint
        self.event = event
        self.field = field
        self.position = position

    def __str__(self):
        return self.message + (("\nhint: " + self.hint) if self.hint else "")


_classes = {}


def error_class(code):
    """The PerfevError subclass for a code (one class per name, made once)."""
    name = _lib.text(_lib.error_name(code)) or "Unexpected"
    cls = _classes.get(name)
    if cls is None:
        bases = (PerfevError,)
        builtin = _BUILTIN_BY_ERRNO.get(-code)
        if builtin is None and name in ("ParseError", "BadArgument"):
            builtin = ValueError
        if builtin is not None:
            bases += (builtin,)
        cls = type(name, bases, {"__doc__": f"perfev's {name} ({_lib.text(_lib.strerror(code))})."})
        cls.__module__ = __name__
        _classes[name] = cls
        globals()[name] = cls
    return cls


def from_code(code, err=None):
    """The exception for a negative code and, if given, a filled struct pev_error.

    Without one, the library's diagnosis of this thread's last failed call
    (pev_last_error: every call that takes no struct pev_error leaves one) when
    it is of this code.
    """
    cls = error_class(code)
    if err is None:
        err = _lib.last_error().contents
    if err.code == code:
        return cls(code, _lib.text(err.message), _lib.text(err.hint), err.sys_errno,
                   _lib.text(err.event), _lib.text(err.field), err.position)
    return cls(code, errno=-code if -4000 < code < 0 else 0)


def check(code, err=None):
    """Returns code when it is not negative; raises the typed error otherwise."""
    if code < 0:
        raise from_code(code, err)
    return code


# The names most programs catch, made up front (the rest appear on first use).
for _code in (-_errno.EPERM, -_errno.EACCES, -_errno.ESRCH, -_errno.ENOENT, -_errno.EINVAL,
              -_errno.EBUSY, -_errno.EMFILE, -_errno.E2BIG, -_errno.EOPNOTSUPP, -_errno.ENODEV):
    error_class(_code)
