// SPDX-License-Identifier: GPL-2.0
/*
 * --svg: stacks merged by name with their numbers summed, names escaped
 * for XML, narrow frames left out and counted, the weight --weight asks
 * for, an empty table.
 *
 * `test_lock_svg --gen N FILE [zipf|flat|wide]` writes the flame graph of N
 * distinct synthetic stacks instead (tests/lock/svg.sh times chromium on
 * it): kernel-like names and depths, weights skewed as real contention is
 * (zipf), all equal (flat), or the worst case for the drawing (wide):
 * 11,000 stacks of equal weight, each just wider than 0.1 px and apart
 * from the first frame below the syscall entry, the rest too light to draw.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "lib/ksyms.h"
#include "lock/out/out.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "tests/test.h"

/* The report's configuration of O, as a run builds it (no command). */
static const struct lock_report_cfg *cfg_of(const struct lock_opts *o)
{
	static struct lock_report_cfg rc;

	lock_report_cfg__build(&rc, o, false);
	return &rc;
}

#define DEPTH 16
#define BASE 0xffffffff81000000ULL

static struct lock_opts opts(enum lock_aggr mode)
{
	struct lock_opts o = { .mode = mode, .sort = LOCK_SORT_WAIT_TOTAL,
			       .fields = LOCK_FIELDS_DEFAULT, .map_entries = 8, .ring_kb = 256,
			       .format = LOCK_FMT_SVG };

	o.max_stack = o.user_max_stack = mode == LOCK_AGGR_CALLER ? DEPTH : 0;
	return o;
}

/* The SVG of T, in a malloc'd string. */
static char *svg_of(const struct lock_opts *o, struct lock_table *t, struct ksyms *ks,
		    const char *command)
{
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x",
				    .command = command };
	struct lock_accounting a = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	a.c[LC_ENDS] = lock_table__sum_count(t);
	if (lock_report(f, LOCK_FMT_SVG, cfg_of(o), t, &a, &ri, ks)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

static struct lock_stat st(uint32_t count, uint64_t total, uint64_t max, uint32_t flags)
{
	struct lock_stat s = { total, max, 1, count, flags };

	return s;
}

/* A row of stack INNER..OUTER (function indexes into syms_names), innermost first. */
static void add_stack(struct lock_table *t, uint64_t key, struct lock_stat s,
		      const int *fn, int n)
{
	uint64_t stack[DEPTH] = { 0 };
	int i;

	for (i = 0; i < n; i++)
		stack[i] = BASE + fn[i] * 0x1000ULL + 0x10;
	lock_table__add(t, key, &s, stack, sizeof(stack));
}

static const char *const syms_names[] = {
	"entry_SYSCALL_64", "do_syscall_64", "ksys_write", "vfs_write", "pipe_write",
	"__mutex_lock_slowpath", "vm_mmap_pgoff", "down_write_killable",
};

static struct ksyms *small_syms(void)
{
	struct ksyms *ks = ksyms__new();
	size_t i;

	for (i = 0; ks && i < sizeof(syms_names) / sizeof(syms_names[0]); i++)
		ksyms__add(ks, BASE + i * 0x1000, 'T', syms_names[i]);
	if (ks)
		ksyms__sort(ks);
	return ks;
}

/* Is there a frame called NAME with data-v="V" (count total max)? */
static bool frame_has(const char *svg, const char *name, const char *v)
{
	char want[256];

	snprintf(want, sizeof(want), "<g data-v=\"%s\"><title>%s</title>", v, name);
	return strstr(svg, want);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s += strlen(what))
		n++;
	return n;
}

