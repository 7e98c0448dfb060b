// SPDX-License-Identifier: GPL-2.0
/*
 * --pprof: the report of a small table, gunzipped and decoded here with a
 * minimal protobuf reader (varints and length-delimited fields, which is
 * all profile.proto uses), checked field by field: the string table, the
 * sample types, each sample's values and locations (leaf first), one
 * location per address and one function per name, the kernel's mapping,
 * the accounting as comments.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <zlib.h>

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

/* ---- a minimal profile.proto reader ---- */

#define MAX_ITEMS 4096

struct pstr {
	const char *p;
	size_t len;
};

struct psample {
	uint64_t loc[LOCK_MAX_STACK + 2];
	size_t nloc;
	uint64_t val[4];
	size_t nval;
	uint64_t label[3];	/* LABEL_KEY, LABEL_STR */
};

struct ploc {
	uint64_t v[4];		/* LOC_ID, LOC_MAPPING_ID, LOC_ADDRESS */
	uint64_t function, nlines;
};

/* The fields read by number, as profile.proto numbers them (restated here, not
 * taken from the encoder, so that the test checks it against the spec). */
enum {
	VT_TYPE = 1, VT_UNIT = 2,
	LABEL_KEY = 1, LABEL_STR = 2,
	LOC_ID = 1, LOC_MAPPING_ID = 2, LOC_ADDRESS = 3, LOC_LINE = 4,
	LINE_FUNCTION_ID = 1,
	FN_ID = 1, FN_NAME = 2, FN_SYSTEM_NAME = 3,
	MAP_ID = 1, MAP_START = 2, MAP_LIMIT = 3, MAP_FILE = 5, MAP_HAS_FUNCTIONS = 7,
};

struct prof {
	struct pstr str[MAX_ITEMS];
	struct psample sample[MAX_ITEMS];
	struct ploc loc[MAX_ITEMS];
	uint64_t func[MAX_ITEMS][FN_SYSTEM_NAME + 1];
	uint64_t comment[MAX_ITEMS];
	size_t nstr, nsample, nloc, nfunc, ncomment, nmapping, nsample_type;
	uint64_t sample_type[4][VT_UNIT + 1], period_type[VT_UNIT + 1];
	uint64_t period, default_sample_type;
	uint64_t mapping[MAP_HAS_FUNCTIONS + 1];
	uint64_t time_nanos, duration_nanos;
	int bad;		/* a malformed field, or more than MAX_ITEMS of one */
};

struct rd {
	const uint8_t *p, *end;
	int *bad;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;
	int shift;

	for (shift = 0; r->p < r->end && shift < 64; shift += 7) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	*r->bad = 1;
	r->p = r->end;
	return 0;
}

/*
 * The next field of R: its number, and its value (varint) or its bytes
 * (length-delimited, in *SUB).  False at the end or on anything else.
 */
static bool rd_field(struct rd *r, unsigned int *field, uint64_t *v, struct rd *sub)
{
	uint64_t tag, len;

	if (r->p >= r->end)
		return false;
	tag = rd_varint(r);
	*field = tag >> 3;
	sub->bad = r->bad;
	sub->p = sub->end = NULL;
	switch (tag & 7) {
	case 0:
		*v = rd_varint(r);
		return !*r->bad;
	case 2:
		len = rd_varint(r);
		if (len > (uint64_t)(r->end - r->p))
			break;
		sub->p = r->p;
		sub->end = r->p + len;
		r->p += len;
		*v = len;
		return !*r->bad;
	}
	*r->bad = 1;
	return false;
}

static void push(uint64_t v, uint64_t *out, size_t *n, size_t max, int *bad)
{
	if (*n < max)
		out[(*n)++] = v;
	else
		*bad = 1;
}

/* A repeated varint field, packed (bytes in SUB) or not (V), into OUT. */
static void rd_repeated(struct rd *sub, uint64_t v, uint64_t *out, size_t *n, size_t max)
{
	if (!sub->p)
		push(v, out, n, max, sub->bad);
	while (sub->p && sub->p < sub->end)
		push(rd_varint(sub), out, n, max, sub->bad);
}

/* A message's varint fields below N by number: V[field], the last seen. */
static void rd_varints(struct rd r, uint64_t *v, unsigned int n)
{
	unsigned int f;
	struct rd sub;
	uint64_t x;

	while (rd_field(&r, &f, &x, &sub))
		if (f < n && !sub.p)
			v[f] = x;
}

