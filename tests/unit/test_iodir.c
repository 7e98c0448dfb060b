// SPDX-License-Identifier: GPL-2.0
/*
 * iodir: every entry once, skip and stop, errors (EACCES, a directory
 * removed mid-walk, ENOTDIR), and no heap allocation during a walk.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/iodir.h"
#include "tests/test.h"

#define BIG_DIR_ENTRIES 5000

/* ---- counting allocations ---------------------------------------------- */
static volatile long nr_allocs;

#if defined(__SANITIZE_ADDRESS__)
/* From the sanitizer runtime (gcc ships no header for it). */
int __sanitizer_install_malloc_and_free_hooks(void (*)(const volatile void *, size_t),
					      void (*)(const volatile void *));
static void on_malloc(const volatile void *p, size_t n) { (void)p; (void)n; nr_allocs++; }
static void on_free(const volatile void *p) { (void)p; }
static void count_allocs_init(void)
{
	__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}
#else
/* Interpose the allocator: every allocation in the process goes through here. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
void *malloc(size_t n) { nr_allocs++; return __libc_malloc(n); }
void *calloc(size_t a, size_t b) { nr_allocs++; return __libc_calloc(a, b); }
void *realloc(void *p, size_t n) { nr_allocs++; return __libc_realloc(p, n); }
static void count_allocs_init(void) {}
#endif

/* ---- the fixture tree -------------------------------------------------- */
static char root[64];
static char longname[NAME_MAX + 1];
static int expected_entries;

static void must(int ok, const char *what)
{
	if (!ok) {
		printf("not ok - iodir/fixture: %s: %s\n", what, strerror(errno));
		exit(1);
	}
}

static void touch_at(const char *dir, const char *name)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	must(fd >= 0, p);
	close(fd);
	expected_entries++;
}

static void mkdir_at(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	must(mkdir(p, 0755) == 0, p);
	expected_entries++;
}

/*
 * root/
 *   a/ b/ c/ f1 (c is 3 levels: a/b/c/deep)     empty/
 *   big/ 5000 files                             link-to-a -> a (not followed)
 *   NAME_MAX-long file name
 */
static void make_tree(void)
{
	char p[PATH_MAX];

	strcpy(root, "/tmp/frugal-iodir-XXXXXX");
	must(mkdtemp(root) != NULL, "mkdtemp");
	mkdir_at(root, "a");
	snprintf(p, sizeof(p), "%s/a", root);
	mkdir_at(p, "b");
	touch_at(p, "f1");
	snprintf(p, sizeof(p), "%s/a/b", root);
	mkdir_at(p, "c");
	snprintf(p, sizeof(p), "%s/a/b/c", root);
	touch_at(p, "deep");
	mkdir_at(root, "empty");
	mkdir_at(root, "big");
	snprintf(p, sizeof(p), "%s/big", root);
	for (int i = 0; i < BIG_DIR_ENTRIES; i++) {
		char n[32];

		snprintf(n, sizeof(n), "entry-%05d", i);
		touch_at(p, n);
	}
	snprintf(p, sizeof(p), "%s/link-to-a", root);
	must(symlink("a", p) == 0, p);
	expected_entries++;
	memset(longname, 'n', NAME_MAX);
	touch_at(root, longname);
}

static void remove_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd))
		printf("# could not remove %s\n", root);
}

/* ---- walk callbacks ---------------------------------------------------- */
/* Records visited paths in a fixed arena: no allocation in the callback. */
struct record {
	int n, errors, first_err;
	int dirs, links, max_depth;
	int stop_after;
	const char *skip_name;
	const char *rmdir_name;
	bool saw_longname, saw_deep;
	size_t used;
	char arena[BIG_DIR_ENTRIES * 48];
	unsigned int offs[BIG_DIR_ENTRIES + 64];
};

