// SPDX-License-Identifier: GPL-2.0
/* --pprof FILE: being written. */
#include "lock/report.h"

static void nothing(struct lock_out *out)
{
	(void)out;
}

static void row(struct lock_out *out, const struct lock_row *r,
		const struct lock_row_name *rn, size_t idx)
{
	(void)out, (void)r, (void)rn, (void)idx;
}

static void accounting(struct lock_out *out, const struct lock_accounting *a,
		       const struct lock_acct_line *l, size_t n)
{
	(void)out, (void)a, (void)l, (void)n;
}

const struct lock_output lock_output_pprof = {
	.header = nothing,
	.row = row,
	.accounting = accounting,
};