static void rd_sample(struct rd *r, struct psample *s)
{
	struct rd sub;
	unsigned int f;
	uint64_t v;

	while (rd_field(r, &f, &v, &sub)) {
		if (f == 1)
			rd_repeated(&sub, v, s->loc, &s->nloc, LOCK_MAX_STACK + 2);
		else if (f == 2)
			rd_repeated(&sub, v, s->val, &s->nval, 4);
		else if (f == 3)
			rd_varints(sub, s->label, LABEL_STR + 1);
	}
}

static void rd_location(struct rd *r, struct ploc *l)
{
	uint64_t v, line[LINE_FUNCTION_ID + 1] = { 0 };
	struct rd sub;
	unsigned int f;

	rd_varints(*r, l->v, LOC_ADDRESS + 1);
	while (rd_field(r, &f, &v, &sub))
		if (f == LOC_LINE) {
			l->nlines++;
			rd_varints(sub, line, LINE_FUNCTION_ID + 1);
		}
	l->function = line[LINE_FUNCTION_ID];
}

/* Room for one more of N; bad when there is none. */
static bool room(struct prof *pr, size_t n)
{
	if (n < MAX_ITEMS)
		return true;
	pr->bad = 1;
	return false;
}

static void rd_profile(const uint8_t *p, size_t len, struct prof *pr)
{
	struct rd r = { p, p + len, &pr->bad }, sub;
	unsigned int f;
	uint64_t v;

	while (rd_field(&r, &f, &v, &sub)) {
		switch (f) {
		case 1:
			if (pr->nsample_type < 4)
				rd_varints(sub, pr->sample_type[pr->nsample_type++], VT_UNIT + 1);
			break;
		case 2:
			if (room(pr, pr->nsample))
				rd_sample(&sub, &pr->sample[pr->nsample++]);
			break;
		case 3: pr->nmapping++; rd_varints(sub, pr->mapping, MAP_HAS_FUNCTIONS + 1); break;
		case 4:
			if (room(pr, pr->nloc))
				rd_location(&sub, &pr->loc[pr->nloc++]);
			break;
		case 5:
			if (room(pr, pr->nfunc))
				rd_varints(sub, pr->func[pr->nfunc++], FN_SYSTEM_NAME + 1);
			break;
		case 6:
			if (room(pr, pr->nstr))
				pr->str[pr->nstr++] = (struct pstr){ (const char *)sub.p, v };
			break;
		case 9: pr->time_nanos = v; break;
		case 10: pr->duration_nanos = v; break;
		case 11: rd_varints(sub, pr->period_type, VT_UNIT + 1); break;
		case 12: pr->period = v; break;
		case 13: rd_repeated(&sub, v, pr->comment, &pr->ncomment, MAX_ITEMS); break;
		case 14: pr->default_sample_type = v; break;
		}
	}
	if (r.p != r.end)
		pr->bad = 1;
}

/* ---- lookups in a decoded profile ---- */

static bool str_is(const struct prof *pr, uint64_t i, const char *s)
{
	return i < pr->nstr && pr->str[i].len == strlen(s) &&
	       !memcmp(pr->str[i].p, s, pr->str[i].len);
}

static const struct ploc *loc_by_id(const struct prof *pr, uint64_t id)
{
	size_t i;

	for (i = 0; i < pr->nloc; i++)
		if (pr->loc[i].v[LOC_ID] == id)
			return &pr->loc[i];
	return NULL;
}

/* The name of location ID's function; "?" if any link is missing. */
static const char *loc_name(const struct prof *pr, uint64_t id, char *buf, size_t size)
{
	const struct ploc *l = loc_by_id(pr, id);
	size_t i;

	snprintf(buf, size, "?");
	for (i = 0; l && i < pr->nfunc; i++)
		if (pr->func[i][FN_ID] == l->function && pr->func[i][FN_NAME] < pr->nstr)
			snprintf(buf, size, "%.*s", (int)pr->str[pr->func[i][FN_NAME]].len,
				 pr->str[pr->func[i][FN_NAME]].p);
	return buf;
}