static void test_merge(void)
{
	struct lock_opts o = opts(LOCK_AGGR_CALLER);
	struct lock_table *t = lock_table__new(DEPTH);
	struct ksyms *ks = small_syms();
	/* innermost first: two pipe paths (different offsets would merge too), one mmap */
	static const int pipe1[] = { 5, 4, 3, 2, 1, 0 }, pipe2[] = { 5, 3, 2, 1, 0 };
	static const int mm[] = { 7, 6, 1, 0 };
	char *svg;

	TEST_BEGIN("svg: stacks merge by name; counts and totals add, max is the max");
	if (!CHECK(t && ks, "setup"))
		goto out;
	add_stack(t, 1, st(10, 1000, 300, LCB_F_MUTEX), pipe1, 6);
	add_stack(t, 2, st(5, 4000, 2000, LCB_F_MUTEX), pipe2, 5);
	add_stack(t, 3, st(7, 7000, 1500, LCB_F_WRITE), mm, 4);
	svg = svg_of(&o, t, ks, NULL);
	if (!CHECK(svg, "no report"))
		goto out;
	CHECK(frame_has(svg, "all", "22 12000 2000"), "root: %.300s", strstr(svg, "<g data-v"));
	CHECK(frame_has(svg, "do_syscall_64", "22 12000 2000"), "shared prefix");
	CHECK(frame_has(svg, "vfs_write", "15 5000 2000"), "merged pipe paths");
	CHECK(frame_has(svg, "pipe_write", "10 1000 300"), "one pipe path");
	CHECK(count_of(svg, "<title>[mutex]</title>") == 2, "a leaf per path");
	CHECK(frame_has(svg, "[rwsem:W]", "7 7000 1500"), "mmap leaf");
	CHECK(count_of(svg, "<g ") == count_of(svg, "</g>"), "groups balanced");
	CHECK(count_of(svg, "<text ") == count_of(svg, "</text>"), "texts balanced");
	/* children by name: do_syscall_64's ksys_write left of vm_mmap_pgoff */
	CHECK(strstr(svg, "<title>ksys_write") < strstr(svg, "<title>vm_mmap_pgoff"), "order");
	CHECK(strstr(svg, "WI=1;"), "weight: total wait");
	CHECK(strstr(svg, "in 3 rows"), "rows in the totals");
	free(svg);
out:
	ksyms__free(ks);
	lock_table__free(t);
	TEST_END();
}

/* A task-mode table: row I+1 is COMMS[I]'s, with STATS[I]. */
static struct lock_table *task_table(const char *const *comms, const struct lock_stat *stats,
				     size_t n)
{
	struct lock_table *t = lock_table__new(0);
	char comm[LOCK_COMM_LEN];
	size_t i;

	for (i = 0; t && i < n; i++) {
		snprintf(comm, sizeof(comm), "%s", comms[i]);
		if (lock_table__add(t, i + 1, &stats[i], comm, sizeof(comm))) {
			lock_table__free(t);
			return NULL;
		}
	}
	return t;
}

static void test_escape(void)
{
	static const char *const comms[] = { "<a&\"b'>\xff\x01z" };
	struct lock_stat stats[] = { st(3, 30, 10, LCB_F_SPIN) };
	struct lock_table *t = task_table(comms, stats, 1);
	struct lock_opts o = opts(LOCK_AGGR_TASK);
	char *svg = t ? svg_of(&o, t, NULL, "sh -c 'a < b && c' \x1b[0m") : NULL;

	TEST_BEGIN("svg: names and the command are escaped for XML");
	if (CHECK(svg, "no report")) {
		/* the control byte is '_' from lock_out__stack; 0xff is not UTF-8 */
		CHECK(strstr(svg, "<title>&lt;a&amp;&quot;b&apos;&gt;\xef\xbf\xbd_z-1</title>"),
		      "comm: %.200s", strstr(svg, "<title>&lt;") ?: "(none)");
		CHECK(strstr(svg, "sh -c &apos;a &lt; b &amp;&amp; c&apos; \xef\xbf\xbd[0m"),
		      "command not escaped");
		CHECK(!strstr(svg, "<a&"), "raw name in the file");
	}
	free(svg);
	lock_table__free(t);
	TEST_END();
}

