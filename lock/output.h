/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report's output interface.  report.c sorts the rows, names each one
 * (caller, task, lock or cgroup), counts the accounting lines, and hands
 * them to one format: a header, each row, the accounting, a footer.  A
 * format is one file (out_table.c, out_csv.c, out_json.c, out_folded.c,
 * out_svg.c, out_pprof.c; top.c's screen is the seventh) and one row of
 * report.c's table; every format prints the same rows and the same
 * accounting, only the shape differs.
 */
#ifndef FRUGAL_LOCK_OUTPUT_H
#define FRUGAL_LOCK_OUTPUT_H

#include "lock/report.h"
#include "lock/table.h"

struct ksyms;
struct lock_btf;

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

extern const struct lock_output lock_output_table, lock_output_csv, lock_output_json,
	lock_output_folded, lock_output_svg, lock_output_pprof, lock_output_top;

/* The columns -F chooses from, in their display order. */
struct lock_column {
	unsigned int field;
	enum lock_sort sort;
	const char *header, *key;	/* the table's header, CSV's and -F's name */
	const char *hold_header;	/* the table's header with --hold */
};
extern const struct lock_column lock_columns[];
#define LOCK_NR_COLUMNS 5
/* The two name columns of a mode: "type"/"caller", "pid"/"comm", ... */
extern const char *const lock_name_headers[][2];

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

#endif
