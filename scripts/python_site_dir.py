#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""python_site_dir.py PREFIX - where `meson install` puts the perfev Python
package for the interpreter running this script: the first of the
interpreter's own site-packages directories under PREFIX (Debian's
/usr/local/lib/python3.X/dist-packages for /usr/local, /usr/lib/python3/
dist-packages for /usr), so that `import perfev` works with no PYTHONPATH;
for any other prefix, PREFIX/lib/python3.X/site-packages (on sys.path only
through PYTHONPATH, which the installed README says)."""
import os
import site
import sys
import sysconfig

prefix = os.path.normpath(sys.argv[1])
for d in site.getsitepackages():
    # /usr/local/lib/... is under /usr too: the directory must be PREFIX/lib*/.
    if os.path.normpath(d).startswith(os.path.join(prefix, "lib")):
        print(d)
        break
else:
    print(sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix}))
