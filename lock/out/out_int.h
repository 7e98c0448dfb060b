/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lock/out/'s own: the formats (one out_*.c each, top's screen in
 * out_table.c) as out.c's table lists them, and the words and helpers
 * several of them print with.
 */
#ifndef FRUGAL_LOCK_OUT_INT_H
#define FRUGAL_LOCK_OUT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lock/report/report.h"

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

/* "123 ns", "1.23 us", ...: perf's units. */
void lock_fmt_time(char *buf, size_t size, uint64_t ns);

#endif
