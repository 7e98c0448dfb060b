/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's outputs stage (lock/out/), its contract: a report in any
 * of the formats by its enum lock_format (out.c's table of them: perf's
 * table, CSV, JSON, folded, SVG, pprof, top's rows; one out_*.c each, each
 * a struct lock_output of lock/report/report.h), and the files a run
 * writes.  out_int.h is this folder's own.
 */
#ifndef FRUGAL_LOCK_OUT_H
#define FRUGAL_LOCK_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/io.h"
#include "lock/report/report.h"

/* The report of T in format FMT to F.  0 or -ENOMEM. */
int lock_report(FILE *f, enum lock_format fmt, const struct lock_report_cfg *rc,
		struct lock_table *t, const struct lock_accounting *a,
		const struct lock_run_info *ri, struct ksyms *ks);
/*
 * The files a run writes (--output, --svg, --pprof), opened before it
 * starts (a file that cannot be written is said before anything is
 * traced), written at the end and renamed over their names only once all
 * are written: whole, or not at all.
 */
struct lock_sinks {
	struct io_tmpfile out, files[LOCK_MAX_FILES];
	bool has_out;
	unsigned int nfiles;
};

/* 0, or -errno with the file that failed in *FAILED; nothing is left open then. */
int lock_sinks__open(struct lock_sinks *s, const struct lock_report_cfg *rc, const char **failed);
void lock_sinks__discard(struct lock_sinks *s);
/*
 * Every report RC asks for: stdout's (or --output's), then each file's.
 * 0, or -errno with the file that failed in *FAILED (NULL: stdout); the
 * sinks are closed either way.
 */
int lock_report_all(const struct lock_report_cfg *rc, struct lock_sinks *s, struct lock_table *t,
		    const struct lock_accounting *a, const struct lock_run_info *ri,
		    struct ksyms *ks, const char **failed);

#endif
