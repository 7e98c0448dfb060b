/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linebuf: read lines from a file descriptor through a fixed, caller-provided
 * buffer (on the stack, typically 4 KB).  Made for /proc and /sys files.
 *
 * A buffer of SIZE bytes holds lines of up to SIZE - 2 bytes (one byte for
 * the newline, one for the NUL).  Longer lines are never cut into a wrong
 * value: such a line is reported once as -E2BIG and skipped up to its
 * newline; reading then continues with the next line.
 */
#ifndef FRUGAL_LINEBUF_H
#define FRUGAL_LINEBUF_H

#include <stddef.h>

struct linebuf {
	int fd;
	int own_fd;
	char *buf;
	size_t size;
	size_t start;		/* first unread byte */
	size_t end;		/* end of valid data */
	int eof;
	unsigned long lineno;	/* 1-based number of the last line returned */
};

/* Read FD (not closed by linebuf__close) through BUF of SIZE >= 2 bytes. */
void linebuf__init(struct linebuf *lb, int fd, char *buf, size_t size);
/* Open PATH read-only; 0 or -errno. */
int linebuf__open(struct linebuf *lb, const char *path, char *buf, size_t size);
/*
 * Next line, without its newline and NUL-terminated in place.  Returns 1
 * with *line and *len set, 0 at end of file, -E2BIG for a line that does not
 * fit (already skipped), or -errno from read().  A last line with no newline
 * is returned as a line.
 */
int linebuf__next(struct linebuf *lb, char **line, size_t *len);
void linebuf__close(struct linebuf *lb);

#endif