static void test_narrow(void)
{
	static const char *const comms[] = { "big", "tiny" };
	/* tiny: 1180 px * 50e-9, far below 0.1 px; but 2 of 3 contentions */
	struct lock_stat stats[] = { st(1, 1000000000, 1000000000, LCB_F_SPIN),
				     st(2, 50, 30, LCB_F_SPIN) };
	struct lock_table *t = task_table(comms, stats, 2);
	struct lock_opts o = opts(LOCK_AGGR_TASK);
	char *svg = t ? svg_of(&o, t, NULL, NULL) : NULL;

	TEST_BEGIN("svg: frames under 0.1 px are left out and counted; the root keeps them");
	if (CHECK(svg, "no report")) {
		CHECK(frame_has(svg, "all", "3 1000000050 1000000000"), "root");
		CHECK(!strstr(svg, "<title>tiny-2"), "a 0.00006 px frame drawn");
		CHECK(strstr(svg, "frames: 3 drawn, 2 narrower than 0.1 px"), "not counted: %.200s",
		      strstr(svg, "frames:") ?: "(none)");
	}
	free(svg);
	o.weight = LOCK_WEIGHT_CONTENDED;
	svg = t ? svg_of(&o, t, NULL, NULL) : NULL;
	if (CHECK(svg, "no report by contentions")) {
		CHECK(strstr(svg, "<title>tiny-2</title><rect x=\"403.3333\" y=\"94\" "
			      "width=\"786.6667\""),
		      "contended width: %.200s", strstr(svg, "<title>tiny-2") ?: "(none)");
		CHECK(strstr(svg, "WI=0;"), "weight: contentions");
	}
	free(svg);
	lock_table__free(t);
	TEST_END();
}

static void test_empty(void)
{
	struct lock_opts o = opts(LOCK_AGGR_CALLER);
	struct lock_table *t = lock_table__new(DEPTH);
	char *svg;

	TEST_BEGIN("svg: no rows still makes a graph with its root and accounting");
	if (!CHECK(t, "setup"))
		return;
	svg = svg_of(&o, t, NULL, NULL);
	if (CHECK(svg, "no report")) {
		CHECK(frame_has(svg, "all", "0 0 0"), "root");
		CHECK(strstr(svg, "data-key=\"completed\">0<"), "accounting");
		CHECK(strstr(svg, "</svg>\n"), "end");
	}
	free(svg);
	lock_table__free(t);
	TEST_END();
}

/* ---- the generator ---- */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

#define NR_FN 12000
#define WIDE_HEAVY 11000

/* NR_FN names as kernel functions are named: subsystem_verb_object. */
static struct ksyms *gen_syms(void)
{
	static const char *const a[] = { "vfs", "ext4", "xfs", "btrfs", "mm", "do", "__do",
		"tcp", "udp", "ip", "sock", "blk", "bio", "sched", "folio", "filemap", "shmem",
		"kmem", "inode", "dentry", "path", "pipe", "futex", "task", "irq", "rcu", "net",
		"skb", "dev", "page" };
	static const char *const b[] = { "read", "write", "alloc", "free", "lookup", "open",
		"release", "fault", "map", "unmap", "sync", "flush", "wait", "get", "put",
		"insert", "remove", "update", "submit", "complete", "queue", "poll", "try" };
	static const char *const c[] = { "page", "pages", "iter", "folio", "range", "entry",
		"node", "buffer", "inode", "sb", "rq", "state", "list", "slowpath", "one" };
	struct ksyms *ks = ksyms__new();
	char name[64];
	int i;

	for (i = 0; ks && i < NR_FN; i++) {
		uint64_t h = mix(i + 1);

		/* 10,350 combinations; past them, a second series */
		snprintf(name, sizeof(name), "%s_%s_%s%s", a[i % 30], b[i / 30 % 23],
			 c[(i / 690 + (h & 7)) % 15], i >= 30 * 23 * 15 ? "_2" : "");
		ksyms__add(ks, BASE + i * 0x1000ULL, 'T', name);
	}
	if (ks) {
		ksyms__add(ks, BASE + NR_FN * 0x1000ULL, 'T', "entry_SYSCALL_64_after_hwframe");
		ksyms__add(ks, BASE + (NR_FN + 1) * 0x1000ULL, 'T', "do_syscall_64");
		ksyms__add(ks, BASE + (NR_FN + 2) * 0x1000ULL, 'T', "__mutex_lock_slowpath");
		ksyms__add(ks, BASE + (NR_FN + 3) * 0x1000ULL, 'T', "rwsem_down_write_slowpath");
		ksyms__sort(ks);
	}
	return ks;
}

/*
 * Stack I, innermost first: the lock's slow path, up to 5 more frames,
 * 6 frames that spell I in mixed radix (so every stack is distinct, and
 * stacks share prefixes as real ones do), the syscall entry.  WIDE: the
 * first of them is I's own function, so stacks part there.
 */
