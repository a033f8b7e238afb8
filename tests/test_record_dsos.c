/* SPDX-License-Identifier: MIT */
/*
 * test_record_dsos.c - which files `perfev record` marks as hit, from
 * records fed in the order its rings are read, which is not time order: a
 * process's exec read after the mappings of the program it ran, a sample
 * read before the mapping it hit, a fork read after its child's mappings.
 * cli/record_dsos.c is compiled in; the build-id cache is never reached
 * (its functions are stubs that fail the test).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers.h"
#include "buildid_cache.h"
#include "record.h"

/* ---- what record_dsos.c calls besides the account ------------------------- */

void cli_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	cr_assert_fail("cli_error called");
}

void cli_warning(const char *fmt, ...)
{
	(void)fmt;
}

void *cli_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	cr_assert_not_null(p);
	return p;
}

bool bc_dir(char *buf, size_t size)
{
	(void)buf;
	(void)size;
	cr_assert_fail("the cache is not for this test");
	return false;
}

size_t bc_file_build_id(const char *path, unsigned char *id, size_t max)
{
	(void)path, (void)id, (void)max;
	return 0;
}

size_t bc_kernel_build_id(unsigned char *id, size_t max)
{
	(void)id, (void)max;
	return 0;
}

size_t bc_vdso(const void **image, size_t *size, unsigned char *id, size_t max)
{
	(void)image, (void)size, (void)id, (void)max;
	return 0;
}

int bc_add_named(const char *cache, const char *name, const unsigned char *id, size_t len)
{
	(void)cache, (void)name, (void)id, (void)len;
	return 0;
}

/* ---- records ---------------------------------------------------------------------- */

/* The layout of perfev record's events: IP|TID|TIME|PERIOD, trailer TID|TIME. */
#define SAMPLE_TYPE (PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_TIME | PEV_SAMPLE_PERIOD)

static struct rec_state st;

static void setup(void)
{
	memset(&st, 0, sizeof(st));
	st.sample_type = SAMPLE_TYPE;
	st.uniform = true;
}

static void teardown(void)
{
	rec_dsos_free(&st.dsos);
}

TestSuite(record_dsos, .init = setup, .fini = teardown);

static void feed(const void *rec, size_t size)
{
	rec_dsos_account(&st, rec, size);
}

/* MMAP2 of path at [start, start + len), executable, at time t. */
static void mmap2(int32_t pid, uint64_t start, uint64_t len, const char *path, uint64_t t)
{
	unsigned char r[256] = {0};
	struct pev_event_header h = {PEV_RECORD_MMAP2, PEV_RECORD_MISC_USER, 0};
	size_t name = (strlen(path) + 8) & ~(size_t)7, size = 72 + name + 16;
	uint32_t prot = PROT_READ | PROT_EXEC;

	h.size = (uint16_t)size;
	memcpy(r, &h, 8);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &pid, 4);
	memcpy(r + 16, &start, 8);
	memcpy(r + 24, &len, 8);
	memcpy(r + 64, &prot, 4);
	memcpy(r + 72, path, strlen(path));
	memcpy(r + 72 + name, &pid, 4); /* trailer: pid, tid, time */
	memcpy(r + 72 + name + 4, &pid, 4);
	memcpy(r + 72 + name + 8, &t, 8);
	feed(r, size);
}

/* COMM with the exec flag, at time t. */
static void exec_comm(int32_t pid, const char *comm, uint64_t t)
{
	unsigned char r[64] = {0};
	struct pev_event_header h = {PEV_RECORD_COMM, PEV_RECORD_MISC_COMM_EXEC, 48};

	memcpy(r, &h, 8);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &pid, 4);
	memcpy(r + 16, comm, strlen(comm));
	memcpy(r + 32, &pid, 4);
	memcpy(r + 36, &pid, 4);
	memcpy(r + 40, &t, 8);
	feed(r, 48);
}

/* FORK of a new process pid from ppid at time t. */
static void fork_rec(int32_t pid, int32_t ppid, uint64_t t)
{
	unsigned char r[48] = {0};
	struct pev_event_header h = {PEV_RECORD_FORK, 0, 48};

	memcpy(r, &h, 8);
	memcpy(r + 8, &pid, 4);
	memcpy(r + 12, &ppid, 4);
	memcpy(r + 16, &pid, 4);
	memcpy(r + 20, &ppid, 4);
	memcpy(r + 24, &t, 8);
	memcpy(r + 32, &pid, 4); /* trailer */
	memcpy(r + 36, &pid, 4);
	memcpy(r + 40, &t, 8);
	feed(r, 48);
}

