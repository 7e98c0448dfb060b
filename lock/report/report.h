/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's report stage (lock/report/), its contract: a run's rows
 * sorted (-k), cut (-E) and named (caller, task, lock or cgroup: report.c,
 * with symbols.c's kernel symbols, member.c's struct members, the kernel
 * side's object names and -U's user frames), the accounting lines counted,
 * and all of it handed to one format through the interface below (a
 * header, each row, the accounting, a footer).  The formats implement it
 * one level up (lock/out/), which also holds their table: this stage
 * drives whichever format it is handed and names none.  member_int.h is
 * this folder's own.
 */
#ifndef FRUGAL_LOCK_REPORT_H
#define FRUGAL_LOCK_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lock/lock.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"

struct ksyms;
struct lock_btf;
struct lock_ustacks;

/* What a run hands its report besides the rows and the accounting. */
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
	/* --histogram: the waits by lock type, [LOCK_HIST_TYPES] (struct
	 * lock_hist, lock.h), since the start; NULL without */
	const struct lock_hist *wait_hist;
};

/* ---- the output interface: what every format is given and implements ---- */

/* What every format is given. */
struct lock_out {
	FILE *f;
	enum lock_format format;
	const struct lock_report_cfg *rc;
	const struct lock_run_info *ri;
	struct ksyms *ks;		/* NULL: frames print as addresses */
	uint64_t text[2][2];		/* [lock|sched][start,end): locking code */
	struct lock_btf *btf;		/* -l: the kernel's, read at the first slab row */
	bool btf_tried;
	void *priv;			/* a format's own state, from its header to its footer */
	int err;			/* a format's failure (-errno): lock_report() returns it */
};

/* One row's name columns, made by report.c. */
struct lock_row_name {
	const char *a;		/* caller / pid / address / cgroup: abuf, or a cgroup path */
	char abuf[160];
	char b[400];		/* (task) comm, (addr) name: `member of struct T` or
				 * `member of desc` (room for both whole), or sym */
	/* -l: the symbol as named before members were (the kernel's symbol,
	 * mmap_lock, &cache), the member path and the struct holding it
	 * ("" if not known), the lock's offset in its slab object (-1: not
	 * known) */
	char sym[64];
	char member[96];
	char object[64];
	int64_t offset;
	char desc[288];		/* -l: what holds the lock ("/var/log/app.log"), or "" */
	unsigned int first;	/* the first frame of the stack shown (past the tracing frames) */
};

/* An accounting line: its JSON key, its text, its value. */
struct lock_acct_line {
	const char *json, *text;
	uint64_t v;
};

struct lock_output {
	void (*header)(struct lock_out *out);
	/* Row I (from 0) of those printed. */
	void (*row)(struct lock_out *out, const struct lock_row *r,
		    const struct lock_row_name *rn, size_t i);
	void (*accounting)(struct lock_out *out, const struct lock_accounting *a,
			   const struct lock_acct_line *l, size_t n);
	void (*footer)(struct lock_out *out);	/* may be NULL */
};

/*
 * The report of T, with the accounting A, in FMT (whose enum lock_format
 * is FORMAT) to F: the rows sorted, cut and named, each handed to FMT.
 * 0, -ENOMEM, or the format's own failure (out->err).
 */
int lock_report_write(FILE *f, const struct lock_output *fmt, enum lock_format format,
		      const struct lock_report_cfg *rc, struct lock_table *t,
		      const struct lock_accounting *a, const struct lock_run_info *ri,
		      struct ksyms *ks);

/* ---- what the formats ask of a row ---- */

/*
 * Frame N of the shown part of R's stack: its address in *IP and
 * "sym+0xoff" (or the address) in BUF.  False past the last frame.
 */
bool lock_out__frame(const struct lock_out *out, const struct lock_row *r,
		     const struct lock_row_name *rn, unsigned int n, uint64_t *ip,
		     char *buf, size_t size);

/*
 * What a stack format (folded, SVG, pprof) draws for a row: its frames from
 * the outermost in.  Caller mode: the kernel frames (IP set, NAME the
 * function), then the lock type as "[mutex]"; -t, -l, -g: the task
 * ("comm-pid"), lock (symbol, or address) or cgroup (path) as the outermost
 * frame, then the type.  Names hold no ';' and no control character, and
 * are valid UTF-8 (each byte that is not as U+FFFD, lib/utf8.h).
 */
struct lock_frame {
	uint64_t ip;		/* 0: not a kernel code address */
	bool user;		/* -U: a user function (ip 0, NAME its function) */
	char name[256];		/* cut within 255 bytes (a deep cgroup path) */
};
#define LOCK_MAX_FRAMES (LOCK_MAX_STACK + 2)

size_t lock_out__stack(const struct lock_out *out, const struct lock_row *r,
		       const struct lock_row_name *rn, struct lock_frame *frames);
/* R's weight in a stack format: total wait (ns) or contentions, as --weight says. */
uint64_t lock_out__weight(const struct lock_out *out, const struct lock_row *r);

/* The accounting as text lines (the table's; CSV's as '#' comments). */
void lock_out__accounting_text(struct lock_out *out, const struct lock_accounting *a,
			       const struct lock_acct_line *l, size_t n);

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