static int record_cb(const struct iodir_walk_entry *e, void *ctx)
{
	struct record *r = ctx;
	size_t len = strlen(e->path) + 1;

	if (e->err) {
		r->errors++;
		if (!r->first_err)
			r->first_err = e->err;
		return IODIR_WALK_CONTINUE;
	}
	if (r->n < (int)(sizeof(r->offs) / sizeof(r->offs[0])) &&
	    r->used + len <= sizeof(r->arena)) {
		memcpy(r->arena + r->used, e->path, len);
		r->offs[r->n] = r->used;
		r->used += len;
	}
	r->n++;
	r->dirs += e->type == DT_DIR;
	r->links += e->type == DT_LNK;
	if (e->depth > r->max_depth)
		r->max_depth = e->depth;
	if (!strcmp(e->name, longname))
		r->saw_longname = true;
	if (!strcmp(e->name, "deep"))
		r->saw_deep = true;
	if (r->rmdir_name && !strcmp(e->name, r->rmdir_name))
		unlinkat(e->dirfd, e->name, AT_REMOVEDIR);
	if (r->skip_name && !strcmp(e->name, r->skip_name))
		return IODIR_WALK_SKIP;
	if (r->stop_after && r->n == r->stop_after)
		return IODIR_WALK_STOP;
	return IODIR_WALK_CONTINUE;
}

static struct record rec;

static void reset(void)
{
	memset(&rec, 0, offsetof(struct record, arena));
	rec.used = 0;
}

static int cmp_off(const void *a, const void *b)
{
	return strcmp(rec.arena + *(const unsigned int *)a, rec.arena + *(const unsigned int *)b);
}

static int count_duplicates(void)
{
	int dups = 0;

	qsort(rec.offs, rec.n, sizeof(rec.offs[0]), cmp_off);
	for (int i = 1; i < rec.n; i++)
		dups += !strcmp(rec.arena + rec.offs[i - 1], rec.arena + rec.offs[i]);
	return dups;
}

/* ---- cases ------------------------------------------------------------- */
static void case_full_walk(void)
{
	TEST_BEGIN("iodir/walk-visits-every-entry-once");
	reset();
	CHECK_EQ(iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, record_cb, &rec), 0);
	CHECK_EQ(rec.n, expected_entries);
	CHECK_EQ(count_duplicates(), 0);
	CHECK_EQ(rec.errors, 0);
	CHECK_EQ(rec.dirs, 5);		/* a, a/b, a/b/c, empty, big */
	CHECK_EQ(rec.links, 1);		/* reported, not followed */
	CHECK_EQ(rec.max_depth, 4);	/* a/b/c/deep */
	CHECK(rec.saw_longname, "NAME_MAX-long name not visited");
	TEST_END();
}

static void case_skip_and_stop(void)
{
	TEST_BEGIN("iodir/walk-skip-subtree");
	reset();
	rec.skip_name = "b";
	CHECK_EQ(iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, record_cb, &rec), 0);
	CHECK_EQ(rec.n, expected_entries - 2);	/* c and c/deep */
	CHECK(!rec.saw_deep, "entry under a skipped directory was visited");
	TEST_END();

	TEST_BEGIN("iodir/walk-stop");
	reset();
	rec.stop_after = 7;
	CHECK_EQ(iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, record_cb, &rec), 0);
	CHECK_EQ(rec.n, 7);
	TEST_END();

	TEST_BEGIN("iodir/walk-max-depth");
	reset();
	CHECK_EQ(iodir__walk(AT_FDCWD, root, 2, record_cb, &rec), 0);
	CHECK_EQ(rec.max_depth, 2);
	CHECK(!rec.saw_deep, "walked below max_depth");
	CHECK_EQ(iodir__walk(AT_FDCWD, root, 0, record_cb, &rec), -EINVAL);
	TEST_END();
}

