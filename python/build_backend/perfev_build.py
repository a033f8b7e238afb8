# SPDX-License-Identifier: MIT
"""perfev's own PEP 517 build backend: a wheel or an sdist of python/ with the
standard library alone, so `pip install ./python` and `pip wheel ./python`
need no setuptools and no package index (a build machine without network).

The package is pure Python: the wheel holds perfev/*.py and its .dist-info
(METADATA, WHEEL, RECORD), tagged py3-none-any; the sdist holds what builds
that wheel again. Project metadata comes from pyproject.toml's [project]
table (tomllib, Python 3.11; a minimal reader of the few keys used here on
older interpreters).
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "perfev"
# What an sdist carries besides the package: enough to build the wheel again.
SDIST_FILES = ["pyproject.toml", "README.md", "build_backend/perfev_build.py"]


def _project():
    """pyproject.toml's [project] table."""
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        data = f.read()
    try:
        import tomllib
        return tomllib.loads(data.decode())["project"]
    except ImportError:
        return _read_project_table(data.decode())


def _read_project_table(text):
    """The [project] table's string, list and inline-table values (before tomllib)."""
    project, section = {}, None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
            continue
        m = re.match(r'([A-Za-z0-9_-]+)\s*=\s*(.+)$', line)
        if section != "project" or not m:
            continue
        key, value = m.groups()
        if value.startswith("["):
            project[key] = re.findall(r'"([^"]*)"', value)
        elif value.startswith("{"):
            project[key] = dict(re.findall(r'(\w+)\s*=\s*"([^"]*)"', value))
        else:
            project[key] = value.strip('"')
    return project


def _metadata(project):
    lines = [
        "Metadata-Version: 2.1",
        "Name: " + project["name"],
        "Version: " + project["version"],
        "Summary: " + project.get("description", ""),
        "Requires-Python: " + project.get("requires-python", ">=3"),
        "License: " + project.get("license", {}).get("text", ""),
    ]
    lines += ["Classifier: " + c for c in project.get("classifiers", [])]
    readme = os.path.join(ROOT, project.get("readme", "README.md"))
    body = ""
    if os.path.exists(readme):
        lines.append("Description-Content-Type: text/markdown")
        with open(readme, encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _package_files():
    """(path in the archive, path on disk) of every module, sorted."""
    pkg = os.path.join(ROOT, PACKAGE)
    return [(PACKAGE + "/" + n, os.path.join(pkg, n))
            for n in sorted(os.listdir(pkg)) if n.endswith(".py")]


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "%s,sha256=%s,%d" % (name, digest.decode(), len(data))


def _dist_name(project):
    return re.sub(r"[-_.]+", "_", project["name"]).lower() + "-" + project["version"]


def _zip_write(z, name, data):
    # A fixed date: the same tree gives the same wheel, byte for byte.
    info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    z.writestr(info, data)


def _build_wheel(wheel_directory, editable):
    project = _project()
    dist = _dist_name(project)
    info = dist + ".dist-info"
    wheel_name = dist + "-py3-none-any.whl"
    files = []
    if editable:
        # An editable install: a .pth line that puts python/ on sys.path.
        files.append((PACKAGE + "_editable.pth", (ROOT + "\n").encode()))
    else:
        for name, path in _package_files():
            with open(path, "rb") as f:
                files.append((name, f.read()))
    files.append((info + "/METADATA", _metadata(project).encode()))
    files.append((info + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: perfev_build\n"
                  b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = [_record_line(n, d) for n, d in files] + [info + "/RECORD,,"]
    files.append((info + "/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w") as z:
        for name, data in files:
            _zip_write(z, name, data)
    return wheel_name


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 517: writes perfev-VERSION-py3-none-any.whl; returns its name."""
    return _build_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel that points the interpreter at this tree."""
    return _build_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    """PEP 517: writes perfev-VERSION.tar.gz; returns its name."""
    project = _project()
    base = re.sub(r"[-_.]+", "_", project["name"]).lower() + "-" + project["version"]
    members = [(base + "/PKG-INFO", _metadata(project).encode())]
    for rel in SDIST_FILES:
        with open(os.path.join(ROOT, rel), "rb") as f:
            members.append((base + "/" + rel, f.read()))
    for name, path in _package_files():
        with open(path, "rb") as f:
            members.append((base + "/" + name, f.read()))
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for member, data in members:
            ti = tarfile.TarInfo(member)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, int(time.time())
            t.addfile(ti, io.BytesIO(data))
    return name


def get_requires_for_build_wheel(config_settings=None):
    """Nothing: the standard library builds the wheel."""
    return []


def get_requires_for_build_sdist(config_settings=None):
    """Nothing: the standard library builds the sdist."""
    return []


def get_requires_for_build_editable(config_settings=None):
    """Nothing: the standard library builds the editable wheel."""
    return []
