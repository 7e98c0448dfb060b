// SPDX-License-Identifier: GPL-2.0
/*
 * Directory reading over getdents64 with the buffer inside struct iodir, and
 * a recursive walk that keeps one struct iodir per level on the stack.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lib/iodir.h"

/* The kernel's record layout for getdents64 (glibc has no wrapper on older
 * releases, so the syscall is made directly). */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

void iodir__init_fd(struct iodir *d, int fd)
{
	d->fd = fd;
	d->own_fd = false;
	d->pos = 0;
	d->len = 0;
	d->nr_syscalls = 0;
}

int iodir__open(struct iodir *d, int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	iodir__init_fd(d, fd);
	d->own_fd = true;
	return 0;
}

void iodir__close(struct iodir *d)
{
	if (d->own_fd && d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static bool is_dot_or_dotdot(const char *name)
{
	return name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]));
}

static unsigned char mode_to_dtype(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFREG:	return DT_REG;
	case S_IFDIR:	return DT_DIR;
	case S_IFLNK:	return DT_LNK;
	case S_IFCHR:	return DT_CHR;
	case S_IFBLK:	return DT_BLK;
	case S_IFIFO:	return DT_FIFO;
	case S_IFSOCK:	return DT_SOCK;
	}
	return DT_UNKNOWN;
}

static int refill(struct iodir *d)
{
	long n = syscall(SYS_getdents64, d->fd, d->buf, sizeof(d->buf));

	d->nr_syscalls++;
	if (n < 0)
		return -errno;
	d->pos = 0;
	d->len = n;
	return n > 0;
}

int iodir__next(struct iodir *d, struct iodir_entry *e, bool want_type)
{
	struct linux_dirent64 *de;
	struct stat st;
	int err;

	for (;;) {
		if (d->pos >= d->len) {
			err = refill(d);
			if (err <= 0)
				return err;
		}
		de = (struct linux_dirent64 *)(d->buf + d->pos);
		d->pos += de->d_reclen;
		if (!is_dot_or_dotdot(de->d_name))
			break;
	}
	e->name = de->d_name;
	e->ino = de->d_ino;
	e->type = de->d_type;
	if (want_type && e->type == DT_UNKNOWN) {
		if (fstatat(d->fd, e->name, &st, AT_SYMLINK_NOFOLLOW))
			return -errno;
		e->type = mode_to_dtype(st.st_mode);
	}
	return 1;
}

/* State shared by every level of one walk. */
struct walk {
	iodir_walk_fn fn;
	void *ctx;
	int max_depth;
	int first_err;
	bool stopped;
	char path[IODIR_PATH_MAX];
};

static void note_err(struct walk *w, int err)
{
	if (!w->first_err)
		w->first_err = err;
}

/* Tell the callback that PATH (already in w->path) failed with ERR. */
static void report_err(struct walk *w, int dirfd, const char *name, int depth, int err)
{
	struct iodir_walk_entry e = {
		.path = w->path, .name = name, .dirfd = dirfd,
		.depth = depth, .type = DT_DIR, .err = err,
	};

	note_err(w, err);
	if (w->fn(&e, w->ctx) == IODIR_WALK_STOP)
		w->stopped = true;
}

static void walk_dir(struct walk *w, struct iodir *d, size_t plen, int depth);

static const char *last_component(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

/* Append "/NAME" to the path; false if it does not fit. */
static bool path_push(struct walk *w, size_t plen, const char *name, size_t *nlen)
{
	size_t len = strlen(name);

	if (plen + 1 + len + 1 > sizeof(w->path))
		return false;
	w->path[plen] = '/';
	memcpy(w->path + plen + 1, name, len + 1);
	*nlen = plen + 1 + len;
	return true;
}

static void visit(struct walk *w, struct iodir *d, const struct iodir_entry *de,
		  size_t plen, int depth)
{
	struct iodir_walk_entry e = {
		.path = w->path, .name = de->name, .dirfd = d->fd,
		.depth = depth, .type = de->type,
	};
	struct iodir sub;
	size_t nlen;
	int act, err;

	if (!path_push(w, plen, de->name, &nlen)) {
		w->path[plen] = '\0';
		report_err(w, d->fd, de->name, depth, -ENAMETOOLONG);
		return;
	}
	e.name = w->path + plen + 1;
	act = w->fn(&e, w->ctx);
	if (act == IODIR_WALK_STOP) {
		w->stopped = true;
	} else if (act == IODIR_WALK_CONTINUE && e.type == DT_DIR && depth < w->max_depth) {
		err = iodir__open(&sub, d->fd, e.name);
		if (err) {
			report_err(w, d->fd, e.name, depth, err);
		} else {
			walk_dir(w, &sub, nlen, depth + 1);
			iodir__close(&sub);
		}
	}
	w->path[plen] = '\0';
}

static void walk_dir(struct walk *w, struct iodir *d, size_t plen, int depth)
{
	struct iodir_entry de;
	int err;

	while (!w->stopped) {
		err = iodir__next(d, &de, true);
		if (err == 0)
			return;
		if (err < 0) {
			report_err(w, d->fd, last_component(w->path), depth - 1, err);
			return;	/* the position in a failed directory is unknown */
		}
		visit(w, d, &de, plen, depth);
	}
}

int iodir__walk(int dirfd, const char *root, int max_depth, iodir_walk_fn fn, void *ctx)
{
	struct walk w = { .fn = fn, .ctx = ctx };
	struct iodir d;
	size_t len = strlen(root);
	int err;

	if (max_depth < 1 || max_depth > IODIR_WALK_MAX_DEPTH)
		return -EINVAL;
	if (len >= sizeof(w.path))
		return -ENAMETOOLONG;
	w.max_depth = max_depth;
	memcpy(w.path, root, len + 1);
	while (len > 1 && w.path[len - 1] == '/')
		w.path[--len] = '\0';
	err = iodir__open(&d, dirfd, root);
	if (err)
		return err;
	/* Children of "/" are "/name", not "//name". */
	walk_dir(&w, &d, strcmp(w.path, "/") ? len : 0, 1);
	iodir__close(&d);
	return w.first_err;
}