static void case_next_big_dir(void)
{
	char p[PATH_MAX];
	struct iodir d;
	struct iodir_entry e;
	int n = 0, r;

	TEST_BEGIN("iodir/next-reads-directory-larger-than-buffer");
	snprintf(p, sizeof(p), "%s/big", root);
	CHECK_EQ(iodir__open(&d, AT_FDCWD, p), 0);
	while ((r = iodir__next(&d, &e, true)) == 1) {
		n++;
		CHECK(e.name[0] != '.', "dot entry returned");
		CHECK(e.type == DT_REG, "type of %s is %d", e.name, e.type);
	}
	CHECK_EQ(r, 0);
	CHECK_EQ(n, BIG_DIR_ENTRIES);
	CHECK(d.nr_syscalls > 2, "5000 entries in %lu getdents64 calls", d.nr_syscalls);
	CHECK_EQ(iodir__next(&d, &e, false), 0);	/* stays at the end */
	iodir__close(&d);
	TEST_END();
}

static void case_enotdir(void)
{
	char p[PATH_MAX];
	struct iodir d;

	TEST_BEGIN("iodir/enotdir");
	snprintf(p, sizeof(p), "%s/a/f1", root);
	CHECK_EQ(iodir__open(&d, AT_FDCWD, p), -ENOTDIR);
	reset();
	CHECK_EQ(iodir__walk(AT_FDCWD, p, 4, record_cb, &rec), -ENOTDIR);
	CHECK_EQ(iodir__walk(AT_FDCWD, "/nonexistent/frugal", 4, record_cb, &rec), -ENOENT);
	TEST_END();
}

static void case_removed_mid_walk(void)
{
	char p[PATH_MAX];

	TEST_BEGIN("iodir/directory-removed-mid-walk");
	snprintf(p, sizeof(p), "%s/gone", root);
	CHECK_EQ(mkdir(p, 0755), 0);
	reset();
	rec.rmdir_name = "gone";	/* removed when visited, before descent */
	CHECK_EQ(iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, record_cb, &rec), -ENOENT);
	CHECK_EQ(rec.errors, 1);
	CHECK_EQ(rec.first_err, -ENOENT);
	CHECK_EQ(rec.n, expected_entries + 1);	/* the walk went on */
	TEST_END();
}

/* Run as an unprivileged user in a child: root would bypass permissions. */
static void case_permission_denied(void)
{
	char p[PATH_MAX];
	int status;
	pid_t pid;

	TEST_BEGIN("iodir/permission-denied");
	snprintf(p, sizeof(p), "%s/secret", root);
	CHECK_EQ(mkdir(p, 0700), 0);
	chmod(root, 0755);
	pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(3);
		reset();
		int err = iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, record_cb, &rec);
		_exit(err == -EACCES && rec.first_err == -EACCES && rec.errors == 1 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "child walk did not report EACCES exactly once (status %d)", status);
	rmdir(p);
	TEST_END();
}

static int noop_cb(const struct iodir_walk_entry *e, void *ctx)
{
	(*(long *)ctx) += !e->err;
	return IODIR_WALK_CONTINUE;
}

static void case_zero_heap(void)
{
	long before, seen = 0;
	int err;

	TEST_BEGIN("iodir/walk-makes-no-heap-allocation");
	count_allocs_init();
	before = nr_allocs;
	err = iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, noop_cb, &seen);
	err = err ? err : iodir__walk(AT_FDCWD, "/proc/self", 3, noop_cb, &seen);
	CHECK_EQ(nr_allocs - before, 0);
	CHECK_EQ(err, 0);
	CHECK(seen > expected_entries, "walked %ld entries", seen);
	/* The counter itself must work, or this case proves nothing. */
	free(malloc(16));
	CHECK(nr_allocs > before, "allocation counter does not count");
	TEST_END();
}

int main(void)
{
	make_tree();
	case_full_walk();
	case_skip_and_stop();
	case_next_big_dir();
	case_enotdir();
	case_removed_mid_walk();
	case_permission_denied();
	case_zero_heap();
	remove_tree();
	TEST_EXIT();
}
