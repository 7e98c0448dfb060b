// SPDX-License-Identifier: GPL-2.0
/* The accounting's -I differences, for both collectors: see rows.h. */
#include "lock/rows/rows.h"

static uint64_t sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* The fields subtracted, by their offsets: one list, not one line each. */
#define F(x) offsetof(struct lock_accounting, x)
static const size_t counts[] = {
	F(merged), F(misses_begin), F(misses_end), F(misses_second), F(skipped_begin),
	F(skipped_end), F(begin_runs), F(begin2_runs), F(begin_ns), F(end_runs),
	F(end2_runs), F(end_ns), F(release_runs), F(release_ns), F(release_misses),
	F(u_merged), F(u_filtered), F(u_lost_records), F(u_stacks), F(u_frames),
	F(u_shallow), F(u_walked), F(u_by_dwfl), F(u_mismatches), F(u_begin_runs),
	F(u_begin_ns), F(u_end_runs), F(u_end_ns),
};
#undef F

void lock_accounting__delta(struct lock_accounting *a, const struct lock_accounting *prev)
{
	size_t i;

	for (i = 0; i < LC_NR; i++)
		a->c[i] = sub(a->c[i], prev->c[i]);
	for (i = 0; i < UL_NR; i++)
		a->u[i] = sub(a->u[i], prev->u[i]);
	for (i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint64_t *v = (uint64_t *)((char *)a + counts[i]);
		const uint64_t *p = (const uint64_t *)((const char *)prev + counts[i]);

		*v = sub(*v, *p);
	}
	a->u_unwind_s -= prev->u_unwind_s;
	/* The completed count of the interval, from its own parts (lock.h). */
	a->c[LC_ENDS] = a->c[LC_AGGR_HIT] + a->c[LC_OVERFLOW] + a->c[LC_LOST_RING] +
			a->c[LC_FILTERED] + a->c[LC_UNMATCHED];
}
