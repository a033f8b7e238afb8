# SPDX-License-Identifier: MIT
"""pytest setup: the library under test is $PERFEV_LIBRARY (the build's
libperfev.so.0 when run by meson test); the package is ../perfev."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
