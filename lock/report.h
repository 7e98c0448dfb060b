/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's report (report.c): what it can be asked for (formats,
 * fields, weight), what a run hands it (the rows, the accounting, the run's
 * facts), and the files it writes.  The formats themselves sit behind
 * lock/output.h, one out_*.c each.
 */
#ifndef FRUGAL_LOCK_REPORT_H
#define FRUGAL_LOCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/io.h"
#include "lock/format.h"
#include "lock/lock.h"

struct ksyms;
struct lock_accounting;
struct lock_table;
struct lock_ustacks;

/*
 * The report's configuration: built once from the request (config.c),
 * read-only after.  What to show and how; nothing of how it was traced
 * beyond what a format prints of it.
 */
struct lock_report_cfg {
	enum lock_aggr mode;
	bool owner;			/* -o: the task rows are the locks' owners */
	bool hold;			/* --hold: the rows are hold times */
	bool user, user_only;		/* -U: user rows too; --user-only: no kernel lines */
	enum lock_sort sort;		/* -k */
	unsigned int fields;		/* -F: enum lock_field bits */
	unsigned int entries;		/* -E: rows shown, 0 = all */
	unsigned int row_frames;	/* frames a row of the table keeps */
	unsigned int max_stack;		/* frames the kernel keeps per stack */
	unsigned int shown_frames;	/* --max-stack as asked: frames shown (0: all kept) */
	bool strip_machinery;		/* the tracing frames on top are dropped */
	bool skip_nested;		/* one program per tracepoint (no --nested) */
	bool verbose_stacks;		/* -v: a stack under each row */
	enum lock_format format;	/* stdout's, or --output's */
	const char *csv_sep;		/* -x */
	const char *output;		/* --output: into this file, not stdout */
	struct lock_file_out files[LOCK_MAX_FILES];	/* --svg, --pprof */
	unsigned int nfiles;
	enum lock_weight weight;	/* --weight of the stack formats */
	/* what was traced, as JSON's header says it */
	bool system_wide;		/* no -p/--tid and no command followed */
	const char *pid_arg, *tid_arg, *cpu_list;
	unsigned int map_entries, ring_kb;
};

struct lock_run_info {
	const char *attach;		/* tp_btf / raw_tp */
	double seconds;			/* of the run, or of the interval */
	unsigned int interval;		/* -I: the interval's number, from 1; 0 without -I */
	double time;			/* -I: the interval's end, seconds since the epoch */
	const char *kernel;
	const char *command;		/* NULL without one */
	const struct lock_ustacks *ustacks;	/* -U: the user frames' names */
	/* -o: "release" (the holders that released during each wait) or
	 * "begin" (the owner when it began), and why; NULL without -o */
	const char *owner_at, *owner_why;
	int exit_status;
};

/* "123 ns", "1.23 us", ...: perf's units. */
void lock_fmt_time(char *buf, size_t size, uint64_t ns);

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

/*
 * With one program per tracepoint (no --nested), the tracepoint
 * iterator's frame is on a stack only while another tracer shares the
 * tracepoint, so one stack can come in under two keys.  Does the report of
 * RC merge its rows by their frames once the tracepoint's own are dropped?
 * And the merged copy of T, with KS to tell those frames (NULL + errno on
 * ENOMEM).
 */
bool lock_report_merges(const struct lock_report_cfg *rc);
struct lock_table *lock_report_merged(const struct lock_report_cfg *rc, struct lock_table *t,
				      struct ksyms *ks);

/* ---- the symbols a report names (symbols.c) ---- */

/*
 * A small table naming ADDRS and the symbols MARKS (up to 4); NULL + errno.
 * The first NR_DATA addresses are data (locks: their symbols are typed 'd'),
 * the others code ('t'): the kernel's answer does not say which.
 */
struct ksyms *lock_symbolize(const uint64_t *addrs, size_t n, size_t nr_data,
			     const char *const *marks, size_t nr_marks);
/*
 * The symbols the report of T names: the frames of its printed rows (or
 * their lock addresses) and the section marks that tell locking code
 * apart.  From the kernel's symbolizer, else /proc/kallsyms; NULL + errno.
 */
struct ksyms *lock_report_syms(const struct lock_report_cfg *rc, struct lock_table *t);

#endif
