/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tar.c - libFuzzer harness for `perfev archive --unpack`'s reader
 * (cli/tar_read.c) and checks (cli/archive_unpack.c).
 *
 * The input is an archive as it is: a tar file, or gzip-compressed (zlib's
 * gz functions read both). It is read from a memfd through the checking
 * pass of the extraction, which parses every header, pax record and GNU
 * long name and judges every name and link target, writing nothing; a
 * refusal must come with its reason.
 *
 * Seeds: fuzz/corpus/tar/ (perfev archive's output, GNU tar's gnu and pax
 * formats, perf archive's tar decompressed, hostile archives).
 * Build: CC=clang meson setup build-fuzz -Dfuzz=true, then
 *   ./build-fuzz/fuzz/fuzz_tar -max_total_time=60 fuzz/corpus/tar
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../cli/archive_unpack.h"
#include "../cli/tar_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct unpack_counts counts = {0};
	char why[4096 + 256];
	int fd = memfd_create("fuzz_tar", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return 0;
	}
	struct tar_reader *r = tar_read_open(fd);
	if (!r)
		return 0;
	why[0] = '\0';
	if (unpack_entries(r, -1, false, NULL, &counts, why, sizeof(why)) < 0 && !why[0])
		abort(); /* a refusal without its reason */
	if (counts.written || counts.kept)
		abort(); /* the checking pass writes nothing */
	tar_read_close(r);
	return 0;
}