static int gen_stack(uint64_t i, bool wide, uint64_t *stack)
{
	static const unsigned int radix[] = { 6, 8, 10, 12, 14, 16 };
	uint64_t path[DEPTH], prefix = 0, rest = i, h = mix(i ^ 0x5bd1e995);
	int n = 0, k, extra = h % 6;

	path[n++] = NR_FN;
	path[n++] = NR_FN + 1;
	for (k = 0; k < 6; k++) {
		unsigned int digit = rest % radix[k];

		rest /= radix[k];
		prefix = mix(prefix + path[n - 1]);
		/* 7919 is prime to NR_FN: distinct digits, distinct functions */
		path[n++] = wide && !k ? i % NR_FN : (prefix + digit * 7919ULL) % NR_FN;
	}
	for (k = 0; k < extra; k++)
		path[n++] = mix(prefix + k) % NR_FN;
	path[n++] = NR_FN + 2 + (h >> 8) % 2;
	for (k = 0; k < n; k++)
		stack[k] = BASE + path[n - 1 - k] * 0x1000ULL + 0x10;
	return n;
}

static int generate(unsigned long n, const char *path, const char *dist, bool verbose)
{
	struct lock_opts o = opts(LOCK_AGGR_CALLER);
	struct lock_table *t = lock_table__new(DEPTH);
	struct ksyms *ks = gen_syms();
	bool wide = !strcmp(dist, "wide"), flat = wide || !strcmp(dist, "flat");
	struct lock_accounting a = { 0 };
	struct lock_run_info ri = { .attach = "synthetic", .seconds = 1.0, .kernel = "none" };
	struct timespec t0, t1;
	unsigned long i;
	FILE *f = NULL;
	int err = 1;

	if (!t || !ks || !(f = fopen(path, "w")))
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t stack[DEPTH] = { 0 }, h = mix(i);
		/* zipf: the row of rank r waits 1/r as long as the first */
		uint64_t total = wide ? (i < WIDE_HEAVY ? 1000000 : 1) : flat ? 1000000 :
				 1000000000 / (1 + h % n) + 1000;
		uint32_t count = 1 + (h >> 32) % 64;
		struct lock_stat s = st(count, total, total / count + 1, LCB_F_MUTEX);

		gen_stack(i, wide, stack);
		if (lock_table__add(t, i + 1, &s, stack, sizeof(stack)))
			goto out;
	}
	a.c[LC_ENDS] = lock_table__sum_count(t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = lock_report(f, LOCK_FMT_SVG, cfg_of(&o), t, &a, &ri, ks) ? 1 : 0;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (verbose)
		fprintf(stderr, "%lu stacks (%s): report written in %.3f s\n", n, dist,
			t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9);
out:
	if (f && fclose(f))
		err = 1;
	ksyms__free(ks);
	lock_table__free(t);
	return err;
}

static void test_many(void)
{
	char path[] = "/tmp/test_lock_svg.XXXXXX", *buf = NULL;
	int fd = mkstemp(path);
	size_t len = 0, cap = 0;
	FILE *f;

	TEST_BEGIN("svg: 5,000 distinct generated stacks make a balanced graph");
	if (!CHECK(fd >= 0, "mkstemp"))
		return;
	close(fd);
	CHECK_EQ(generate(5000, path, "zipf", false), 0);
	f = fopen(path, "r");
	if (CHECK(f, "reopen") && getdelim(&buf, &cap, '\0', f) > 0) {
		len = strlen(buf);
		CHECK(len > 10000 && strstr(buf + len - 20, "</svg>"), "%zu bytes", len);
		CHECK(count_of(buf, "<g ") == count_of(buf, "</g>"), "groups balanced");
		CHECK(count_of(buf, "<text ") == count_of(buf, "</text>"), "texts balanced");
		CHECK(strstr(buf, "in 5000 rows"), "rows");
	}
	if (f)
		fclose(f);
	free(buf);
	unlink(path);
	TEST_END();
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "--gen")) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(argv[2], &end, 10);
		if (errno || end == argv[2] || *end || !n || n > 10000000) {
			fprintf(stderr, "test_lock_svg: --gen N: 1 to 10000000, not '%s'\n", argv[2]);
			return 2;
		}
		return generate(n, argv[3], argc > 4 ? argv[4] : "zipf", true);
	}
	test_merge();
	test_escape();
	test_narrow();
	test_empty();
	test_many();
	TEST_EXIT();
}
