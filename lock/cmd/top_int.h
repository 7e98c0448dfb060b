/* SPDX-License-Identifier: GPL-2.0 */
/* frugal lock top: the terminal side of the live view (top.c). */
#ifndef FRUGAL_LOCK_TOP_H
#define FRUGAL_LOCK_TOP_H

#include <stdbool.h>
#include <termios.h>

#include "lock/report/report.h"

struct lock_report_cfg;

struct lock_top {
	int fd;			/* the terminal keys come from */
	struct termios saved;	/* given back by lock_top__stop() */
	bool raw;
	unsigned long drawn;	/* screens drawn */
};

/* Keys one at a time, no echo, the alternate screen.  0 or -errno (FD is not a terminal). */
int lock_top__start(struct lock_top *tp, int fd);
/* The terminal as it was; safe to call twice. */
void lock_top__stop(struct lock_top *tp);

enum { LOCK_TOP_REDRAW = 1, LOCK_TOP_QUIT };
/*
 * Read the pending keys: LOCK_TOP_QUIT on q, LOCK_TOP_REDRAW when the sort
 * changed (into *SORT: the view's, which the keys own), else 0.
 */
int lock_top__keys(struct lock_top *tp, enum lock_sort *sort);
/* One screen of the report RC: the status lines, then T's rows that fit.  0 or -errno. */
int lock_top__draw(struct lock_top *tp, const struct lock_report_cfg *rc, struct lock_table *t,
		   const struct lock_accounting *a, const struct lock_run_info *ri,
		   struct ksyms *ks);

#endif
