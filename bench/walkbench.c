// SPDX-License-Identifier: GPL-2.0
/*
 * walkbench: walk /proc tasks or /sys with frugal's iodir or with glibc's
 * opendir/readdir, and report entries, heap use and time.  Used by
 * bench/iodir.sh, which counts getdents64 calls around it with perf.
 *
 *   walkbench iodir|opendir proc|sys
 *
 * The allocator is interposed to measure live (peak) and total heap bytes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/iodir.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

static size_t heap_live, heap_peak, heap_total;

static void account(void *p, long sign)
{
	size_t n;

	if (!p)
		return;
	n = malloc_usable_size(p);
	if (sign > 0) {
		heap_live += n;
		heap_total += n;
		if (heap_live > heap_peak)
			heap_peak = heap_live;
	} else {
		heap_live -= n;
	}
}

void *malloc(size_t n) { void *p = __libc_malloc(n); account(p, 1); return p; }
void *calloc(size_t a, size_t b) { void *p = __libc_calloc(a, b); account(p, 1); return p; }
void free(void *p) { account(p, -1); __libc_free(p); }
void *realloc(void *p, size_t n)
{
	void *q;

	account(p, -1);
	q = __libc_realloc(p, n);
	account(q ? q : p, 1);
	return q;
}

/* Which directories to enter: all of /sys; in /proc, PID/task/TID only. */
static int want_descend(int proc, int depth, const char *name)
{
	if (!proc)
		return 1;
	if (depth == 1)
		return name[0] >= '0' && name[0] <= '9';
	if (depth == 2)
		return !strcmp(name, "task");
	return depth == 3;
}

static long nr_entries;

static int iodir_cb(const struct iodir_walk_entry *e, void *ctx)
{
	int proc = *(int *)ctx;

	if (e->err)
		return IODIR_WALK_CONTINUE;
	nr_entries++;
	if (e->type == DT_DIR && !want_descend(proc, e->depth, e->name))
		return IODIR_WALK_SKIP;
	return IODIR_WALK_CONTINUE;
}

static void walk_opendir(int proc, const char *path, int depth)
{
	struct dirent *de;
	char sub[IODIR_PATH_MAX];
	DIR *d = opendir(path);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		nr_entries++;
		if (de->d_type != DT_DIR || depth >= IODIR_WALK_MAX_DEPTH ||
		    !want_descend(proc, depth, de->d_name))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) < (int)sizeof(sub))
			walk_opendir(proc, sub, depth + 1);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	const char *root;
	int proc;

	if (argc != 3 || (strcmp(argv[1], "iodir") && strcmp(argv[1], "opendir")) ||
	    (strcmp(argv[2], "proc") && strcmp(argv[2], "sys"))) {
		fprintf(stderr, "usage: walkbench iodir|opendir proc|sys\n");
		return 2;
	}
	proc = !strcmp(argv[2], "proc");
	root = proc ? "/proc" : "/sys";
	/* stdio's buffer is allocated on first use: take it before measuring. */
	printf("%s", "");
	fflush(stdout);
	heap_live = heap_peak = heap_total = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(argv[1], "iodir"))
		iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, iodir_cb, &proc);
	else
		walk_opendir(proc, root, 1);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	printf("entries=%ld peak_heap=%zu total_malloc=%zu wall_us=%.0f\n", nr_entries,
	       heap_peak, heap_total,
	       (t1.tv_sec - t0.tv_sec) * 1e6 + (t1.tv_nsec - t0.tv_nsec) / 1e3);
	return 0;
}
