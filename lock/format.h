/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The words the request and the report share (no code of its own): sort
 * keys (-k), fields (-F), formats, the stack formats' weight, the files a
 * run writes.  The request (opts.h) holds what the user chose, the
 * report's configuration (report.h) what it shows, the table (table.h)
 * sorts by the keys.
 */
#ifndef FRUGAL_LOCK_FORMAT_H
#define FRUGAL_LOCK_FORMAT_H

/* The sort keys (-k): a row's value the report orders by. */
enum lock_sort {
	LOCK_SORT_CONTENDED,
	LOCK_SORT_WAIT_TOTAL,
	LOCK_SORT_WAIT_MAX,
	LOCK_SORT_WAIT_MIN,
	LOCK_SORT_AVG_WAIT,
};

/* Output fields (-F), in display order when set. */
enum lock_field {
	LOCK_FIELD_CONTENDED	= 1 << 0,
	LOCK_FIELD_WAIT_TOTAL	= 1 << 1,
	LOCK_FIELD_WAIT_MAX	= 1 << 2,
	LOCK_FIELD_WAIT_MIN	= 1 << 3,
	LOCK_FIELD_AVG_WAIT	= 1 << 4,
};
#define LOCK_FIELDS_DEFAULT (LOCK_FIELD_CONTENDED | LOCK_FIELD_WAIT_TOTAL | \
			     LOCK_FIELD_WAIT_MAX | LOCK_FIELD_AVG_WAIT)

/* The report's formats (report.c's table of them). */
enum lock_format {
	LOCK_FMT_TABLE,
	LOCK_FMT_JSON,		/* --json */
	LOCK_FMT_CSV,		/* -x SEP */
	LOCK_FMT_FOLDED,	/* --folded */
	LOCK_FMT_SVG,		/* --svg FILE */
	LOCK_FMT_PPROF,		/* --pprof FILE */
	LOCK_FMT_TOP,		/* frugal lock top: the table's rows, one accounting line */
};

/* What a stack format weighs a stack by (--weight). */
enum lock_weight {
	LOCK_WEIGHT_WAIT,	/* total wait, ns */
	LOCK_WEIGHT_CONTENDED,	/* contentions */
};

/* A report written to a file (--svg, --pprof, --output), beside stdout's. */
struct lock_file_out {
	enum lock_format format;
	const char *path;
};
#define LOCK_MAX_FILES	4

#endif