static bool has_comment(const struct prof *pr, const char *s)
{
	size_t i;

	for (i = 0; i < pr->ncomment; i++)
		if (str_is(pr, pr->comment[i], s))
			return true;
	return false;
}

/* No string twice, no id 0, no location or function id twice. */
static bool tables_unique(const struct prof *pr)
{
	size_t i, j;

	for (i = 0; i < pr->nstr; i++)
		for (j = i + 1; j < pr->nstr; j++)
			if (pr->str[i].len == pr->str[j].len &&
			    !memcmp(pr->str[i].p, pr->str[j].p, pr->str[i].len))
				return false;
	for (i = 0; i < pr->nloc; i++)
		for (j = i + 1; j <= pr->nloc; j++)
			if (!pr->loc[i].v[LOC_ID] || (j < pr->nloc && pr->loc[i].v[LOC_ID] == pr->loc[j].v[LOC_ID]))
				return false;
	for (i = 0; i < pr->nfunc; i++)
		for (j = i + 1; j <= pr->nfunc; j++)
			if (!pr->func[i][FN_ID] ||
			    (j < pr->nfunc && (pr->func[i][FN_ID] == pr->func[j][FN_ID] ||
					       pr->func[i][FN_NAME] == pr->func[j][FN_NAME])))
				return false;
	return true;
}

/* ---- running the report ---- */

static int gunzip(const uint8_t *in, size_t len, uint8_t **out, size_t *out_len)
{
	size_t cap = 1 << 16;
	z_stream z;
	int zerr;

	memset(&z, 0, sizeof(z));
	*out = malloc(cap);
	*out_len = 0;
	if (!*out || inflateInit2(&z, 16 + 15) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)in;
	z.avail_in = len;
	do {
		if (*out_len == cap) {
			uint8_t *p = realloc(*out, cap * 2);

			if (!p)
				break;
			*out = p;
			cap *= 2;
		}
		z.next_out = *out + *out_len;
		z.avail_out = cap - *out_len;
		zerr = inflate(&z, Z_NO_FLUSH);
		*out_len = cap - z.avail_out;
	} while (zerr == Z_OK);
	inflateEnd(&z);
	return zerr == Z_STREAM_END && !z.avail_in ? 0 : -EINVAL;
}

/*
 * T's --pprof report decoded into *PR (calloc'd); the raw bytes stay in
 * *RAW for PR's strings.  0, or a negative errno.
 */
static int pprof_report(const struct lock_opts *o, struct lock_table *t,
			const struct lock_accounting *a, const struct lock_run_info *ri,
			struct ksyms *ks, struct prof **pr, uint8_t **raw)
{
	char *gz = NULL;
	size_t gz_len = 0, raw_len;
	FILE *f = open_memstream(&gz, &gz_len);
	int err;

	*pr = calloc(1, sizeof(**pr));
	*raw = NULL;
	if (!f || !*pr) {
		if (f)
			fclose(f);
		free(gz);
		return -ENOMEM;
	}
	err = lock_report(f, LOCK_FMT_PPROF, cfg_of(o), t, a, ri, ks);
	fclose(f);
	if (!err && (gz_len < 2 || (uint8_t)gz[0] != 0x1f || (uint8_t)gz[1] != 0x8b))
		err = -EINVAL;
	if (!err)
		err = gunzip((uint8_t *)gz, gz_len, raw, &raw_len);
	if (!err)
		rd_profile(*raw, raw_len, *pr);
	free(gz);
	return err;
}

/* A row of COUNT waits, TOTAL ns, of type FLAGS, into T. */
static int add(struct lock_table *t, uint64_t key, uint32_t count, uint64_t total,
	       uint32_t flags, const void *tail, size_t tail_size)
{
	struct lock_stat s = { total, total, total, count, flags };

	return lock_table__add(t, key, &s, tail, tail_size);
}

/* ---- the cases ---- */

#define K(off) (0xffffffff81000000ULL + (off))

static struct ksyms *test_syms(void)
{
	static const struct { uint64_t addr; const char *name; } syms[] = {
		{ K(0), "_stext" },
		{ K(0x1000), "entry_SYSCALL_64" },
		{ K(0x100000), "do_mprotect_pkey" },
		{ K(0x200000), "anon_pipe_write" },
		{ K(0x1000000), "down_write_killable" },
		{ K(0x1001000), "rwsem_down_write_slowpath" },
		{ K(0x1002000), "__mutex_lock" },
	};
	struct ksyms *ks = ksyms__new();
	size_t i;

