// SPDX-License-Identifier: GPL-2.0
/*
 * The report: the rows sorted (-k) and cut (-E), each named (its caller,
 * task, lock or cgroup), then the accounting that shows where every
 * completed contention went; printed by the format it is handed (a struct
 * lock_output of report.h; lock/out/ holds the formats).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


#include "cli/cli.h"
#include "lib/hash.h"
#include "lib/io.h"
#include "lib/ksyms.h"
#include "lib/utf8.h"
#include "lock/kernel/kernel.h"
#include "lock/report/member_int.h"
#include "lock/report/report.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/user.h"

/* ---- symbols ---- */

static void out_init(struct lock_out *out, FILE *f, const struct lock_report_cfg *rc,
		     const struct lock_run_info *ri, struct ksyms *ks)
{
	static const char *marks[2][2] = {
		{ "__lock_text_start", "__lock_text_end" },
		{ "__sched_text_start", "__sched_text_end" },
	};
	int i, j;

	memset(out, 0, sizeof(*out));
	out->f = f;
	out->rc = rc;
	out->ri = ri;
	out->ks = ks;
	for (i = 0; ks && i < 2; i++)
		for (j = 0; j < 2; j++)
			if (ksyms__find(ks, marks[i][j], &out->text[i][j]))
				out->text[i][0] = out->text[i][1] = 0;
}