/* A user-mode SAMPLE of pid at ip, time t. */
static void sample(int32_t pid, uint64_t ip, uint64_t t)
{
	unsigned char r[40] = {0};
	struct pev_event_header h = {PEV_RECORD_SAMPLE, PEV_RECORD_MISC_USER, 40};
	uint64_t period = 1;

	memcpy(r, &h, 8);
	memcpy(r + 8, &ip, 8);
	memcpy(r + 16, &pid, 4);
	memcpy(r + 20, &pid, 4);
	memcpy(r + 24, &t, 8);
	memcpy(r + 32, &period, 8);
	feed(r, 40);
}

/* Whether the file at path was marked as hit. */
static bool hit(const char *path)
{
	for (int i = 0; i < st.dsos.ndsos; i++)
		if (strcmp(st.dsos.dsos[i].path, path) == 0)
			return st.dsos.dsos[i].hit;
	return false;
}

/* ---- tests ------------------------------------------------------------------------ */

/* sh execs sort: sh's ring (the exec) is read after the CPU's that saw sort run. */
Test(record_dsos, exec_read_after_the_new_programs_mappings)
{
	mmap2(100, 0x400000, 0x10000, "/usr/bin/dash", 10);
	/* the other CPU's ring: sort's mappings and samples */
	mmap2(100, 0x500000, 0x10000, "/usr/bin/sort", 30);
	mmap2(100, 0x7f0000000000, 0x100000, "/lib/libc.so.6", 31);
	sample(100, 0x500100, 40);
	/* then the ring with the exec */
	exec_comm(100, "sort", 20);
	rec_dsos_retry(&st);
	/* the next pass: more samples of sort and libc */
	sample(100, 0x7f0000000100, 50);
	sample(100, 0x500200, 51);
	rec_dsos_retry(&st);

	cr_expect(hit("/usr/bin/sort"));
	cr_expect(hit("/lib/libc.so.6"), "libc's sample came after the exec was read");
	cr_expect_not(hit("/usr/bin/dash"));
}

/* A sample read before the mapping (in another ring) of the file it hit. */
Test(record_dsos, sample_read_before_its_mapping)
{
	sample(7, 0x600010, 20);
	mmap2(7, 0x600000, 0x1000, "/opt/a.out", 10);
	rec_dsos_retry(&st);
	cr_expect(hit("/opt/a.out"));
}

/* After an exec, the old program's mappings serve no sample; before it, they do. */
Test(record_dsos, mappings_serve_the_program_of_their_time)
{
	mmap2(5, 0x400000, 0x10000, "/usr/bin/dash", 10);
	exec_comm(5, "gzip", 20);
	mmap2(5, 0x500000, 0x10000, "/usr/bin/gzip", 21);
	sample(5, 0x400100, 30); /* after the exec: in no mapping of gzip's */
	rec_dsos_retry(&st);
	cr_expect_not(hit("/usr/bin/dash"));
	sample(5, 0x400100, 15); /* before it: dash */
	cr_expect(hit("/usr/bin/dash"));
	cr_expect_not(hit("/usr/bin/gzip"));
}

/* A child's samples before its exec hit its parent's files, even when the fork is read last. */
Test(record_dsos, fork_read_after_the_childs_samples)
{
	mmap2(1, 0x400000, 0x10000, "/usr/bin/dash", 5);
	sample(2, 0x400100, 20);
	fork_rec(2, 1, 10);
	rec_dsos_retry(&st);
	cr_expect(hit("/usr/bin/dash"));
}

/* Without times (no PEV_SAMPLE_TIME), an exec drops the mappings before it, as before. */
Test(record_dsos, without_times_an_exec_drops_mappings)
{
	st.sample_type = PEV_SAMPLE_IP | PEV_SAMPLE_TID | PEV_SAMPLE_PERIOD;
	/* trailers then hold pid and tid only; the mmap2 helper's time word is padding */
	mmap2(9, 0x400000, 0x10000, "/usr/bin/dash", 0);
	exec_comm(9, "x", 0);
	sample(9, 0x400100, 0);
	rec_dsos_retry(&st);
	cr_expect_not(hit("/usr/bin/dash"));
}
