/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads and writes that a signal does not cut short: each retries on
 * EINTR, and the _full ones go on until every byte has moved.
 */
#ifndef FRUGAL_IO_H
#define FRUGAL_IO_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* One read(2), retried on EINTR: the bytes read (0 at the end), or -errno. */
ssize_t io__read(int fd, void *buf, size_t len);
/* LEN bytes, or fewer at the end of the file: the count, or -errno. */
ssize_t io__read_full(int fd, void *buf, size_t len);
/* All LEN bytes: 0, or -errno. */
int io__write_full(int fd, const void *buf, size_t len);
/* LEN bytes at OFF: 0, -errno, or -ENODATA when the file ends first. */
int io__pread_full(int fd, void *buf, size_t len, off_t off);
/* LEN bytes at OFF: 0, or -errno. */
int io__pwrite_full(int fd, const void *buf, size_t len, off_t off);

/*
 * A file written whole or not at all: a temporary file beside PATH, made
 * with the mode a new file would get (0666 less the umask), fsync'd and
 * renamed over PATH at commit (over a symlink's target, not the link).  A
 * reader never sees a partial file, and PATH is untouched until the commit.
 * PATH that is not a regular file (/dev/null, a pipe such as /dev/fd/N) is
 * opened at once and never replaced: what is written goes to an unnamed
 * temporary file, copied into PATH at the commit.
 */
struct io_tmpfile {
	char tmp[4096];
	char *real;		/* PATH resolved, when it names a file already */
	const char *path;
	FILE *f;		/* write here */
	int direct;		/* PATH opened for writing; -1: a regular file */
};

/* 0, or -errno (the directory cannot take a file, PATH too long). */
int io__tmpfile_open(struct io_tmpfile *t, const char *path);
/*
 * PATH names something there that is not a regular file (a device, a
 * pipe): it is opened for writing, and its fd returned.  -EISDIR for a
 * directory, -ENOENT for a regular file or nothing (write it whole then),
 * else -errno.
 */
int io__open_special(const char *path);
/* Flush, sync, close and rename over PATH.  0, or -errno with nothing left behind. */
int io__tmpfile_commit(struct io_tmpfile *t);
/* Close and remove the temporary file (after a failure); PATH untouched. */
void io__tmpfile_discard(struct io_tmpfile *t);

#endif