/* Does the symbol holding IP start with one of PREFIXES? */
static bool name_has_prefix(const struct lock_out *out, uint64_t ip,
			    const char *const *prefixes, size_t n)
{
	struct ksym s;
	uint64_t off;
	size_t i;

	if (!out->ks || ksyms__resolve(out->ks, ip, &s, &off))
		return false;
	for (i = 0; i < n; i++)
		if (!strncmp(s.name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A user frame's token (-U): its names. */
static bool user_frame(const struct lock_out *out, uint64_t ip, const char **name,
		       const char **func, bool *lockfn)
{
	return (ip & LOCK_UFRAME_TAG_MASK) == LOCK_UFRAME_TAG && out->ri &&
	       lock_ustacks__frame(out->ri->ustacks, ip, name, func, lockfn);
}

/* Locking code, by section as the kernel lays it out, or by name. */
static bool is_lock_function(const struct lock_out *out, uint64_t ip)
{
	const char *name, *func;
	bool lockfn;

	if (user_frame(out, ip, &name, &func, &lockfn))
		return lockfn;
	static const char *prefixes[] = {
		"mutex_", "__mutex_", "rwsem_", "down_", "__down_", "up_",
		"_raw_", "queued_", "native_queued_", "__percpu_down", "percpu_down",
		"rt_mutex", "__rt_mutex", "rwbase_", "osq_", "__pv_queued",
	};
	size_t i;

	for (i = 0; i < 2; i++)
		if (ip >= out->text[i][0] && ip < out->text[i][1])
			return true;
	return name_has_prefix(out, ip, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/* The tracepoint's own frames, kept on top of a stack by the kernel. */
static bool is_machinery(const struct lock_out *out, uint64_t ip)
{
	static const char *prefixes[] = {
		"bpf_trace_run", "__traceiter_", "__bpf_trace_", "bpf_prog_",
	};

	return name_has_prefix(out, ip, prefixes, sizeof(prefixes) / sizeof(prefixes[0]));
}

/* Index of the first frame to show: past the machinery, if we kept it. */
static unsigned int first_frame(const struct lock_out *out, const struct lock_row *r)
{
	const struct lock_report_cfg *rc = out->rc;
	unsigned int i = 0;

	while (rc->strip_machinery && r->stack && i < LOCK_MACHINERY_FRAMES &&
	       i < rc->row_frames && r->stack[i] && is_machinery(out, r->stack[i]))
		i++;
	return i;
}

bool lock_report_merges(const struct lock_report_cfg *rc)
{
	return rc->skip_nested && rc->strip_machinery && rc->mode == LOCK_AGGR_CALLER;
}

struct lock_table *lock_report_merged(const struct lock_report_cfg *rc, struct lock_table *t,
				      struct ksyms *ks)
{
	unsigned int frames = rc->row_frames, shown = rc->shown_frames;
	size_t i, n = lock_table__len(t), at = frames * sizeof(uint64_t);
	struct lock_table *m = lock_table__new(frames);
	struct lock_row **rows = lock_table__sorted(t, rc->sort);
	char *tail = malloc(at + LOCK_COMM_LEN);
	struct lock_out out;
	int err = 0;

	if (!m || !rows || !tail) {
		err = -ENOMEM;
		goto out;
	}
	if (shown > frames)
		shown = frames;
	out_init(&out, NULL, rc, NULL, ks);
	for (i = 0; !err && i < n; i++) {
		const struct lock_row *r = rows[i];
		uint64_t *f = (uint64_t *)tail, key = r->key;
		unsigned int first, j;

		if (!r->stack || (r->st.flags & LOCK_F_USER)) {
			err = lock_table__add(m, key, &r->st, r->stack, r->stack ? at : 0);
			continue;
		}
		/* The frames shown, then zeros (what was beyond them is not shown). */
		first = first_frame(&out, r);
		memset(tail, 0, at + LOCK_COMM_LEN);
		for (j = 0; j < shown && first + j < frames; j++)
			f[j] = r->stack[first + j];
		memcpy(tail + at, r->comm, LOCK_COMM_LEN);
		key = hash_fnv1a(HASH_FNV1A_SEED, f, shown * sizeof(*f)) & ~LOCK_KEY_USER;
		err = lock_table__add(m, key, &r->st, tail, r->comm[0] ? at + LOCK_COMM_LEN : at);
	}
out:
	free(tail);
	free(rows);
	if (err) {
		lock_table__free(m);
		errno = -err;
		return NULL;
	}
	return m;
}

static void fmt_sym(const struct lock_out *out, uint64_t ip, char *buf, size_t size)
{
	const char *name, *func;
	struct ksym s;
	uint64_t off;
	bool lockfn;

	if (user_frame(out, ip, &name, &func, &lockfn))
		snprintf(buf, size, "%s", name);
	else if (out->ks && !ksyms__resolve(out->ks, ip, &s, &off))
		snprintf(buf, size, "%s+0x%" PRIx64, s.name, off);
	else
		snprintf(buf, size, "0x%" PRIx64, ip);
}

bool lock_out__frame(const struct lock_out *out, const struct lock_row *r,
		     const struct lock_row_name *rn, unsigned int n, uint64_t *ip,
		     char *buf, size_t size)
{
	unsigned int i = rn->first + n;

	if (!r->stack || i >= out->rc->row_frames || !r->stack[i] ||
	    n >= out->rc->shown_frames)
		return false;
	*ip = r->stack[i];
	fmt_sym(out, *ip, buf, size);
	return true;
}

/*
 * NAME into a frame: no ';' (the folded separator), no control character,
 * valid UTF-8 (a byte that is not as U+FFFD: profile.proto's strings must
 * be), cut between characters.
 */
static void frame_name(struct lock_frame *fr, uint64_t ip, const char *name)
{
	char *p;

	fr->ip = ip;
	fr->user = false;
	utf8_copy(fr->name, sizeof(fr->name), name);
	for (p = fr->name; *p; p++)
		if (*p == ';' || (unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '_';
}

size_t lock_out__stack(const struct lock_out *out, const struct lock_row *r,
		       const struct lock_row_name *rn, struct lock_frame *frames)
{
	char buf[160], label[sizeof(rn->abuf) + sizeof(rn->b) + 2];
	uint64_t ips[LOCK_MAX_STACK], off;
	const char *uname, *ufunc;
	unsigned int n = 0, i;
	struct ksym s;
	bool lockfn;
	size_t k = 0;

	switch (out->rc->mode) {
	case LOCK_AGGR_CALLER:
		while (n < LOCK_MAX_STACK && lock_out__frame(out, r, rn, n, &ips[n], buf, sizeof(buf)))
			n++;
		for (i = n; i-- > 0; k++) {
			if (user_frame(out, ips[i], &uname, &ufunc, &lockfn)) {
				frame_name(&frames[k], 0, ufunc);
				frames[k].user = true;
			}
			else if (out->ks && !ksyms__resolve(out->ks, ips[i], &s, &off))
				frame_name(&frames[k], ips[i], s.name);
			else {
				snprintf(buf, sizeof(buf), "0x%" PRIx64, ips[i]);
				frame_name(&frames[k], ips[i], buf);
			}
		}
		break;
	case LOCK_AGGR_TASK:
		snprintf(label, sizeof(label), "%s-%s", rn->b, rn->a);
		frame_name(&frames[k++], 0, label);
		break;
	case LOCK_AGGR_ADDR:
		frame_name(&frames[k++], 0, rn->b[0] ? rn->b : rn->a);
		break;
	case LOCK_AGGR_CGROUP:
		frame_name(&frames[k++], 0, rn->a);
		break;
	}
	snprintf(label, sizeof(label), "[%s]", lock_type_name(r->st.flags));
	frame_name(&frames[k++], 0, label);
	return k;
}

uint64_t lock_out__weight(const struct lock_out *out, const struct lock_row *r)
{
	return out->rc->weight == LOCK_WEIGHT_CONTENDED ? r->st.count : r->st.total_ns;
}

/* The caller: the first frame outside the locking code (or the last frame). */
static void fmt_caller(const struct lock_out *out, const struct lock_row *r,
		       unsigned int first, char *buf, size_t size)
{
	unsigned int i, max_stack = out->rc->max_stack;

	snprintf(buf, size, "[unknown]");
	if (!r->stack)
		return;
	for (i = first; i < max_stack && r->stack[i]; i++) {
		if (is_lock_function(out, r->stack[i]) && i + 1 < max_stack &&
		    r->stack[i + 1])
			continue;
		fmt_sym(out, r->stack[i], buf, size);
		return;
	}
}

/* ---- one row's name columns ---- */

/* -l: why a slab lock has no offset in its object (enum lock_off_why). */
static const char *const off_why[LOCK_OFF_NR] = {
	[LOCK_OFF_NONE] = "not asked",
	[LOCK_OFF_OK] = "placed",
	[LOCK_OFF_NO_CACHE] = "not in a slab object",
	[LOCK_OFF_READ] = "its cache's sizes could not be read",
	[LOCK_OFF_ORDERS] = "its cache's two slab orders put it in different objects",
	[LOCK_OFF_OUTSIDE] = "not inside an object of its slab",
	[LOCK_OFF_NO_FACTS] = "the kernel's BTF lacks a member of struct kmem_cache",
};

/* RN names MEMBER of struct TYPE. */
static void name_member(struct lock_row_name *rn, const char *member, const char *type)
{
	snprintf(rn->member, sizeof(rn->member), "%s", member);
	snprintf(rn->object, sizeof(rn->object), "struct %s", type);
	snprintf(rn->b, sizeof(rn->b), "%s of %s", rn->member, rn->object);
}

/* -l: the kernel's BTF, read once per report at its first slab row. */
static struct lock_btf *report_btf(struct lock_out *out)
{
	if (!out->btf_tried) {
		out->btf_tried = true;
		out->btf = lock_btf__open(NULL);
		if (!out->btf)
			cli_log("lock: -l: no member names: cannot read the kernel's BTF (%s)\n",
				strerror(errno));
	}
	return out->btf;
}

/*
 * -l: a slab lock by its member path in its object's struct, else by its
 * cache (and its offset in the object, when known); -v says why.
 */
static void name_slab_lock(struct lock_out *out, const struct lock_row *r,
			   struct lock_row_name *rn)
{
	char path[sizeof(rn->member)];
	struct lock_btf *btf;
	uint32_t id;
	int err;

	snprintf(rn->sym, sizeof(rn->sym), "&%s", r->comm);
	snprintf(rn->b, sizeof(rn->b), "%s", rn->sym);
	if (r->off_why != LOCK_OFF_OK) {
		if (r->off_why != LOCK_OFF_NONE)
			cli_log("lock: -l: %016" PRIx64 " in %s: no offset in its object: %s\n",
				r->key, r->comm, off_why[r->off_why]);
		return;
	}
	snprintf(rn->b, sizeof(rn->b), "%s+0x%x", rn->sym, r->obj_off);
	btf = report_btf(out);
	if (!btf)
		return;
	id = lock_member__cache_type(btf, r->comm);
	if (!id) {
		cli_log("lock: -l: %016" PRIx64 " in %s+0x%x: no struct known for the cache\n",
			r->key, r->comm, r->obj_off);
		return;
	}
	err = lock_member__path(btf, id, r->obj_off, r->st.flags & LCB_F_MASK, path,
				sizeof(path));
	if (err) {
		cli_log("lock: -l: %016" PRIx64 " in %s+0x%x: no member of struct %s there is "
			"a %s\n", r->key, r->comm, r->obj_off,
			lock_btf__name(btf, id), lock_type_name(r->st.flags));
		return;
	}
	name_member(rn, path, lock_btf__name(btf, id));
}

/*
 * -l: the lock named by what holds it ("f_pos_lock of /var/log/app.log"):
 * its member path as its slab placed it, else as the probe that found the
 * object did.
 */
static void name_object(const struct lock_row *r, struct lock_row_name *rn)
{
	if (!r->obj || !lock_obj__name(r->obj, rn->desc, sizeof(rn->desc)))
		return;
	if (!rn->member[0]) {
		snprintf(rn->member, sizeof(rn->member), "%s", lock_obj__member(r->obj));
		snprintf(rn->object, sizeof(rn->object), "struct %s", lock_obj__type(r->obj));
		rn->offset = lock_obj__offset(r->obj);
	}
	snprintf(rn->b, sizeof(rn->b), "%s of %s", rn->member, rn->desc);
}

static void row_name(struct lock_out *out, const struct lock_row *r, const char *cg,
		     struct lock_row_name *rn)
{
	struct ksym s;
	uint64_t off;

	rn->a = rn->abuf;
	rn->b[0] = rn->sym[0] = rn->member[0] = rn->object[0] = rn->desc[0] = '\0';
	rn->offset = -1;
	rn->first = first_frame(out, r);
	switch (out->rc->mode) {
	case LOCK_AGGR_CALLER:
		fmt_caller(out, r, rn->first, rn->abuf, sizeof(rn->abuf));
		break;
	case LOCK_AGGR_TASK:
		snprintf(rn->abuf, sizeof(rn->abuf), "%" PRIu64, r->key & ~LOCK_KEY_USER);
		snprintf(rn->b, sizeof(rn->b), "%s", r->comm);
		break;
	case LOCK_AGGR_ADDR:
		snprintf(rn->abuf, sizeof(rn->abuf), "%016" PRIx64, r->key);
		if (r->off_why == LOCK_OFF_OK)	/* mmap_lock's too, placed in its mm */
			rn->offset = r->obj_off;
		if (r->st.flags & LOCK_F_USER) {
			/* a futex: its address in its process, its variable if it has one */
			snprintf(rn->abuf, sizeof(rn->abuf), "%016" PRIx64, r->key & LOCK_KEY_UADDR);
			snprintf(rn->sym, sizeof(rn->sym), "%s", r->comm);
		} else if (r->st.flags & LOCK_F_MMAP_LOCK) {
			snprintf(rn->sym, sizeof(rn->sym), "mmap_lock");
			name_member(rn, "mmap_lock", "mm_struct");
		} else if (r->st.flags & LOCK_F_SIGLOCK) {
			snprintf(rn->sym, sizeof(rn->sym), "siglock");
			name_member(rn, "siglock", "sighand_struct");
		} else if (out->ks && !ksyms__resolve(out->ks, r->key, &s, &off) &&
			 strchr("dDbBrR", s.type) && off < 4096)
			snprintf(rn->sym, sizeof(rn->sym), off ? "%s+0x%" PRIx64 : "%s",
				 s.name, off);
		else if (r->comm[0])	/* its slab cache, as perf names it */
			name_slab_lock(out, r, rn);
		name_object(r, rn);
		if (!rn->b[0])
			snprintf(rn->b, sizeof(rn->b), "%s", rn->sym);
		break;
	case LOCK_AGGR_CGROUP:
		/* A path of any length, as is; an unnamed cgroup by its id. */
		if (cg)
			rn->a = cg;
		else
			snprintf(rn->abuf, sizeof(rn->abuf), "cgroup:%" PRIu64,
				 r->key & ~LOCK_KEY_USER);
		break;
	}
}

/* ---- accounting ---- */

#define MAX_ACCT_LINES 52

static size_t acct_lines(const struct lock_accounting *a, uint64_t rows_sum,
			 struct lock_acct_line *l)
{
	const uint64_t *c = a->c;
	size_t n = 0;

#define L(j, t, val) (l[n++] = (struct lock_acct_line){ j, t, val })
	L("completed", "contentions completed (ends seen)", c[LC_ENDS]);
	L("in_rows", "  in rows (all of them, printed or not)", rows_sum);
	L("aggregated_in_kernel", "    aggregated in kernel", c[LC_AGGR_HIT]);
	L("merged_from_overflow", "    merged from overflow ring", a->merged);
	if (a->hold) {
		uint64_t seen = c[LC_HOLDS] + a->merged + c[LC_HOLD_LOST];

		L("holds", "holds measured (--hold)", c[LC_HOLDS] + a->merged);
		L("holds_in_kernel", "  aggregated in kernel", c[LC_HOLDS]);
		L("holds_lost_ringbuf", "  lost: ring buffer full", c[LC_HOLD_LOST]);
		L("hold_acquisitions", "contended acquisitions (ends that took the lock)",
		  c[LC_HOLD_ACQ]);
		L("hold_no_release", "  release not seen (uncontended, or held at stop)",
		  c[LC_HOLD_ACQ] > seen ? c[LC_HOLD_ACQ] - seen : 0);
		L("hold_no_acquisition", "contended releases, acquisition not seen",
		  c[LC_HOLD_NO_ACQ]);
		L("hold_waits", "waits ended (not rows with --hold)", c[LC_HOLD_WAITS]);
	}
	if (a->at_release) {
		L("shares", "    shares of waits behind several holders (-o)", c[LC_SHARES]);
		L("releases", "contended releases recorded (-o)", c[LC_RELEASES]);
		L("at_release", "waits charged to holders at release (-o)", c[LC_REL_SEEN]);
		L("owner_at_begin", "waits no release ended: to the owner at begin (-o)",
		  c[LC_REL_NONE]);
		L("releases_lost", "waits with releases not kept: partly at begin (-o)",
		  c[LC_REL_LOST]);
	}
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
	L("open_at_stop", "waits still open at stop", a->open_waits);
	L("stale", "begins whose end was never seen", c[LC_STALE]);
	L("recursion_misses", "runs the kernel skipped (nested in ours)",
	  a->misses_begin + a->misses_end);
	L("nested_taken", "  taken by the second programs", c[LC_NESTED_BEGIN] + c[LC_NESTED_END]);
	L("lost_skipped_begin", "  begins not taken (their ends: lost_no_begin)", a->skipped_begin);
	L("recursion_misses_second", "runs the kernel skipped for the second programs",
	  a->misses_second);
	L("overflow_events", "overflow ring events (waits)", c[LC_OVERFLOW]);
	L("overflow_definitions", "overflow ring events (key definitions)", c[LC_DEFS]);
	L("rows_created", "rows created in the kernel table", c[LC_AGGR_NEW]);
	L("stacks_walked", "stacks walked (learned frame sizes)", c[LC_STACK_WALKED]);
	L("stacks_unwound", "stacks unwound by the kernel", c[LC_STACK_UNWOUND]);
	L("stack_mismatches", "walked stacks that differed (--stack-check)", c[LC_STACK_MISMATCH]);
	/* Only when it happened: the stop could not wait out the runs in
	 * flight (lib/cpus.c), so the links were closed first. */
	if (a->stop_unsure)
		L("stop_unsure", "stopped before runs in flight ended (may lack events)",
		  a->stop_unsure);
#undef L
	return n;
}

/* -U's lines: where every futex wait the programs saw went. */
static size_t acct_user_lines(const struct lock_accounting *a, struct lock_acct_line *l)
{
	const uint64_t *u = a->u;
	size_t n = 0;

#define L(j, t, val) (l[n++] = (struct lock_acct_line){ j, t, val })
	L("user_waits", "futex waits seen (-U)", u[UL_WAITS]);
	L("user_completed", "  futex waits completed", u[UL_ENDS]);
	L("user_in_rows", "    in rows", a->u_merged);
	L("user_filtered", "    filtered out (-Y)", a->u_filtered);
	L("user_lost_begin", "    lost: begin record, ring buffer full", u[UL_ENDS_NO_BEGIN]);
	L("user_lost_end", "    lost: end record, ring buffer full", u[UL_LOST_END]);
	L("user_unjoined", "    lost: end without its begin record", a->u_unjoined);
	L("user_lost_task", "  not recorded: no wait slot", u[UL_DROP_TASK]);
	L("user_open_at_stop", "  futex waits still open at stop", a->u_open);
	L("user_lost_records", "ring records lost (kernel's count)", a->u_lost_records);
	L("user_queue_peak_bytes", "records queued for the unwinder, peak (bytes)", a->u_queue_peak);
	L("user_stacks_unwound", "user stacks unwound (DWARF CFI)", a->u_stacks);
	L("user_stack_frames", "  their frames", a->u_frames);
	L("user_stacks_shallow", "  of one frame or none", a->u_shallow);
	L("user_stacks_walked", "  walked by memoized CFI rules", a->u_walked);
	L("user_stacks_by_libdwfl", "  unwound by libdwfl (other rules)", a->u_by_dwfl);
	L("user_stack_mismatches", "  walked differently from libdwfl (--stack-check)", a->u_mismatches);
	L("user_stacks_not_copied", "user stacks not copied (registers only)", u[UL_STACK_FAIL]);
#undef L
	return n;
}

void lock_out__accounting_text(struct lock_out *out, const struct lock_accounting *a,
			       const struct lock_acct_line *l, size_t n)
{
	/* In CSV and beside folded stacks, comments: a reader skips them. */
	const char *prefix = out->format == LOCK_FMT_TABLE ? "" : "# ";
	FILE *f = out->f;
	size_t i;

	fprintf(f, "%s\n%s=== accounting ===\n", prefix, prefix);
	if (out->ri->owner_at)
		fprintf(f, "%sowners: %s (%s)\n", prefix, !strcmp(out->ri->owner_at, "release") ?
			"the holders that released the lock during each wait" :
			"the lock's owner when each wait began", out->ri->owner_why);
	for (i = 0; i < n; i++)
		fprintf(f, "%s%-52s %12" PRIu64 "\n", prefix, l[i].text, l[i].v);
	if (a->have_stats)
		fprintf(f, "%sBPF cost per event: begin %.0f ns, end %.0f ns", prefix,
			a->begin_runs ? (double)a->begin_ns / a->begin_runs : 0.0,
			a->end_runs ? (double)a->end_ns / a->end_runs : 0.0);
	if (a->have_stats && a->release_runs)
		fprintf(f, ", release %.0f ns", (double)a->release_ns / a->release_runs);
	if (a->have_stats)
		fputc('\n', f);
	if (a->user && (a->u_begin_ns || a->u_end_ns))
		fprintf(f, "%sBPF cost per futex wait: entry %.0f ns, return %.0f ns; "
			"unwinding %.1f us a stack\n", prefix,
			a->u_begin_runs ? (double)a->u_begin_ns / a->u_begin_runs : 0.0,
			a->u_end_runs ? (double)a->u_end_ns / a->u_end_runs : 0.0,
			a->u_stacks ? a->u_unwind_s * 1e6 / a->u_stacks : 0.0);
}

/* -g: the cgroup paths of ROWS' keys, NULL where unnamed; NULL if no memory. */
static char **cgroup_names(struct lock_row **rows, size_t n)
{
	uint64_t *ids = malloc((n ? n : 1) * sizeof(*ids));
	char **names;
	size_t i;

	if (!ids)
		return NULL;
	for (i = 0; i < n; i++)
		ids[i] = rows[i]->key & ~LOCK_KEY_USER;
	names = lock_cgroup_names(ids, n);
	free(ids);
	return names;
}

int lock_report_write(FILE *f, const struct lock_output *fmt, enum lock_format format,
		      const struct lock_report_cfg *rc, struct lock_table *t,
		      const struct lock_accounting *a, const struct lock_run_info *ri,
		      struct ksyms *ks)
{
	struct lock_row **rows = lock_table__sorted(t, rc->sort);
	struct lock_acct_line l[MAX_ACCT_LINES];
	size_t i, n = lock_table__len(t), nl;
	struct lock_row_name rn;
	struct lock_out out;
	char **cg = NULL;

	if (!rows)
		return -ENOMEM;
	out_init(&out, f, rc, ri, ks);
	out.format = format;
	if (rc->entries && n > rc->entries)
		n = rc->entries;
	if (rc->mode == LOCK_AGGR_CGROUP)
		cg = cgroup_names(rows, n);
	fmt->header(&out);
	for (i = 0; i < n; i++) {
		row_name(&out, rows[i], cg ? cg[i] : NULL, &rn);
		fmt->row(&out, rows[i], &rn, i);
	}
	/* The kernel's rows hold what the user rows do not. */
	nl = rc->user_only ? 0 : acct_lines(a, lock_table__sum_count(t) -
					   (a->user ? a->u_merged : 0), l);
	if (a->user)
		nl += acct_user_lines(a, l + nl);
	fmt->accounting(&out, a, l, nl);
	if (fmt->footer)
		fmt->footer(&out);
	lock_cgroup_names_free(cg, n);
	lock_btf__free(out.btf);
	free(rows);
	return out.err;
}
