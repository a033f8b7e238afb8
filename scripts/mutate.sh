#!/bin/sh
# Mutation run over perf.data files that carry tracing data: byte-flipped and
# truncated copies of tests/fixtures/tracing/sched.data (perf record -e
# sched:sched_switch, sched_process_exec/fork/exit) go through
# `perfev report` and `perfev script`, each run under a timeout. A run that
# ends on a signal (or with 128+N from one) or times out is a failure; any
# exit status of perfev's own (0, 1, 2) is fine.
#   scripts/mutate.sh [COUNT [BUILD_DIR [SEED]]]
# COUNT defaults to 2000, BUILD_DIR to build, SEED to 1. Mutation I of seed S
# is the same file on every machine; a failure prints it as S:I and keeps
# the file in BUILD_DIR/mutate-failures/. MUTATE_JOBS runs that many at once
# (default: the CPUs); MUTATE_TIMEOUT is the seconds one run may take (10).
# To write one mutation without running anything:
#   scripts/mutate.sh --write S:I OUT.data
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--write" ]; then
	[ $# -eq 3 ] || { echo "usage: scripts/mutate.sh --write SEED:INDEX OUT.data" >&2; exit 2; }
	mode=write
	shift
else
	mode=run
fi
case $mode:${1:-2000}:${3:-1} in
run:*[!0-9:]* | run::*)
	echo "mutate.sh: COUNT and SEED must be whole numbers, not '${1:-}' and '${3:-}'" >&2
	exit 2
	;;
esac
if [ "$mode" = run ] && [ ! -x "${2:-build}/perfev" ]; then
	echo "mutate.sh: no ${2:-build}/perfev; build it first with ./scripts/build.sh ${2:-build}" >&2
	exit 2
fi

exec python3 - "$mode" "$@" <<'PY'
import concurrent.futures, os, random, struct, subprocess, sys, tempfile

SOURCE = 'tests/fixtures/tracing/sched.data'
TRACING_DATA = 1
BYTES = [0, 0xff, 0x7f, 0x80, 0x20, 0x0a, 0x09, 0x3a, 0x3b, 0x22, 0x28, 0x29, 0x5b, 0x5d] + \
        list(b'0123456789')


def sections(d):
    """(start, end) of the tracing data and of the data section."""
    data_off, data_size = struct.unpack_from('<QQ', d, 40)
    feats = int.from_bytes(d[72:104], 'little')
    table, tracing = data_off + data_size, None
    for bit in range(256):
        if feats >> bit & 1:
            off, size = struct.unpack_from('<QQ', d, table)
            table += 16
            if bit == TRACING_DATA:
                tracing = (off, off + size)
    if tracing is None:
        sys.exit(f'mutate.sh: {SOURCE} has no TRACING_DATA feature')
    return tracing, (data_off, data_off + data_size)


def mutate(d, seed, index):
    """Mutation `index` of `seed`: the bytes and what was done."""
    r = random.Random(f'perfev-mutate:{seed}:{index}')
    tracing, data = sections(d)
    m = bytearray(d)
    kind = r.choices(['tracing', 'records', 'anywhere', 'truncate'], [50, 15, 15, 20])[0]
    where = {'tracing': tracing, 'records': data, 'anywhere': (0, len(d)),
             'truncate': tracing}[kind]
    changes = []
    for _ in range(r.randint(1, 4) if kind != 'truncate' else r.randint(0, 1)):
        at = r.randrange(*where)
        m[at] = r.choice(BYTES) if r.random() < 0.4 else m[at] ^ r.randint(1, 255)
        changes.append(f'{at:#x}={m[at]:#04x}')
    what = f'{kind}: ' + (', '.join(changes) or 'no change')
    if kind == 'truncate':
        size = r.randrange(len(d))
        m = m[:size]
        what += f', cut to {size} bytes'
    return bytes(m), what


def run_one(perfev, timeout, seed, index, d, scratch):
    m, what = mutate(d, seed, index)
    path = os.path.join(scratch, f'{seed}-{index}.data')
    with open(path, 'wb') as f:
        f.write(m)
    failures = []
    for cmd in (['report', '--stdio'], ['script']):
        try:
            p = subprocess.run([perfev] + cmd + ['-i', path], stdin=subprocess.DEVNULL,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               timeout=timeout)
            if p.returncode < 0 or p.returncode > 128:
                sig = -p.returncode if p.returncode < 0 else p.returncode - 128
                tail = p.stderr.decode(errors='replace').strip().splitlines()[-3:]
                failures.append(f'perfev {cmd[0]} ended on signal {sig}: ' + ' | '.join(tail))
        except subprocess.TimeoutExpired:
            failures.append(f'perfev {cmd[0]} hung (killed after {timeout} s)')
    if not failures:
        os.unlink(path)
    return index, what, failures, path


def main():
    d = open(SOURCE, 'rb').read()
    if sys.argv[1] == 'write':
        seed, _, index = sys.argv[2].partition(':')
        m, what = mutate(d, int(seed), int(index))
        open(sys.argv[3], 'wb').write(m)
        print(f'{sys.argv[3]}: mutation {seed}:{index} of {SOURCE} ({what})')
        return 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    build = sys.argv[3] if len(sys.argv) > 3 else 'build'
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    perfev = os.path.abspath(os.path.join(build, 'perfev'))
    jobs = int(os.environ.get('MUTATE_JOBS', os.cpu_count() or 1))
    timeout = float(os.environ.get('MUTATE_TIMEOUT', '10'))
    keep = os.path.join(build, 'mutate-failures')
    bad = 0
    with tempfile.TemporaryDirectory(prefix='perfev-mutate.') as scratch, \
            concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        runs = [pool.submit(run_one, perfev, timeout, seed, i, d, scratch) for i in range(count)]
        for fut in runs:
            index, what, failures, path = fut.result()
            if not failures:
                continue
            bad += 1
            os.makedirs(keep, exist_ok=True)
            kept = os.path.join(keep, f'{seed}-{index}.data')
            os.replace(path, kept)
            for f in failures:
                print(f'mutation {seed}:{index} ({what}): {f}')
            print(f'  kept as {kept}; rewrite it with: scripts/mutate.sh --write {seed}:{index} '
                  f'OUT.data')
    print(f'mutate.sh: {count} mutations of {SOURCE} (seed {seed}) through perfev report and '
          f'perfev script: {bad} failed')
    return 1 if bad else 0


sys.exit(main())
PY
