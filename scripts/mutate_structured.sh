#!/bin/sh
# Structure-aware mutation run over real recordings: mutants of the seeds in
# tests/fixtures/mutate/ (scripts/make_mutate_seeds.sh records them with
# perfev and perf: -g, --call-graph dwarf, a {cpu-clock,page-faults}:S
# group, tracepoints, -a, pipe mode) written by BUILD_DIR/fuzz/perfdata_mutate
# (fuzz/perfdata_mutator.c: sample fields by sample_type, read values,
# callchains, branch stacks, DWARF user stacks and registers, attributes and
# ids, records, feature sections) go through `perfev report` (the table and
# the Gecko profile, which must parse as JSON), `perfev
# script`, `perfev diff SEED MUTANT` and the Python reader
# (perfev.samples()), each under a 20 s timeout. A failure is: an end on a
# signal (or with 128+N), a hang, an AddressSanitizer, LeakSanitizer or
# UndefinedBehaviorSanitizer report, a Python exception other than
# perfev.PerfevError, or a percentage above 100 in report's or diff's
# output. perfev's own exit statuses (0, 1, 2) are fine.
#   scripts/mutate_structured.sh [COUNT [BUILD_DIR [SEED]]]
# COUNT defaults to 300, BUILD_DIR to build-asan (CC=clang
# ./scripts/build.sh build-asan -Db_sanitize=address,undefined
# -Db_lundef=false), SEED to 1. Mutant I of seed S is the same file on every
# machine: seed file I mod N of the sorted seeds, mutated by (S, I); a
# failure prints it as S:I and keeps it in BUILD_DIR/mutate-structured-failures/.
# MUTATE_JOBS runs that many at once (default 1), MUTATE_FIRST is the first
# index (default 0), MUTATE_TIMEOUT the seconds one run may take (20); a
# run that writes more than 64 MiB is stopped then and counted as a hang.
# MUTATE_ASAN_RUNTIME names the sanitizer runtime the Python reader preloads
# (found with ldd, nm and clang otherwise); MUTATE_PROGRESS=N prints a line
# every N mutants; MUTATE_ONLY="I J ..." runs those indexes alone (a failure
# list checked again after a fix).
# To write one mutant without running anything:
#   scripts/mutate_structured.sh --write S:I OUT.data [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--write" ]; then
	[ $# -ge 3 ] || { echo "usage: scripts/mutate_structured.sh --write SEED:INDEX OUT.data [BUILD_DIR]" >&2; exit 2; }
	build=${4:-build-asan}
else
	case ${1:-300}:${3:-1} in
	*[!0-9:]* | :* | *:)
		echo "mutate_structured.sh: COUNT and SEED must be whole numbers, not '${1:-}' and '${3:-}'" >&2
		exit 2
		;;
	esac
	build=${2:-build-asan}
	if [ ! -x "$build/perfev" ]; then
		echo "mutate_structured.sh: no $build/perfev; build it first with ./scripts/build.sh $build" >&2
		exit 2
	fi
fi
if [ ! -x "$build/fuzz/perfdata_mutate" ]; then
	echo "mutate_structured.sh: no $build/fuzz/perfdata_mutate; build it with meson compile -C $build" >&2
	exit 2
fi

exec python3 - "$build" "$@" <<'PY'
import concurrent.futures, glob, json, os, re, select, signal, subprocess, sys, tempfile, time

SEEDS = sorted(glob.glob('tests/fixtures/mutate/*.data'))
PERCENT = re.compile(rb'([-+]?[0-9]+(?:\.[0-9]+)?)%')
SANITIZER = re.compile(rb'(ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|'
                       rb'WARNING: AddressSanitizer)')
HEAD = 4 << 20   # bytes of each output kept from its start
RUNAWAY = 64 << 20  # output past this is endless: killed then, as a hang
TAIL = 256 << 10  # and from its end (sanitizer reports come last)
PYREADER = '''
import sys, perfev
try:
    for s in perfev.samples(sys.argv[1]):
        pass
except perfev.PerfevError:
    pass
'''


