/* SPDX-License-Identifier: GPL-2.0 */
/*
 * iodir: directory reading with getdents64 into a buffer that lives inside
 * struct iodir, which the caller provides (meant for the stack).  glibc's
 * opendir() takes a 32 KB heap chunk per open directory; a walk of /proc
 * holds several at once.  Nothing here allocates.
 *
 * Buffer size: 2 KB, not 1 KB.  A /proc/PID/task/TID directory lists 54
 * entries in about 1,650 bytes of records: with 1 KB it takes three
 * getdents64 calls where opendir's 32 KB takes two, and a walk of every
 * task made 1.39x opendir's syscalls; with 2 KB, 1.02x (bench/iodir.sh).
 * A walk keeps one buffer per level: 32 levels is 66 KB of stack at most.
 */
#ifndef FRUGAL_IODIR_H
#define FRUGAL_IODIR_H

#include <dirent.h>	/* DT_* */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef IODIR_BUF_SIZE
#define IODIR_BUF_SIZE 2048
#endif

struct iodir {
	int fd;
	bool own_fd;		/* opened by iodir__open, closed by iodir__close */
	unsigned short pos;	/* next record in buf */
	unsigned short len;	/* bytes filled by the last getdents64 */
	unsigned long nr_syscalls;	/* getdents64 calls made, for benchmarks */
	char buf[IODIR_BUF_SIZE] __attribute__((aligned(8)));
};

struct iodir_entry {
	const char *name;	/* valid until the next iodir__next() */
	uint64_t ino;
	unsigned char type;	/* DT_*; DT_UNKNOWN unless resolved */
};

/* Open PATH relative to DIRFD (AT_FDCWD for plain paths).  0 or -errno. */
int iodir__open(struct iodir *d, int dirfd, const char *path);
/* Iterate an already open directory fd; iodir__close() will not close it. */
void iodir__init_fd(struct iodir *d, int fd);
/*
 * Next entry other than "." and "..".  Returns 1 with *e filled, 0 at the end
 * of the directory, or -errno.  With want_type, a DT_UNKNOWN type is resolved
 * with fstatat (without following symlinks); if that fails, -errno.
 */
int iodir__next(struct iodir *d, struct iodir_entry *e, bool want_type);
void iodir__close(struct iodir *d);

/*
 * Recursive walk with no heap: one iodir per level on the stack (so depth is
 * bounded by IODIR_WALK_MAX_DEPTH) and one path buffer.  Symlinks are
 * reported, never followed.
 */
#define IODIR_WALK_MAX_DEPTH 32
#define IODIR_PATH_MAX 4096

enum iodir_walk_action {
	IODIR_WALK_CONTINUE,
	IODIR_WALK_SKIP,	/* on a directory: do not descend into it */
	IODIR_WALK_STOP,	/* end the walk; iodir__walk() returns 0 */
};

struct iodir_walk_entry {
	const char *path;	/* root-relative path, e.g. "root/a/b" */
	const char *name;	/* last component */
	int dirfd;		/* fd of the directory holding the entry */
	int depth;		/* 1 for the root's children */
	unsigned char type;	/* DT_* (always resolved) */
	int err;		/* 0, or -errno: reading/opening PATH failed */
};

/*
 * fn is called for every entry, before descending into a directory, and
 * with err set when a directory cannot be opened or read (return
 * IODIR_WALK_CONTINUE to go on, STOP to end).  A directory at max_depth is
 * reported but not entered.  Returns 0, the first -errno met (the walk goes
 * on past errors the callback chose to continue over), or -errno from
 * opening the root.
 */
typedef int (*iodir_walk_fn)(const struct iodir_walk_entry *e, void *ctx);
int iodir__walk(int dirfd, const char *root, int max_depth, iodir_walk_fn fn,
		void *ctx);

#endif
