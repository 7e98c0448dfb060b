// SPDX-License-Identifier: GPL-2.0
/*
 * --folded: one line a row, "frame;frame;...;frame WEIGHT", outermost frame
 * first, as flamegraph.pl, inferno and speedscope read it (stackcollapse's
 * format).  Kernel functions end in "_[k]", as stackcollapse-perf.pl marks
 * them; the leaf is the lock type ("[mutex]"); with -t, -l or -g the root is
 * the task, lock or cgroup.  The weight is the row's total wait in ns, or
 * its contentions with --weight contended; rows with none are left out.
 * The accounting goes to stderr, so the lines can be piped as they are.
 */
#include <inttypes.h>

#include "lock/out/out_int.h"
#include "lock/report/report.h"

static void header(struct lock_out *out)
{
	(void)out;
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	struct lock_frame frames[LOCK_MAX_FRAMES];
	uint64_t w = lock_out__weight(out, r);
	size_t i, n;

	(void)idx;
	if (!w)
		return;
	n = lock_out__stack(out, r, rn, frames);
	for (i = 0; i < n; i++)
		fprintf(out->f, "%s%s%s", i ? ";" : "", frames[i].name, frames[i].ip ? "_[k]" : "");
	fprintf(out->f, " %" PRIu64 "\n", w);
}

static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	FILE *f = out->f;

	out->f = stderr;
	lock_out__accounting_text(out, a, l, n);
	out->f = f;
}

const struct lock_output lock_output_folded = {
	.header = header,
	.row = row,
	.accounting = accounting,
};
