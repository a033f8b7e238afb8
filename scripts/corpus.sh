#!/bin/sh
# Runs a sanitized perfev over every perf.data file and pipe stream of the
# fuzz corpora: fuzz/corpus/perfdata/ (perf's and perfev's recordings, the
# malformed corpus) and any other corpus file that starts with perf's magic.
# Each file goes through `perfev report --stdio`, `perfev script` and
# `perfev diff FILE FILE`, a pipe stream also through report and script
# reading a real pipe, each run under a timeout. A sanitizer report
# (AddressSanitizer, LeakSanitizer, UndefinedBehaviorSanitizer), a run ended
# by a signal (or with 128+N from one) or a timeout fails it; perfev's own
# statuses (0, 1, 2) are fine: most of these files are meant to be refused.
#   scripts/corpus.sh [BUILD_DIR]
# BUILD_DIR defaults to build-asan, set up as .ci/run sets it up:
#   CC=clang ./scripts/build.sh build-asan -Db_sanitize=address,undefined -Db_lundef=false
# ASAN_OPTIONS and UBSAN_OPTIONS default to stopping at the first report.
# CORPUS_JOBS runs that many at once (default: the CPUs); CORPUS_TIMEOUT is
# the seconds one run may take (30).
set -eu
cd "$(dirname "$0")/.."

build=${1:-build-asan}
if [ ! -x "$build/perfev" ]; then
	echo "corpus.sh: no $build/perfev; build it first with ./scripts/build.sh $build" >&2
	exit 2
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

exec python3 - "$build/perfev" <<'PY'
import concurrent.futures, os, subprocess, sys, time

MAGIC = b'PERFILE2'
REPORTS = ('runtime error:', 'ERROR: AddressSanitizer', 'ERROR: LeakSanitizer',
           'SUMMARY: UndefinedBehaviorSanitizer', 'SUMMARY: AddressSanitizer')


def corpus_files():
    """fuzz/corpus/perfdata/*, and files of the other corpora that start with perf's magic."""
    files = []
    for d in sorted(os.listdir('fuzz/corpus')):
        top = os.path.join('fuzz/corpus', d)
        for name in sorted(os.listdir(top)):
            path = os.path.join(top, name)
            if not os.path.isfile(path):
                continue
            with open(path, 'rb') as f:
                head = f.read(16)
            if d == 'perfdata' or head[:8] == MAGIC:
                files.append((path, head[:8] == MAGIC and head[8:16] == (16).to_bytes(8, 'little')))
    return files


def run(perfev, timeout, args, feed=None):
    """One run (feed: bytes for its standard input, a pipe): None when clean, else why not."""
    shown = ' '.join(args) + (' (through a pipe)' if feed is not None else '')
    try:
        p = subprocess.run([perfev] + args, input=feed,
                           stdin=subprocess.DEVNULL if feed is None else None,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f'{shown}: hung (killed after {timeout:.0f} s)'
    err = p.stderr.decode(errors='replace')
    if any(r in err for r in REPORTS):
        lines = [l for l in err.splitlines() if any(r in l for r in REPORTS) or '#' in l[:8]]
        return f'{shown}: sanitizer report:\n    ' + '\n    '.join(lines[:12])
    if p.returncode < 0 or p.returncode > 2:
        tail = ' | '.join(err.strip().splitlines()[-3:])
        return f'{shown}: exit status {p.returncode}: {tail}'
    return None


def check(perfev, timeout, path, pipe):
    runs = [['report', '--stdio', '-i', path], ['script', '-i', path], ['diff', path, path]]
    failures = [f for f in (run(perfev, timeout, a) for a in runs) if f]
    if pipe:
        with open(path, 'rb') as f:
            data = f.read()
        for a in (['report', '--stdio', '-i', '-'], ['script', '-i', '-']):
            f = run(perfev, timeout, a, data)
            if f:
                failures.append(f'{path}: {f}')
    return path, failures


def main():
    perfev = os.path.abspath(sys.argv[1])
    jobs = int(os.environ.get('CORPUS_JOBS', os.cpu_count() or 1))
    timeout = float(os.environ.get('CORPUS_TIMEOUT', '30'))
    files = corpus_files()
    start = time.monotonic()
    bad = 0
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for path, failures in pool.map(lambda f: check(perfev, timeout, *f), files):
            if failures:
                bad += 1
                print(f'{path}:')
                for f in failures:
                    print(f'  {f}')
    runs = 3 * len(files) + 2 * sum(1 for _, pipe in files if pipe)
    print(f'corpus.sh: {len(files)} files of fuzz/corpus ({runs} runs of {perfev}) in '
          f'{time.monotonic() - start:.0f} s: {bad} failed')
    return 1 if bad else 0


sys.exit(main())
PY
