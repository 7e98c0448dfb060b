// SPDX-License-Identifier: GPL-2.0
/*
 * The report: perf's columns and units for the table, raw nanoseconds for
 * -x CSV, one object for --json; then the accounting that shows where every
 * completed contention went.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "lib/iodir.h"
#include "lib/linebuf.h"
#include "lib/ksyms.h"
#include "lock/lock_int.h"

static const struct {
	uint32_t flags;
	const char *str;	/* printed */
	const char *name;	/* accepted by -Y for every variant */
} lock_types[] = {
	{ 0,				"semaphore",	"semaphore" },
	{ LCB_F_SPIN,			"spinlock",	"spinlock" },
	{ LCB_F_SPIN | LCB_F_READ,	"rwlock:R",	"rwlock" },
	{ LCB_F_SPIN | LCB_F_WRITE,	"rwlock:W",	"rwlock" },
	{ LCB_F_READ,			"rwsem:R",	"rwsem" },
	{ LCB_F_WRITE,			"rwsem:W",	"rwsem" },
	{ LCB_F_RT,			"rt-mutex",	"rt-mutex" },
	{ LCB_F_RT | LCB_F_READ,	"rwlock-rt:R",	"rwlock-rt" },
	{ LCB_F_RT | LCB_F_WRITE,	"rwlock-rt:W",	"rwlock-rt" },
	{ LCB_F_PERCPU | LCB_F_READ,	"pcpu-sem:R",	"percpu-rwsem" },
	{ LCB_F_PERCPU | LCB_F_WRITE,	"pcpu-sem:W",	"percpu-rwsem" },
	{ LCB_F_MUTEX,			"mutex",	"mutex" },
	{ LCB_F_MUTEX | LCB_F_SPIN,	"mutex",	"mutex" },
};

#define NR_TYPES (sizeof(lock_types) / sizeof(lock_types[0]))

const char *lock_type_name(uint32_t flags)
{
	size_t i;

	flags &= LCB_F_MASK;
	for (i = 0; i < NR_TYPES; i++)
		if (lock_types[i].flags == flags)
			return lock_types[i].str;
	return "unknown";
}

/* One -Y item: "rwsem", "rwsem:W", "pcpu-sem:R", "mutex-spin", ... */
static int type_item(const char *s, size_t n, uint64_t *mask)
{
	uint64_t m = 0;
	size_t i;

	if (n == 10 && !strncmp(s, "mutex-spin", n)) {
		*mask |= 1ULL << (LCB_F_MUTEX | LCB_F_SPIN);
		return 0;
	}
	for (i = 0; i < NR_TYPES; i++) {
		const char *str = lock_types[i].str, *name = lock_types[i].name;

		if ((strlen(name) == n && !strncmp(name, s, n)) ||
		    (strlen(str) == n && !strncmp(str, s, n)))
			m |= 1ULL << lock_types[i].flags;
	}
	/* "percpu-rwsem:R" and friends: the family name with a mode. */
	if (!m && n > 2 && s[n - 2] == ':' && (s[n - 1] == 'R' || s[n - 1] == 'W')) {
		uint32_t rw = s[n - 1] == 'R' ? LCB_F_READ : LCB_F_WRITE;

		for (i = 0; i < NR_TYPES; i++)
			if (strlen(lock_types[i].name) == n - 2 &&
			    !strncmp(lock_types[i].name, s, n - 2) &&
			    (lock_types[i].flags & rw))
				m |= 1ULL << lock_types[i].flags;
	}
	if (!m)
		return -EINVAL;
	*mask |= m;
	return 0;
}

int lock_type_parse(const char *arg, uint64_t *mask)
{
	const char *p = arg;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ", ");

		if (n && type_item(p, n, mask))
			return -EINVAL;
		p += n;
		p += strspn(p, ", ");
	}
	return *mask ? 0 : -EINVAL;
}

void lock_fmt_time(char *buf, size_t size, uint64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
}

/* ---- symbols ---- */

struct symctx {
	struct ksyms *ks;
	uint64_t text[2][2];	/* [lock|sched][start,end) */
};