	for (i = 0; ks && i < sizeof(syms) / sizeof(syms[0]); i++)
		if (ksyms__add(ks, syms[i].addr, 'T', syms[i].name)) {
			ksyms__free(ks);
			return NULL;
		}
	if (ks)
		ksyms__sort(ks);
	return ks;
}

static void check_header(const struct prof *pr)
{
	size_t i;

	CHECK(!pr->bad, "the profile does not decode");
	for (i = 0; i < pr->nfunc; i++)
		CHECK(pr->func[i][FN_NAME] && pr->func[i][FN_SYSTEM_NAME] == pr->func[i][FN_NAME],
		      "function %zu: no name, or a system name of its own", i);
	CHECK(str_is(pr, 0, ""), "string_table[0] is not \"\"");
	CHECK(tables_unique(pr), "a string, location or function twice, or an id 0");
	CHECK_EQ(pr->nsample_type, 2);
	CHECK(str_is(pr, pr->sample_type[0][VT_TYPE], "contentions") &&
	      str_is(pr, pr->sample_type[0][VT_UNIT], "count"), "sample_type[0]");
	CHECK(str_is(pr, pr->sample_type[1][VT_TYPE], "delay") &&
	      str_is(pr, pr->sample_type[1][VT_UNIT], "nanoseconds"), "sample_type[1]");
	CHECK(str_is(pr, pr->period_type[VT_TYPE], "contentions") &&
	      str_is(pr, pr->period_type[VT_UNIT], "count"), "period_type");
	CHECK_EQ(pr->period, 1);
	CHECK(str_is(pr, pr->default_sample_type, "delay"), "default_sample_type");
}

/* Sample S's values and the addresses and names of its locations, leaf first. */
static void check_sample(const struct prof *pr, size_t s, uint64_t count, uint64_t ns,
			 const uint64_t *addrs, const char *const *names, size_t n)
{
	const struct psample *sp = &pr->sample[s];
	const struct ploc *l;
	char buf[64];
	size_t i;

	if (!CHECK(s < pr->nsample, "sample %zu missing", s))
		return;
	CHECK(sp->nval == 2 && sp->val[0] == count && sp->val[1] == ns,
	      "sample %zu: values [%" PRIu64 ", %" PRIu64 "], expected [%" PRIu64 ", %" PRIu64 "]",
	      s, sp->val[0], sp->val[1], count, ns);
	CHECK_EQ(sp->nloc, n);
	for (i = 0; i < n && i < sp->nloc; i++) {
		l = loc_by_id(pr, sp->loc[i]);
		if (!CHECK(l, "sample %zu: location %" PRIu64 " missing", s, sp->loc[i]))
			continue;
		CHECK(l->v[LOC_ADDRESS] == addrs[i], "sample %zu frame %zu: address %#" PRIx64
		      ", expected %#" PRIx64, s, i, l->v[LOC_ADDRESS], addrs[i]);
		CHECK(l->v[LOC_MAPPING_ID] == (addrs[i] ? 1 : 0), "sample %zu frame %zu: mapping %" PRIu64,
		      s, i, l->v[LOC_MAPPING_ID]);
		CHECK(l->nlines == 1, "sample %zu frame %zu: %" PRIu64 " lines", s, i, l->nlines);
		CHECK_STR(loc_name(pr, sp->loc[i], buf, sizeof(buf)), names[i]);
	}
}

