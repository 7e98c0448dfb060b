// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "lib/io.h"

ssize_t io__read(int fd, void *buf, size_t len)
{
	ssize_t n;

	do {
		n = read(fd, buf, len);
	} while (n < 0 && errno == EINTR);
	return n < 0 ? -errno : n;
}

ssize_t io__read_full(int fd, void *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = io__read(fd, (char *)buf + done, len - done);
		if (n < 0)
			return n;
		if (!n)
			break;
		done += n;
	}
	return done;
}

/*
 * All LEN bytes written (WR) or read, at OFF (OFF < 0: at the file's
 * position).  0, -errno, or END when a call moves nothing.
 */
static int move_full(int fd, char *p, size_t len, off_t off, bool wr, int end)
{
	ssize_t n;

	while (len) {
		if (off < 0)
			n = wr ? write(fd, p, len) : read(fd, p, len);
		else
			n = wr ? pwrite(fd, p, len, off) : pread(fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : end;
		p += n;
		len -= n;
		if (off >= 0)
			off += n;
	}
	return 0;
}

int io__write_full(int fd, const void *buf, size_t len)
{
	return move_full(fd, (char *)buf, len, -1, true, -EIO);
}

int io__pread_full(int fd, void *buf, size_t len, off_t off)
{
	return move_full(fd, buf, len, off, false, -ENODATA);
}

int io__pwrite_full(int fd, const void *buf, size_t len, off_t off)
{
	return move_full(fd, (char *)buf, len, off, true, -EIO);
}

int io__open_special(const char *path)
{
	struct stat st;
	int fd;

	if (stat(path, &st) || S_ISREG(st.st_mode))
		return -ENOENT;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* PATH opened as FD (io__open_special()): buffer in /tmp until the commit. */
static int open_direct(struct io_tmpfile *t, int fd)
{
	int err;

	t->direct = fd;
	t->f = tmpfile();
	if (!t->f) {
		err = -errno;
		close(t->direct);
		t->direct = -1;
		return err;
	}
	return 0;
}

int io__tmpfile_open(struct io_tmpfile *t, const char *path)
{
	const char *slash;
	int dlen, fd, err;
	mode_t mask;

	t->path = path;
	t->f = NULL;
	t->direct = -1;
	t->tmp[0] = '\0';
	t->real = NULL;
	fd = io__open_special(path);
	if (fd != -ENOENT)
		return fd < 0 ? fd : open_direct(t, fd);
	/* Renaming over a symlink would replace the link, not its target. */
	t->real = realpath(path, NULL);
	if (t->real)
		path = t->path = t->real;
	slash = strrchr(path, '/');
	dlen = slash ? (int)(slash - path) + 1 : 0;
	if (snprintf(t->tmp, sizeof(t->tmp), "%.*s.%s.XXXXXX", dlen, path,
		     slash ? slash + 1 : path) >= (int)sizeof(t->tmp)) {
		t->tmp[0] = '\0';
		io__tmpfile_discard(t);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(t->tmp);
	if (fd < 0) {
		err = -errno;
		t->tmp[0] = '\0';
		io__tmpfile_discard(t);
		return err;
	}
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(t->f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		io__tmpfile_discard(t);
		return err;
	}
	return 0;
}

/* The buffered bytes into the opened PATH. */
static int copy_direct(struct io_tmpfile *t)
{
	char buf[16384];
	ssize_t n;
	int err = 0;

	if (fseek(t->f, 0, SEEK_SET))
		return -errno;
	while (!err && (n = io__read(fileno(t->f), buf, sizeof(buf))) > 0)
		err = io__write_full(t->direct, buf, n);
	return err ?: n < 0 ? (int)n : 0;
}

int io__tmpfile_commit(struct io_tmpfile *t)
{
	int err = 0;

	errno = 0;
	if (fflush(t->f) || ferror(t->f))
		err = errno ? -errno : -EIO;
	if (t->direct >= 0) {
		err = err ?: copy_direct(t);
		io__tmpfile_discard(t);
		return err;
	}
	if (!err && fsync(fileno(t->f)))
		err = -errno;
	if (fclose(t->f) && !err)
		err = -errno;
	t->f = NULL;
	if (!err && rename(t->tmp, t->path))
		err = -errno;
	if (!err)
		t->tmp[0] = '\0';
	io__tmpfile_discard(t);
	return err;
}

void io__tmpfile_discard(struct io_tmpfile *t)
{
	if (t->f)
		fclose(t->f);
	t->f = NULL;
	if (t->direct >= 0) {
		close(t->direct);
		t->direct = -1;
	} else if (t->tmp[0]) {
		unlink(t->tmp);
		t->tmp[0] = '\0';
	}
	free(t->real);
	t->real = NULL;
	t->path = NULL;
}
