// SPDX-License-Identifier: GPL-2.0
/*
 * linebuf over arbitrary bytes: the first byte picks the buffer size; the
 * rest is the file.  Invariants: no returned line holds a newline, lines and
 * skipped lines together account for every newline in the input, and the
 * reader always terminates.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/linebuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t bufsz, len, newlines = 0, seen = 0;
	struct linebuf lb;
	char *buf, *line;
	int fd, r;

	if (size < 1)
		return 0;
	bufsz = 2 + data[0] % 64;
	data++, size--;
	for (size_t i = 0; i < size; i++)
		newlines += data[i] == '\n';
	fd = memfd_create("fuzz", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size || lseek(fd, 0, SEEK_SET))
		abort();
	buf = malloc(bufsz);
	linebuf__init(&lb, fd, buf, bufsz);
	while ((r = linebuf__next(&lb, &line, &len)) != 0) {
		if (r == 1) {
			if (memchr(line, '\n', len) || line[len] != '\0' || len > bufsz - 2)
				abort();
		} else if (r != -E2BIG) {
			abort();
		}
		seen++;
	}
	/* Every newline ends one line; a trailing unterminated line adds one. */
	if (seen != newlines + (size && data[size - 1] != '\n'))
		abort();
	if (lb.lineno != seen)
		abort();
	free(buf);
	close(fd);
	return 0;
}