static void test_caller(void)
{
	struct lock_opts o = { .mode = LOCK_AGGR_CALLER, .sort = LOCK_SORT_WAIT_TOTAL,
			       .max_stack = 4, .user_max_stack = 4, .format = LOCK_FMT_PPROF };
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 2.5, .kernel = "6.x",
				    .command = "bench" };
	uint64_t s1[4] = { K(0x1001010), K(0x1000020), K(0x100030), K(0x1040) };
	uint64_t s2[4] = { K(0x1002010), K(0x200008), K(0x1040), 0 };
	uint64_t s3[4] = { K(0x1001010), K(0x1000024), K(0x100030), K(0x1040) };
	uint64_t s4[4] = { K(0x1002010), K(0x200010), 0, 0 };
	static const char *const n1[] = { "[rwsem:W]", "rwsem_down_write_slowpath",
		"down_write_killable", "do_mprotect_pkey", "entry_SYSCALL_64" };
	static const char *const n2[] = { "[mutex]", "__mutex_lock", "anon_pipe_write",
		"entry_SYSCALL_64" };
	uint64_t a1[] = { 0, s3[0], s3[1], s3[2], s3[3] }, a2[] = { 0, s1[0], s1[1], s1[2], s1[3] };
	uint64_t a3[] = { 0, s2[0], s2[1], s2[2] };
	struct lock_table *t = lock_table__new(4);
	struct lock_accounting a = { 0 };
	struct ksyms *ks = test_syms();
	struct timespec now;
	struct prof *pr = NULL;
	uint8_t *raw = NULL;
	uint64_t start;

	TEST_BEGIN("lock pprof: caller mode, samples, locations, mapping, comments");
	if (!CHECK(t && ks, "no table or symbols"))
		goto out;
	add(t, 1, 3, 300, LCB_F_WRITE, s1, sizeof(s1));
	add(t, 2, 5, 50, LCB_F_MUTEX, s2, sizeof(s2));
	add(t, 3, 1, 1000, LCB_F_WRITE, s3, sizeof(s3));
	/* defined, never completed: no sample */
	lock_table__define(t, 4, LCB_F_MUTEX, s4, sizeof(s4));
	a.c[LC_ENDS] = 9;
	if (!CHECK_EQ(pprof_report(&o, t, &a, &ri, ks, &pr, &raw), 0))
		goto out;
	check_header(pr);
	/* sorted by total wait, as the other formats */
	CHECK_EQ(pr->nsample, 3);
	check_sample(pr, 0, 1, 1000, a1, n1, 5);
	check_sample(pr, 1, 3, 300, a2, n1, 5);
	check_sample(pr, 2, 5, 50, a3, n2, 4);
	CHECK(str_is(pr, pr->sample[0].label[LABEL_KEY], "lock_type") &&
	      str_is(pr, pr->sample[0].label[LABEL_STR], "rwsem:W"), "sample 0: no lock_type label");
	CHECK(str_is(pr, pr->sample[2].label[LABEL_STR], "mutex"), "sample 2: lock_type not mutex");
	/* one location per address (7) and per non-code name (2); one function per name */
	CHECK_EQ(pr->nloc, 9);
	CHECK_EQ(pr->nfunc, 8);
	CHECK_EQ(pr->nmapping, 1);
	CHECK_EQ(pr->mapping[MAP_ID], 1);
	CHECK(pr->mapping[MAP_START] == K(0), "mapping starts at %#" PRIx64 ", not at _stext",
	      pr->mapping[MAP_START]);
	CHECK(pr->mapping[MAP_LIMIT] == ~0ULL, "mapping limit %#" PRIx64, pr->mapping[MAP_LIMIT]);
	CHECK(str_is(pr, pr->mapping[MAP_FILE], "[kernel.kallsyms]"), "mapping file");
	CHECK_EQ(pr->mapping[MAP_HAS_FUNCTIONS], 1);
	CHECK(has_comment(pr, "completed 9"), "no comment \"completed 9\"");
	CHECK(has_comment(pr, "in_rows 9"), "no comment \"in_rows 9\"");
	CHECK(has_comment(pr, "lost_ringbuf 0"), "no comment \"lost_ringbuf 0\"");
	CHECK_EQ(pr->duration_nanos, 2500000000ULL);
	clock_gettime(CLOCK_REALTIME, &now);
	start = (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec - pr->duration_nanos;
	CHECK(pr->time_nanos <= start && pr->time_nanos + 60000000000ULL > start,
	      "time_nanos %" PRIu64 " is not the run's start (~%" PRIu64 ")", pr->time_nanos, start);
out:
	TEST_END();
	free(raw);
	free(pr);
	ksyms__free(ks);
	lock_table__free(t);
}

