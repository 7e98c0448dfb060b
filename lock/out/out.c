// SPDX-License-Identifier: GPL-2.0
/*
 * The formats, by enum lock_format, and the files a run writes: each
 * report the request asks for, written through lock/report/'s walk of the
 * rows into the format it names.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/io.h"
#include "lock/out/out.h"
#include "lock/out/out_int.h"

/* The formats, by enum lock_format.  A new one is a file and a row here. */
static const struct lock_output *const formats[] = {
	[LOCK_FMT_TABLE] = &lock_output_table,
	[LOCK_FMT_JSON] = &lock_output_json,
	[LOCK_FMT_CSV] = &lock_output_csv,
	[LOCK_FMT_FOLDED] = &lock_output_folded,
	[LOCK_FMT_SVG] = &lock_output_svg,
	[LOCK_FMT_PPROF] = &lock_output_pprof,
	[LOCK_FMT_TOP] = &lock_output_top,
};

const struct lock_column lock_columns[LOCK_NR_COLUMNS] = {
	{ LOCK_FIELD_CONTENDED,	 LOCK_SORT_CONTENDED,	"contended",	"contended", "holds" },
	{ LOCK_FIELD_WAIT_TOTAL, LOCK_SORT_WAIT_TOTAL,	"total wait",	"wait_total", "total hold" },
	{ LOCK_FIELD_WAIT_MAX,	 LOCK_SORT_WAIT_MAX,	"max wait",	"wait_max", "max hold" },
	{ LOCK_FIELD_WAIT_MIN,	 LOCK_SORT_WAIT_MIN,	"min wait",	"wait_min", "min hold" },
	{ LOCK_FIELD_AVG_WAIT,	 LOCK_SORT_AVG_WAIT,	"avg wait",	"avg_wait", "avg hold" },
};

const char *const lock_name_headers[][2] = {
	[LOCK_AGGR_CALLER] = { "type", "caller" },
	[LOCK_AGGR_TASK] = { "pid", "comm" },
	[LOCK_AGGR_ADDR] = { "address", "symbol" },
	[LOCK_AGGR_CGROUP] = { "type", "cgroup" },
};

int lock_report(FILE *f, enum lock_format format, const struct lock_report_cfg *rc,
		struct lock_table *t, const struct lock_accounting *a,
		const struct lock_run_info *ri, struct ksyms *ks)
{
	return lock_report_write(f, formats[format], format, rc, t, a, ri, ks);
}

int lock_sinks__open(struct lock_sinks *s, const struct lock_report_cfg *rc, const char **failed)
{
	unsigned int i;
	int err = 0;

	memset(s, 0, sizeof(*s));
	if (rc->output) {
		*failed = rc->output;
		err = io__tmpfile_open(&s->out, rc->output);
		s->has_out = !err;
	}
	for (i = 0; !err && i < rc->nfiles; i++) {
		*failed = rc->files[i].path;
		err = io__tmpfile_open(&s->files[i], rc->files[i].path);
		s->nfiles += !err;
	}
	if (err)
		lock_sinks__discard(s);
	return err;
}

void lock_sinks__discard(struct lock_sinks *s)
{
	unsigned int i;

	if (s->has_out)
		io__tmpfile_discard(&s->out);
	for (i = 0; i < s->nfiles; i++)
		io__tmpfile_discard(&s->files[i]);
	s->has_out = false;
	s->nfiles = 0;
}

int lock_report_all(const struct lock_report_cfg *rc, struct lock_sinks *s, struct lock_table *t,
		    const struct lock_accounting *a, const struct lock_run_info *ri,
		    struct ksyms *ks, const char **failed)
{
	unsigned int i;
	int err;

	*failed = rc->output;
	err = lock_report(s->has_out ? s->out.f : stdout, rc->format, rc, t, a, ri, ks) ?:
	      (fflush(s->has_out ? s->out.f : stdout) ? -errno : 0);
	for (i = 0; !err && i < s->nfiles; i++) {
		*failed = rc->files[i].path;
		err = lock_report(s->files[i].f, rc->files[i].format, rc, t, a, ri, ks);
	}
	/* Every file whole, or none: they are renamed only once all are written. */
	if (!err && s->has_out) {
		*failed = rc->output;
		err = io__tmpfile_commit(&s->out);
		s->has_out = false;
	}
	for (i = 0; !err && i < s->nfiles; i++) {
		*failed = rc->files[i].path;
		err = io__tmpfile_commit(&s->files[i]);
		s->files[i].f = NULL;
	}
	if (err) {
		/* Those not renamed yet are removed; a file renamed stays, whole. */
		for (i = 0; i < s->nfiles; i++)
			if (s->files[i].f)
				io__tmpfile_discard(&s->files[i]);
		if (s->has_out)
			io__tmpfile_discard(&s->out);
		s->has_out = false;
	}
	s->nfiles = 0;
	return err;
}
