/* SPDX-License-Identifier: MIT */
/*
 * report_gzip.c - a stdio stream that gzip-compresses what is written to
 * it into another stream: the writers' PEV_REPORT_GZIP, and pprof's
 * always-compressed profile.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "report/report_internal.h"

struct gzip {
	z_stream z;
	FILE *out;
	bool failed; /* deflate or writing to out failed: nothing more is written */
};

/* Deflates what z holds (flush: Z_NO_FLUSH or Z_FINISH) into g->out. */
static int drain(struct gzip *g, int flush)
{
	unsigned char buf[65536];
	int r;

	do {
		g->z.next_out = buf;
		g->z.avail_out = sizeof(buf);
		r = deflate(&g->z, flush);
		if (r == Z_STREAM_ERROR)
			return -1;
		size_t n = sizeof(buf) - g->z.avail_out;
		if (n && fwrite(buf, 1, n, g->out) != n)
			return -1;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && r != Z_STREAM_END));
	return 0;
}

static ssize_t gzip_write(void *cookie, const char *data, size_t len)
{
	struct gzip *g = cookie;
	size_t done = 0;

	if (g->failed) {
		errno = EIO;
		return -1;
	}
	while (done < len) {
		size_t chunk = len - done > (1u << 30) ? (1u << 30) : len - done;
		g->z.next_in = (Bytef *)(uintptr_t)(data + done);
		g->z.avail_in = (uInt)chunk;
		if (drain(g, Z_NO_FLUSH)) {
			g->failed = true;
			errno = EIO;
			return -1;
		}
		done += chunk;
	}
	return (ssize_t)len;
}

static int gzip_close(void *cookie)
{
	struct gzip *g = cookie;
	int rc = 0;

	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if (g->failed || drain(g, Z_FINISH) || fflush(g->out) != 0 || ferror(g->out)) {
		errno = EIO;
		rc = -1;
	}
	deflateEnd(&g->z);
	free(g);
	return rc;
}

FILE *pev__gzip_open(FILE *out)
{
	cookie_io_functions_t io = {.write = gzip_write, .close = gzip_close};
	struct gzip *g = calloc(1, sizeof(*g));
	FILE *f;

	if (!g)
		return NULL;
	g->out = out;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&g->z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return NULL;
	}
	if (!(f = fopencookie(g, "w", io))) {
		deflateEnd(&g->z);
		free(g);
	}
	return f;
}
