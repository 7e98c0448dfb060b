// SPDX-License-Identifier: GPL-2.0
/* Line reading over a fixed buffer; see linebuf.h for the contract. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "lib/io.h"
#include "lib/linebuf.h"

void linebuf__init(struct linebuf *lb, int fd, char *buf, size_t size)
{
	lb->fd = fd;
	lb->own_fd = 0;
	lb->buf = buf;
	lb->size = size;
	lb->start = lb->end = 0;
	lb->eof = 0;
	lb->lineno = 0;
}

int linebuf__open(struct linebuf *lb, const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	linebuf__init(lb, fd, buf, size);
	lb->own_fd = 1;
	return 0;
}

void linebuf__close(struct linebuf *lb)
{
	if (lb->own_fd && lb->fd >= 0)
		close(lb->fd);
	lb->fd = -1;
}

/*
 * Move unread bytes to the front and read more after them.  One byte of the
 * buffer is kept free for the NUL that terminates a last line without a
 * newline.  Returns bytes read, 0 at end of file, or -errno.
 */
static ssize_t fill(struct linebuf *lb)
{
	ssize_t n;

	if (lb->start > 0) {
		memmove(lb->buf, lb->buf + lb->start, lb->end - lb->start);
		lb->end -= lb->start;
		lb->start = 0;
	}
	n = io__read(lb->fd, lb->buf + lb->end, lb->size - 1 - lb->end);
	if (n < 0)
		return n;
	if (n == 0)
		lb->eof = 1;
	lb->end += n;
	return n;
}

/* Discard input up to and including the next newline (or end of file). */
static int skip_rest_of_line(struct linebuf *lb)
{
	char *nl;
	ssize_t n;

	for (;;) {
		nl = memchr(lb->buf + lb->start, '\n', lb->end - lb->start);
		if (nl) {
			lb->start = nl + 1 - lb->buf;
			return 0;
		}
		lb->start = lb->end = 0;
		if (lb->eof)
			return 0;
		n = fill(lb);
		if (n < 0)
			return n;
	}
}

int linebuf__next(struct linebuf *lb, char **line, size_t *len)
{
	char *p, *nl;
	ssize_t n;
	int err;

	for (;;) {
		p = lb->buf + lb->start;
		nl = memchr(p, '\n', lb->end - lb->start);
		if (nl)
			break;
		if (lb->eof) {
			if (lb->start == lb->end)
				return 0;
			nl = lb->buf + lb->end;	/* last line, no newline */
			lb->end++;		/* its NUL takes the spare byte */
			break;
		}
		if (lb->start == 0 && lb->end == lb->size - 1) {
			/* The buffer holds one partial line: too long. */
			lb->lineno++;
			err = skip_rest_of_line(lb);
			return err ? err : -E2BIG;
		}
		n = fill(lb);
		if (n < 0)
			return n;
	}
	*nl = '\0';
	*line = p;
	*len = nl - p;
	lb->start = nl + 1 - lb->buf;
	lb->lineno++;
	return 1;
}