def seed_of(index):
    return SEEDS[index % len(SEEDS)], SEEDS[(index // len(SEEDS) + index + 1) % len(SEEDS)]


def write(build, seed, index, out):
    path, donor = seed_of(index)
    p = subprocess.run([os.path.join(build, 'fuzz', 'perfdata_mutate'), str(seed), str(index),
                        path, out, donor], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f'mutate_structured.sh: perfdata_mutate {seed} {index} {path}: '
                 + p.stderr.decode(errors='replace').strip())
    return path, p.stdout.decode(errors='replace').strip()


def run(cmd, env, timeout):
    """(exit status or None on a hang, stdout head, stderr head + tail, stdout bytes)."""
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env, start_new_session=True)
    keep = {p.stdout: bytearray(), p.stderr: bytearray()}
    tail = {p.stdout: bytearray(), p.stderr: bytearray()}
    total = {p.stdout: 0, p.stderr: 0}
    deadline = time.monotonic() + timeout
    open_pipes = [p.stdout, p.stderr]
    hung = False
    while open_pipes:
        left = deadline - time.monotonic()
        if left <= 0:
            hung = True
            break
        if hung:
            break
        ready, _, _ = select.select(open_pipes, [], [], left)
        for f in ready:
            chunk = os.read(f.fileno(), 1 << 16)
            if not chunk:
                open_pipes.remove(f)
                continue
            total[f] += len(chunk)
            if total[f] > RUNAWAY:
                hung = True
            if len(keep[f]) < HEAD:
                keep[f] += chunk[:HEAD - len(keep[f])]
            tail[f] += chunk
            del tail[f][:-TAIL]
    if hung:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        rc = p.wait(timeout=max(1, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        hung = True
        rc = None
    p.stdout.close()
    p.stderr.close()
    err = bytes(keep[p.stderr]) + (b'\n...\n' + bytes(tail[p.stderr])
                                   if total[p.stderr] > HEAD else b'')
    return (None if hung else rc), bytes(keep[p.stdout]), err, total[p.stdout]


def check(name, rc, out, err, nbytes, timeout, percent):
    problems = []
    if rc is None:
        why = (f'wrote more than {RUNAWAY >> 20} MiB' if nbytes > RUNAWAY else
               f'killed after {timeout:g} s, {nbytes} bytes written')
        problems.append(('hang', f'{name} hung ({why})'))
    elif rc < 0 or rc > 128:
        sig = -rc if rc < 0 else rc - 128
        problems.append(('crash', f'{name} ended on signal {sig}'))
    m = SANITIZER.search(err)
    if m:
        line = err[m.start():].split(b'\n', 1)[0].decode(errors='replace')
        problems.append(('sanitizer', f'{name}: {line}'))
    if name == 'python' and rc not in (0, None) and not m:
        last = err.decode(errors='replace').strip().splitlines()[-1:]
        problems.append(('python', f'python reader: {" ".join(last)}'))
    if percent:
        high = [v for v in PERCENT.findall(out) if abs(float(v)) > 100.0]
        if high:
            problems.append(('percent', f'{name} printed {high[0].decode()}% '
                                        f'({len(high)} values above 100%)'))
    return problems


def run_one(build, seed, index, scratch, timeout):
    perfev = os.path.abspath(os.path.join(build, 'perfev'))
    mutant = os.path.join(scratch, f'{seed}-{index}.data')
    source, what = write(build, seed, index, mutant)
    env = dict(os.environ)
    # intercept_tls_get_addr=0: clang 14's interceptor misreads the dynamic TLS
    # of dlopened libelf and libdw, and LeakSanitizer's tracer dies (.ci/run).
    env['ASAN_OPTIONS'] = 'detect_leaks=1:intercept_tls_get_addr=0:' + env.get('ASAN_OPTIONS', '')
    env['UBSAN_OPTIONS'] = 'print_stacktrace=1:' + env.get('UBSAN_OPTIONS', '')
    env.pop('DEBUGINFOD_URLS', None)
    pyenv = dict(env)
    pyenv['PYTHONPATH'] = os.path.abspath('python')
    pyenv['PERFEV_LIBRARY'] = PYLIB
    if PRELOAD:
        pyenv['LD_PRELOAD'] = PRELOAD
        pyenv['ASAN_OPTIONS'] = env['ASAN_OPTIONS'] + ':detect_leaks=0'
    runs = [
        ('report', [perfev, 'report', '--stdio', '-i', mutant], env, True),
        ('gecko', [perfev, 'report', '--format', 'gecko', '-i', mutant], env, False),
        # OTLP: every sample's attributes, the cgroup's path and container id among them.
        ('otlp', [perfev, 'report', '--format', 'otlp', '-o', '/dev/null', '-i', mutant], env,
         False),
        ('script', [perfev, 'script', '-i', mutant], env, False),
        ('diff', [perfev, 'diff', os.path.abspath(source), mutant], env, True),
        ('python', [sys.executable, '-c', PYREADER, mutant], pyenv, False),
    ]
    problems = []
    for name, cmd, e, percent in runs:
        rc, out, err, nbytes = run(cmd, e, timeout)
        problems += check(name, rc, out, err, nbytes, timeout, percent)
        # The Gecko profile of whatever the file held is JSON the Profiler can parse.
        if name == 'gecko' and rc == 0 and nbytes == len(out):
            try:
                json.loads(out)
            except ValueError as ex:
                problems.append(('json', f'report --format gecko wrote no JSON: {ex}'))
    if not problems:
        os.unlink(mutant)
    return index, source, what, problems, mutant


def python_library(build):
    """The library the Python reader loads, and what must be preloaded for its sanitizers."""
    lib = os.path.abspath(os.path.join(build, 'src', 'libperfev.so.0'))
    if not os.path.exists(lib):
        lib = os.path.abspath(os.path.join(build, 'src', 'libperfev.so'))
    preload = os.environ.get('MUTATE_ASAN_RUNTIME', '')
    if preload:
        return lib, preload
    ldd = subprocess.run(['ldd', lib], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    for line in ldd.decode().splitlines():
        if 'libasan' in line and '=>' in line:
            preload = line.split('=>')[1].split()[0]
    if not preload:
        nm = subprocess.run(['nm', '-D', '--undefined-only', lib], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL).stdout
        if b'__asan_' in nm:
            preload = subprocess.run(['clang', '-print-file-name=libclang_rt.asan-x86_64.so'],
                                     stdout=subprocess.PIPE).stdout.decode().strip()
    return lib, preload


def main():
    build = sys.argv[1]
    if not SEEDS:
        sys.exit('mutate_structured.sh: no seeds in tests/fixtures/mutate/ '
                 '(scripts/make_mutate_seeds.sh records them)')
    if sys.argv[2] == '--write':
        seed, _, index = sys.argv[3].partition(':')
        source, what = write(build, int(seed), int(index), sys.argv[4])
        print(f'{sys.argv[4]}: mutant {seed}:{index} of {source} ({what})')
        return 0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    first = int(os.environ.get('MUTATE_FIRST', '0'))
    jobs = int(os.environ.get('MUTATE_JOBS', '1'))
    timeout = float(os.environ.get('MUTATE_TIMEOUT', '20'))
    global PYLIB, PRELOAD
    PYLIB, PRELOAD = python_library(build)
    keep = os.path.join(build, 'mutate-structured-failures')
    bad, by_kind = 0, {}
    with tempfile.TemporaryDirectory(prefix='perfev-mutate-structured.') as scratch, \
            concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        only = [int(i) for i in os.environ.get('MUTATE_ONLY', '').split()]
        indexes = only or range(first, first + count)
        count = len(indexes)
        runs = [pool.submit(run_one, build, seed, i, scratch, timeout) for i in indexes]
        progress = int(os.environ.get('MUTATE_PROGRESS', '0'))
        for fut in runs:
            index, source, what, problems, path = fut.result()
            if progress and (index + 1 - first) % progress == 0:
                print(f'mutate_structured.sh: {index + 1 - first} done', flush=True)
            if not problems:
                continue
            bad += 1
            os.makedirs(keep, exist_ok=True)
            kept = os.path.join(keep, f'{seed}-{index}.data')
            os.replace(path, kept)
            for kind, text in problems:
                by_kind[kind] = by_kind.get(kind, 0) + 1
                print(f'mutant {seed}:{index} of {source} ({what}): {kind}: {text}', flush=True)
            print(f'  kept as {kept}; rewrite it with: scripts/mutate_structured.sh --write '
                  f'{seed}:{index} OUT.data', flush=True)
    kinds = ', '.join(f'{k} {n}' for k, n in sorted(by_kind.items())) or 'none'
    span = f'{len(only)} listed indexes' if only else f'indexes {first}..{first + count - 1}'
    print(f'mutate_structured.sh: {count} mutants (seed {seed}, {span}) of {len(SEEDS)} recordings through report, script, diff and '
          f'the Python reader: {bad} failed ({kinds})')
    return 1 if bad else 0


PYLIB = PRELOAD = ''
sys.exit(main())
PY
