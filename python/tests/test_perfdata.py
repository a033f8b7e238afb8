# SPDX-License-Identifier: MIT
import os
import subprocess

import pytest

import perfev


@pytest.fixture(scope="module")
def recording(tmp_path_factory):
    """A perf.data of the suite's report_work (known hot functions) by perfev record."""
    perfev_bin = os.environ.get("PERFEV_BIN")
    work = os.environ.get("PERFEV_REPORT_WORK")
    if not perfev_bin or not work:
        pytest.skip("PERFEV_BIN and PERFEV_REPORT_WORK are not set (run through meson test)")
    path = tmp_path_factory.mktemp("perfdata") / "perf.data"
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)  # a sanitizer runtime preloaded for the library, not for perfev
    # cpu-clock: the default is cycles where a hardware PMU is (the arm64 lab).
    subprocess.run([perfev_bin, "record", "-q", "-g", "-e", "cpu-clock", "-F", "2000", "-o",
                    str(path), work, "300"],
                   check=True, env=env)
    return path


def test_samples_are_symbolized(recording):
    rows = list(perfev.samples(recording))
    assert len(rows) > 100
    mine = [r for r in rows if r["comm"] == "report_work"]
    hot = {}
    for r in mine:
        hot[r["symbol"]] = hot.get(r["symbol"], 0) + r["period"]
    top = max(hot, key=hot.get)
    assert top == "report_work_a", hot
    r = next(r for r in mine if r["symbol"] == "report_work_a")
    assert r["event"] == "cpu-clock" and r["pid"] > 0 and r["time"] > 0
    assert r["dso"].endswith("report_work")
    # The call stack reaches main through the caller, leaf first.
    names = [f["symbol"] for f in r["stack"]]
    # (report_work_a may hold an inlined helper: its frame comes first, marked inlined.)
    outer = [f["symbol"] for f in r["stack"] if not f["inlined"]]
    assert outer[0] == "report_work_a" and "main" in names


def test_pandas_in_two_lines(recording):
    pandas = pytest.importorskip("pandas")
    df = pandas.DataFrame(perfev.samples(recording))
    assert df.groupby("symbol").period.sum().idxmax() == "report_work_a"


def test_unreadable_files(tmp_path):
    with pytest.raises(FileNotFoundError if False else perfev.PerfevError) as e:
        list(perfev.samples(tmp_path / "missing.data"))
    assert e.value.errno == 2
    bad = tmp_path / "bad.data"
    bad.write_bytes(b"PERFILE2" + b"\0" * 100)
    with pytest.raises(perfev.PerfevError) as e:
        list(perfev.samples(bad))
    assert e.value.message