static void symctx_init(struct symctx *sc, struct ksyms *ks)
{
	static const char *marks[2][2] = {
		{ "__lock_text_start", "__lock_text_end" },
		{ "__sched_text_start", "__sched_text_end" },
	};
	int i, j;

	memset(sc, 0, sizeof(*sc));
	sc->ks = ks;
	for (i = 0; ks && i < 2; i++)
		for (j = 0; j < 2; j++)
			if (ksyms__find(ks, marks[i][j], &sc->text[i][j]))
				sc->text[i][0] = sc->text[i][1] = 0;
}

/* Does the symbol holding IP start with one of PREFIXES? */
static bool name_has_prefix(const struct symctx *sc, uint64_t ip,
			    const char *const *prefixes, size_t n)
{
	struct ksym s;
	uint64_t off;
	size_t i;

	if (!sc->ks || ksyms__resolve(sc->ks, ip, &s, &off))
		return false;
	for (i = 0; i < n; i++)
		if (!strncmp(s.name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Locking code, by section as the kernel lays it out, or by name. */
static bool is_lock_function(const struct symctx *sc, uint64_t ip)
{
	static const char *prefixes[] = {
		"mutex_", "__mutex_", "rwsem_", "down_", "__down_", "up_",
		"_raw_", "queued_", "native_queued_", "__percpu_down", "percpu_down",
		"rt_mutex", "__rt_mutex", "rwbase_", "osq_", "__pv_queued",
	};
	size_t i;

	for (i = 0; i < 2; i++)
		if (ip >= sc->text[i][0] && ip < sc->text[i][1])
			return true;
	return name_has_prefix(sc, ip, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/* The tracepoint's own frames, kept on top of a stack by the kernel. */
static bool is_machinery(const struct symctx *sc, uint64_t ip)
{
	static const char *prefixes[] = {
		"bpf_trace_run", "__traceiter_", "__bpf_trace_", "bpf_prog_",
	};

	return name_has_prefix(sc, ip, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/* Index of the first frame to show: past the machinery, if we kept it. */
static unsigned int first_frame(const struct lock_opts *o, const struct symctx *sc,
				const struct lock_row *r)
{
	unsigned int i = 0;

	while (o->strip_machinery && r->stack && i < LOCK_MACHINERY_FRAMES &&
	       i < o->max_stack && r->stack[i] && is_machinery(sc, r->stack[i]))
		i++;
	return i;
}

static void fmt_sym(const struct symctx *sc, uint64_t ip, char *buf, size_t size)
{
	struct ksym s;
	uint64_t off;

	if (sc->ks && !ksyms__resolve(sc->ks, ip, &s, &off))
		snprintf(buf, size, "%s+0x%" PRIx64, s.name, off);
	else
		snprintf(buf, size, "0x%" PRIx64, ip);
}

static void fmt_caller(const struct lock_opts *o, const struct symctx *sc,
		       const struct lock_row *r, char *buf, size_t size)
{
	unsigned int i, max_stack = o->max_stack;

	snprintf(buf, size, "[unknown]");
	if (!r->stack)
		return;
	for (i = first_frame(o, sc, r); i < max_stack && r->stack[i]; i++) {
		if (is_lock_function(sc, r->stack[i]) && i + 1 < max_stack &&
		    r->stack[i + 1])
			continue;
		fmt_sym(sc, r->stack[i], buf, size);
		return;
	}
}

/* ---- cgroup names: one walk of the cgroup v2 hierarchy for all rows ---- */

/*
 * A row's key is bpf_get_current_cgroup_id(): an id in the cgroup v2
 * hierarchy, which is also the inode number of the cgroup's directory
 * there.  Only that mount may be searched: on a hybrid system
 * /sys/fs/cgroup is a tmpfs holding the v1 hierarchies, whose inode numbers
 * are ids of other hierarchies and would give a wrong name.  A cgroup that
 * is not found (removed before the report, deeper than the walk goes, or
 * with a path longer than IODIR_PATH_MAX) is named "cgroup:ID", as perf
 * names it; a name is never cut short.
 */
#define CG_WALK_DEPTH IODIR_WALK_MAX_DEPTH

struct cg_walk {
	struct lock_row **rows;
	size_t n, left;		/* rows, and rows still unnamed */
	char **names;
	size_t root_len;	/* strip the mount point from walk paths */
	dev_t dev;		/* the v2 mount's: no descent into other mounts */
};

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return !statfs(path, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* Undo mountinfo's octal escapes (\040 for a blank) in place. */
static void unescape_mount(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* The mount point of a cgroup2 line of mountinfo, into BUF; 0 if none. */
static int mountinfo_cgroup2(char *line, char *buf, size_t size)
{
	char *sep = strstr(line, " - "), *f[5], *save = NULL;
	int i;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
		return 0;
	*sep = '\0';
	for (i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return 0;
	unescape_mount(f[4]);
	if (strlen(f[4]) >= size)
		return 0;
	strcpy(buf, f[4]);
	return 1;
}

/* Where the v2 hierarchy is mounted: the usual places, else mountinfo. */
static int cgroup2_mount(char *buf, size_t size)
{
	static const char *const usual[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct linebuf lb;
	char lbuf[4096], *line;
	size_t i, len;
	int err, found = 0;

	for (i = 0; i < sizeof(usual) / sizeof(usual[0]); i++)
		if (is_cgroup2(usual[i]) && strlen(usual[i]) < size) {
			strcpy(buf, usual[i]);
			return 0;
		}
	err = linebuf__open(&lb, "/proc/self/mountinfo", lbuf, sizeof(lbuf));
	if (err)
		return err;
	/* A line too long for lbuf is skipped; a read error ends the search. */
	while (!found && ((err = linebuf__next(&lb, &line, &len)) > 0 || err == -E2BIG))
		if (err > 0)
			found = mountinfo_cgroup2(line, buf, size);
	linebuf__close(&lb);
	return found ? 0 : -ENOENT;
}

static void cg_name(struct cg_walk *w, uint64_t id, const char *name)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->rows[i]->key == id && !w->names[i]) {
			w->names[i] = strdup(name);
			if (w->names[i])
				w->left--;
		}
}

static int cg_visit(const struct iodir_walk_entry *e, void *ctx)
{
	struct cg_walk *w = ctx;
	struct stat st;

	/* Gone since it was listed, or its path too long: left unnamed. */
	if (e->err || e->type != DT_DIR)
		return IODIR_WALK_CONTINUE;
	if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW))
		return IODIR_WALK_CONTINUE;
	if (st.st_dev != w->dev)
		return IODIR_WALK_SKIP;
	cg_name(w, st.st_ino, e->path + w->root_len);
	return w->left ? IODIR_WALK_CONTINUE : IODIR_WALK_STOP;
}

/* Names for ROWS, each NULL where the cgroup was not found; NULL if no memory. */
static char **cgroup_names(struct lock_row **rows, size_t n)
{
	struct cg_walk w = { .rows = rows, .n = n, .left = n };
	char root[IODIR_PATH_MAX];
	struct stat st;

	w.names = calloc(n ? n : 1, sizeof(char *));
	if (!w.names || cgroup2_mount(root, sizeof(root)) || stat(root, &st))
		return w.names;
	w.root_len = strlen(root);
	w.dev = st.st_dev;
	cg_name(&w, st.st_ino, "/");
	if (w.left)
		iodir__walk(AT_FDCWD, root, CG_WALK_DEPTH, cg_visit, &w);
	return w.names;
}

/* ---- one row's "name" columns ---- */

struct rowname {
	const char *a;		/* caller / pid / address / cgroup: abuf, or a cgroup path */
	char abuf[160];
	char b[160];		/* (task) comm, (addr) symbol */
};

static void row_name(const struct lock_opts *o, const struct symctx *sc,
		     const struct lock_row *r, const char *cg, struct rowname *rn)
{
	struct ksym s;
	uint64_t off;

	rn->a = rn->abuf;
	rn->b[0] = '\0';
	switch (o->mode) {
	case LOCK_AGGR_CALLER:
		fmt_caller(o, sc, r, rn->abuf, sizeof(rn->abuf));
		break;
	case LOCK_AGGR_TASK:
		snprintf(rn->abuf, sizeof(rn->abuf), "%" PRIu64, r->key);
		snprintf(rn->b, sizeof(rn->b), "%s", r->comm);
		break;
	case LOCK_AGGR_ADDR:
		snprintf(rn->abuf, sizeof(rn->abuf), "%016" PRIx64, r->key);
		if (r->st.flags & LOCK_F_MMAP_LOCK)
			snprintf(rn->b, sizeof(rn->b), "mmap_lock");
		else if (r->st.flags & LOCK_F_SIGLOCK)
			snprintf(rn->b, sizeof(rn->b), "siglock");
		else if (sc->ks && !ksyms__resolve(sc->ks, r->key, &s, &off) &&
			 strchr("dDbBrR", s.type) && off < 4096)
			snprintf(rn->b, sizeof(rn->b), off ? "%s+0x%" PRIx64 : "%s",
				 s.name, off);
		break;
	case LOCK_AGGR_CGROUP:
		/* A path of any length, as is; an unnamed cgroup by its id. */
		if (cg)
			rn->a = cg;
		else
			snprintf(rn->abuf, sizeof(rn->abuf), "cgroup:%" PRIu64, r->key);
		break;
	}
}

/* ---- table ---- */

static const struct {
	unsigned int field;
	enum lock_sort sort;
	const char *header, *key;
} fields[] = {
	{ LOCK_FIELD_CONTENDED,	 LOCK_SORT_CONTENDED,	"contended",	"contended" },
	{ LOCK_FIELD_WAIT_TOTAL, LOCK_SORT_WAIT_TOTAL,	"total wait",	"wait_total" },
	{ LOCK_FIELD_WAIT_MAX,	 LOCK_SORT_WAIT_MAX,	"max wait",	"wait_max" },
	{ LOCK_FIELD_WAIT_MIN,	 LOCK_SORT_WAIT_MIN,	"min wait",	"wait_min" },
	{ LOCK_FIELD_AVG_WAIT,	 LOCK_SORT_AVG_WAIT,	"avg wait",	"avg_wait" },
};
#define NR_FIELDS (sizeof(fields) / sizeof(fields[0]))

static const char *name_headers[][2] = {
	[LOCK_AGGR_CALLER] = { "type", "caller" },
	[LOCK_AGGR_TASK] = { "pid", "comm" },
	[LOCK_AGGR_ADDR] = { "address", "symbol" },
	[LOCK_AGGR_CGROUP] = { "type", "cgroup" },
};

static void print_header(FILE *f, const struct lock_opts *o)
{
	size_t i;

	for (i = 0; i < NR_FIELDS; i++)
		if (o->fields & fields[i].field)
			fprintf(f, "%*s ", i ? 12 : 10, fields[i].header);
	switch (o->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%10s   %s\n\n", "pid", "comm");
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%16s   %-24s %s\n\n", "address", "symbol", "type");
		break;
	default:
		fprintf(f, "%14s   %s\n\n", name_headers[o->mode][0],
			name_headers[o->mode][1]);
	}
}

/*
 * A comm or a cgroup path in the table: control characters (a newline in a
 * comm would start a bogus row) as '?', as ps prints them.  CSV and JSON
 * keep the bytes, quoted.
 */
static void put_table_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
	fputc('\n', f);
}

static void print_row(FILE *f, const struct lock_opts *o, const struct lock_row *r,
		      const struct rowname *rn)
{
	char t[32];
	size_t i;

	for (i = 0; i < NR_FIELDS; i++) {
		if (!(o->fields & fields[i].field))
			continue;
		if (fields[i].sort == LOCK_SORT_CONTENDED) {
			fprintf(f, "%10u ", r->st.count);
			continue;
		}
		lock_fmt_time(t, sizeof(t), lock_row_value(r, fields[i].sort));
		fprintf(f, "%12s ", t);
	}
	switch (o->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%10s   ", rn->a);
		put_table_text(f, rn->b);
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%16s   %-24s %s\n", rn->a, rn->b[0] ? rn->b : "-",
			lock_type_name(r->st.flags));
		break;
	default:
		fprintf(f, "%14s   ", lock_type_name(r->st.flags));
		put_table_text(f, rn->a);
	}
}

static void print_stack(FILE *f, const struct lock_opts *o, const struct symctx *sc,
			const struct lock_row *r, const char *indent)
{
	unsigned int i, n = 0;
	char buf[160];

	for (i = first_frame(o, sc, r); r->stack && i < o->max_stack && r->stack[i] &&
	     n < o->user_max_stack; i++, n++) {
		fmt_sym(sc, r->stack[i], buf, sizeof(buf));
		fprintf(f, "%s0x%" PRIx64 "  %s\n", indent, r->stack[i], buf);
	}
}

/*
 * A text field of a CSV row: comms, symbols and cgroup paths may hold the
 * separator, quotes or newlines (a task names itself), so such a field is
 * quoted as RFC 4180 says, its quotes doubled.
 */
static void put_csv_str(FILE *f, const char *s, const char *sep)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void print_csv_row(FILE *f, const struct lock_opts *o, const struct lock_row *r,
			  const struct rowname *rn)
{
	const char *sep = o->csv_sep;
	size_t i;

	for (i = 0; i < NR_FIELDS; i++) {
		if (!(o->fields & fields[i].field))
			continue;
		fprintf(f, "%" PRIu64 "%s", lock_row_value(r, fields[i].sort), sep);
	}
	switch (o->mode) {
	case LOCK_AGGR_TASK:
		fprintf(f, "%s%s", rn->a, sep);
		put_csv_str(f, rn->b, sep);
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, "%s%s", rn->a, sep);
		put_csv_str(f, rn->b, sep);
		fprintf(f, "%s%s", sep, lock_type_name(r->st.flags));
		break;
	default:
		fprintf(f, "%s%s", lock_type_name(r->st.flags), sep);
		put_csv_str(f, rn->a, sep);
	}
	fputc('\n', f);
}

static void print_csv_header(FILE *f, const struct lock_opts *o)
{
	const char *sep = o->csv_sep;
	size_t i;

	for (i = 0; i < NR_FIELDS; i++)
		if (o->fields & fields[i].field)
			fprintf(f, "%s%s", fields[i].key, sep);
	if (o->mode == LOCK_AGGR_ADDR)
		fprintf(f, "address%ssymbol%stype\n", sep, sep);
	else
		fprintf(f, "%s%s%s\n", name_headers[o->mode][0], sep,
			name_headers[o->mode][1]);
}

/* ---- accounting ---- */

struct acct_line {
	const char *json, *text;
	uint64_t v;
};

static uint64_t open_at_stop(const struct lock_accounting *a)
{
	const uint64_t *c = a->c;
	uint64_t recorded = c[LC_BEGINS] - c[LC_REBEGINS] - c[LC_DROP_TASK] - c[LC_DROP_NEST];
	uint64_t closed = c[LC_ENDS] - c[LC_UNMATCHED] + c[LC_STALE];

	return recorded > closed ? recorded - closed : 0;
}

static size_t acct_lines(const struct lock_accounting *a, uint64_t rows_sum,
			 struct acct_line *l)
{
	const uint64_t *c = a->c;
	size_t n = 0;

#define L(j, t, val) (l[n++] = (struct acct_line){ j, t, val })
	L("completed", "contentions completed (ends seen)", c[LC_ENDS]);
	L("in_rows", "  in rows (all of them, printed or not)", rows_sum);
	L("aggregated_in_kernel", "    aggregated in kernel", c[LC_AGGR_HIT]);
	L("merged_from_overflow", "    merged from overflow ring", a->merged);
	L("filtered", "  filtered out (-Y/-L/-S)", c[LC_FILTERED]);
	L("lost_no_begin", "  lost: begin not seen (before start, or dropped)", c[LC_UNMATCHED]);
	L("lost_ringbuf", "  lost: ring buffer full", c[LC_LOST_RING]);
	L("lost_skipped_end", "ends the kernel skipped, not taken (not completed)", a->skipped_end);
	L("lost_task", "begins dropped: no task slot", c[LC_DROP_TASK]);
	L("lost_nesting", "begins dropped: nesting too deep", c[LC_DROP_NEST]);
	L("lost_stack", "stacks not read (kept as [unknown])", c[LC_STACK_FAIL]);
	L("lost_time", "clock went backwards (kept as 0 ns)", c[LC_TIME_FAIL]);
	L("lost_data", "table inserts failed (sent to the ring)", c[LC_DATA_FAIL]);
	L("begins", "contention begins seen", c[LC_BEGINS]);
	L("rebegins", "  repeated begins of one wait", c[LC_REBEGINS]);
	L("open_at_stop", "waits still open at stop", open_at_stop(a));
	L("stale", "begins whose end was never seen", c[LC_STALE]);
	L("recursion_misses", "runs the kernel skipped (nested in ours)",
	  a->misses_begin + a->misses_end);
	L("nested_taken", "  taken by the second programs", c[LC_NESTED_BEGIN] + c[LC_NESTED_END]);
	L("lost_skipped_begin", "  begins not taken (their ends: lost_no_begin)", a->skipped_begin);
	L("overflow_events", "overflow ring events (waits)", c[LC_OVERFLOW]);
	L("overflow_definitions", "overflow ring events (key definitions)", c[LC_DEFS]);
	L("rows_created", "rows created in the kernel table", c[LC_AGGR_NEW]);
	L("stacks_walked", "stacks walked (learned frame sizes)", c[LC_STACK_WALKED]);
	L("stacks_unwound", "stacks unwound by the kernel", c[LC_STACK_UNWOUND]);
	L("stack_mismatches", "walked stacks that differed (--stack-check)", c[LC_STACK_MISMATCH]);
#undef L
	return n;
}

static void print_accounting(FILE *f, const char *prefix, const struct lock_accounting *a,
			     uint64_t rows_sum)
{
	struct acct_line l[32];
	size_t i, n = acct_lines(a, rows_sum, l);

	fprintf(f, "%s\n%s=== accounting ===\n", prefix, prefix);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%-52s %12" PRIu64 "\n", prefix, l[i].text, l[i].v);
	if (a->have_stats)
		fprintf(f, "%sBPF cost per event: begin %.0f ns, end %.0f ns\n", prefix,
			a->begin_runs ? (double)a->begin_ns / a->begin_runs : 0.0,
			a->end_runs ? (double)a->end_ns / a->end_runs : 0.0);
}

/* ---- JSON ---- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = *s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static const char *mode_names[] = { "caller", "task", "addr", "cgroup" };

static void json_meta(FILE *f, const struct lock_opts *o, const struct lock_run_info *ri)
{
	fprintf(f, "{\"tool\":\"frugal lock\",\"mode\":\"%s\",\"attach\":", mode_names[o->mode]);
	json_str(f, ri->attach ? ri->attach : "");
	fprintf(f, ",\"kernel\":");
	json_str(f, ri->kernel ? ri->kernel : "");
	fprintf(f, ",\"duration_s\":%.3f,\"targets\":{\"system_wide\":%s",
		ri->seconds, o->target_mode != LOCK_TARGET_ALL || o->follow_forks ? "false" : "true");
	if (o->pid_arg) {
		fprintf(f, ",\"pid\":");
		json_str(f, o->pid_arg);
	}
	if (o->tid_arg) {
		fprintf(f, ",\"tid\":");
		json_str(f, o->tid_arg);
	}
	if (o->cpu_list) {
		fprintf(f, ",\"cpu\":");
		json_str(f, o->cpu_list);
	}
	if (ri->command) {
		fprintf(f, ",\"command\":");
		json_str(f, ri->command);
		fprintf(f, ",\"exit_status\":%d", ri->exit_status);
	}
	fprintf(f, "},\"map_entries\":%u,\"ring_bytes\":%u,\"max_stack\":%u,",
		o->map_entries, o->ring_kb * 1024,
		o->user_max_stack ? o->user_max_stack : o->max_stack);
}

static void json_row(FILE *f, const struct lock_opts *o, const struct symctx *sc,
		     const struct lock_row *r, const struct rowname *rn, bool first)
{
	char buf[160];
	unsigned int i, n;

	fprintf(f, "%s\n{\"contended\":%u,\"wait_total_ns\":%" PRIu64
		",\"wait_max_ns\":%" PRIu64 ",\"wait_min_ns\":%" PRIu64
		",\"avg_wait_ns\":%" PRIu64 ",\"type\":", first ? "" : ",",
		r->st.count, (uint64_t)r->st.total_ns, (uint64_t)r->st.max_ns, (uint64_t)r->st.min_ns,
		lock_row_value(r, LOCK_SORT_AVG_WAIT));
	json_str(f, lock_type_name(r->st.flags));
	switch (o->mode) {
	case LOCK_AGGR_CALLER:
		fprintf(f, ",\"caller\":");
		json_str(f, rn->a);
		fprintf(f, ",\"stack\":[");
		for (i = first_frame(o, sc, r), n = 0; r->stack && i < o->max_stack &&
		     r->stack[i] && n < o->user_max_stack; i++, n++) {
			fmt_sym(sc, r->stack[i], buf, sizeof(buf));
			fprintf(f, "%s", n ? "," : "");
			json_str(f, buf);
		}
		fprintf(f, "]");
		break;
	case LOCK_AGGR_TASK:
		fprintf(f, ",\"pid\":%s,\"comm\":", rn->a);
		json_str(f, rn->b);
		break;
	case LOCK_AGGR_ADDR:
		fprintf(f, ",\"address\":\"0x%" PRIx64 "\",\"symbol\":", r->key);
		json_str(f, rn->b);
		break;
	case LOCK_AGGR_CGROUP:
		fprintf(f, ",\"cgroup_id\":%" PRIu64 ",\"cgroup\":", r->key);
		json_str(f, rn->a);
		break;
	}
	fputc('}', f);
}

static void json_accounting(FILE *f, const struct lock_accounting *a, uint64_t rows_sum)
{
	struct acct_line l[32];
	size_t i, n = acct_lines(a, rows_sum, l);

	fprintf(f, "],\n\"accounting\":{");
	for (i = 0; i < n; i++)
		fprintf(f, "%s\"%s\":%" PRIu64, i ? "," : "", l[i].json, l[i].v);
	fprintf(f, "},\n\"bpf_stats\":");
	if (a->have_stats)
		fprintf(f, "{\"begin_run_cnt\":%" PRIu64 ",\"begin_run_time_ns\":%" PRIu64
			",\"end_run_cnt\":%" PRIu64 ",\"end_run_time_ns\":%" PRIu64
			",\"begin2_run_cnt\":%" PRIu64 ",\"end2_run_cnt\":%" PRIu64 "}",
			a->begin_runs, a->begin_ns, a->end_runs, a->end_ns, a->begin2_runs,
			a->end2_runs);
	else
		fprintf(f, "null");
	fprintf(f, "}\n");
}

int lock_report(FILE *f, const struct lock_opts *o, struct lock_table *t,
		const struct lock_accounting *a, const struct lock_run_info *ri,
		struct ksyms *ks)
{
	struct lock_row **rows = lock_table__sorted(t, o->sort);
	size_t i, n = lock_table__len(t);
	char **cg = NULL;
	struct symctx sc;
	struct rowname rn;

	if (!rows)
		return -ENOMEM;
	symctx_init(&sc, ks);
	if (o->entries && n > o->entries)
		n = o->entries;
	if (o->mode == LOCK_AGGR_CGROUP)
		cg = cgroup_names(rows, n);
	if (o->json)
		json_meta(f, o, ri), fprintf(f, "\"rows\":[");
	else if (o->csv_sep)
		print_csv_header(f, o);
	else
		print_header(f, o);
	for (i = 0; i < n; i++) {
		row_name(o, &sc, rows[i], cg ? cg[i] : NULL, &rn);
		if (o->json) {
			json_row(f, o, &sc, rows[i], &rn, i == 0);
		} else if (o->csv_sep) {
			print_csv_row(f, o, rows[i], &rn);
		} else {
			print_row(f, o, rows[i], &rn);
			if (o->verbose_stacks)
				print_stack(f, o, &sc, rows[i], "\t\t\t");
		}
	}
	if (o->json)
		json_accounting(f, a, lock_table__sum_count(t));
	else
		print_accounting(f, o->csv_sep ? "# " : "", a, lock_table__sum_count(t));
	for (i = 0; cg && i < n; i++)
		free(cg[i]);
	free(cg);
	free(rows);
	return 0;
}