/* -t: the task is the root frame and no frame is code; -E cuts the samples. */
static void test_task(void)
{
	struct lock_opts o = { .mode = LOCK_AGGR_TASK, .sort = LOCK_SORT_CONTENDED,
			       .format = LOCK_FMT_PPROF };
	struct lock_run_info ri = { .attach = "raw_tp", .seconds = 1.0, .kernel = "6.x" };
	static const char *const n1[] = { "[mutex]", "worker-42" }, *const n2[] = { "[mutex]", "other-7" };
	static const uint64_t none[] = { 0, 0 };
	struct lock_table *t = lock_table__new(0);
	char comm1[LOCK_COMM_LEN] = "worker", comm2[LOCK_COMM_LEN] = "other";
	struct lock_accounting a = { 0 };
	struct prof *pr = NULL;
	uint8_t *raw = NULL;

	TEST_BEGIN("lock pprof: task mode, -E");
	if (!CHECK(t, "no table"))
		goto out;
	add(t, 42, 4, 40, LCB_F_MUTEX, comm1, sizeof(comm1));
	add(t, 7, 2, 90, LCB_F_MUTEX, comm2, sizeof(comm2));
	add(t, 8, 1, 9, LCB_F_SPIN, comm2, sizeof(comm2));
	a.c[LC_ENDS] = 7;
	if (!CHECK_EQ(pprof_report(&o, t, &a, &ri, NULL, &pr, &raw), 0))
		goto out;
	check_header(pr);
	CHECK_EQ(pr->nsample, 3);
	check_sample(pr, 0, 4, 40, none, n1, 2);
	check_sample(pr, 1, 2, 90, none, n2, 2);
	/* the type's location is shared: 3 tasks' and 2 types' */
	CHECK_EQ(pr->nloc, 5);
	CHECK_EQ(pr->nmapping, 0);
	free(raw);
	free(pr);
	o.entries = 1;
	if (!CHECK_EQ(pprof_report(&o, t, &a, &ri, NULL, &pr, &raw), 0))
		goto out;
	CHECK_EQ(pr->nsample, 1);
	CHECK(has_comment(pr, "in_rows 7"), "-E hides rows from the accounting");
out:
	TEST_END();
	free(raw);
	free(pr);
	lock_table__free(t);
}

/* Thousands of addresses and names: the maps grow, nothing is merged wrongly. */
static void test_many(void)
{
	struct lock_opts o = { .mode = LOCK_AGGR_CALLER, .sort = LOCK_SORT_CONTENDED,
			       .max_stack = 2, .user_max_stack = 2, .format = LOCK_FMT_PPROF };
	struct lock_run_info ri = { .attach = "tp_btf", .seconds = 1.0, .kernel = "6.x" };
	struct lock_table *t = lock_table__new(2);
	struct lock_accounting a = { 0 };
	uint64_t sum_count = 0, sum_ns = 0, stack[2];
	struct prof *pr = NULL;
	uint8_t *raw = NULL;
	size_t i;
	int n = 1500;

	TEST_BEGIN("lock pprof: 1500 rows, 1501 addresses, totals kept");
	if (!CHECK(t, "no table"))
		goto out;
	for (i = 0; i < (size_t)n; i++) {
		/* a shared leaf frame, a caller of its own */
		stack[0] = K(0x10);
		stack[1] = K(0x1000 + 16 * i);
		add(t, i + 1, i + 1, 1000 * (i + 1), LCB_F_SPIN, stack, sizeof(stack));
		sum_count += i + 1;
		sum_ns += 1000 * (i + 1);
	}
	if (!CHECK_EQ(pprof_report(&o, t, &a, &ri, NULL, &pr, &raw), 0))
		goto out;
	CHECK(!pr->bad, "the profile does not decode");
	CHECK_EQ(pr->nsample, n);
	/* without symbols each address is its own name */
	CHECK_EQ(pr->nloc, n + 2);
	CHECK_EQ(pr->nfunc, n + 2);
	CHECK(tables_unique(pr), "a string, location or function twice");
	for (i = 0; i < pr->nsample; i++) {
		sum_count -= pr->sample[i].val[0];
		sum_ns -= pr->sample[i].val[1];
	}
	CHECK(!sum_count && !sum_ns, "the samples' totals differ from the rows'");
	CHECK(pr->mapping[MAP_START] == K(0x10),
	      "mapping starts at %#" PRIx64 ", not at the lowest frame", pr->mapping[MAP_START]);
out:
	TEST_END();
	free(raw);
	free(pr);
	lock_table__free(t);
}

int main(void)
{
	test_caller();
	test_task();
	test_many();
	TEST_EXIT();
}
