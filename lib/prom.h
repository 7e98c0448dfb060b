/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one writer of Prometheus' exposition formats: the text format 0.0.4
 * and OpenMetrics 1.0 text, chosen from a scraper's Accept header.  Names,
 * escaping (label values: backslash, double quote, newline; UTF-8 kept,
 * a byte that is not UTF-8 as U+FFFD, lib/utf8.h), HELP and TYPE lines,
 * counters' `_total` (named in the sample, and in OpenMetrics not in the
 * family), histograms' `_bucket{le=...}`, `_sum` and `_count`, and
 * OpenMetrics' `# EOF` are decided here, once.
 *
 * Into a growing buffer in memory (the response body): no I/O.  A failed
 * allocation is sticky (w->err = -ENOMEM) and every later call does
 * nothing, so a caller checks once, at the end.  So is a misuse, which is
 * a programming error (w->err = -EINVAL, nothing more written): a metric
 * or label name that is not one (prom__name_ok), a counter's family
 * named with its `_total`, a unit its name does not end in, a sample
 * before any family or of another type than its family's, a label `le`
 * on a histogram, bounds that do not increase or counts that decrease.
 */
#ifndef FRUGAL_PROM_H
#define FRUGAL_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum prom_format {
	PROM_TEXT,		/* text/plain; version=0.0.4 */
	PROM_OPENMETRICS,	/* application/openmetrics-text; version=1.0.0 */
};

/*
 * The format an Accept header asks for, as client_golang negotiates: of
 * the ranges that name a format written here (text/plain with version
 * 0.0.4 or none; application/openmetrics-text with version 1.0.0 or
 * none), the one of the highest q, the first of equals; others (wildcards,
 * protobuf, OpenMetrics 0.0.1) are passed over.  None, "" or NULL: text.
 */
enum prom_format prom__negotiate(const char *accept);
const char *prom__content_type(enum prom_format f);	/* with charset=utf-8 */

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM };

/*
 * Is NAME a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, LABEL, a label
 * name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__": Prometheus')?
 */
bool prom__name_ok(const char *name, bool label);

struct prom_writer {
	enum prom_format format;
	char *buf;		/* malloc'd; the caller takes it at the end */
	size_t len, cap;
	int err;		/* 0, -ENOMEM or -EINVAL (sticky) */
	/* the family being written */
	const char *family;
	enum prom_type type;
};

void prom__init(struct prom_writer *w, enum prom_format f);

/*
 * A family: its HELP and TYPE lines.  NAME is the family's base name,
 * without `_total` (frugal_lock_contentions); UNIT, or NULL, is
 * OpenMetrics' unit ("seconds"), which NAME must then end in.
 */
void prom__family(struct prom_writer *w, const char *name, enum prom_type type,
		  const char *help, const char *unit);

/*
 * One sample of the family being written.  LABELS: name/value pairs ended
 * by NULL (may be NULL: no labels).  A counter's sample is NAME_total; a
 * gauge's NAME.
 */
void prom__sample(struct prom_writer *w, const char *const *labels, double value);
void prom__sample_u64(struct prom_writer *w, const char *const *labels, uint64_t value);

/*
 * A histogram's samples for one label set: N cumulative buckets (BOUNDS[i]
 * the upper bound, COUNTS[i] the observations <= it, increasing), then
 * +Inf (COUNT), _sum (SUM) and _count (COUNT).
 */
void prom__histogram(struct prom_writer *w, const char *const *labels, const double *bounds,
		     const uint64_t *counts, size_t n, uint64_t count, double sum);

/*
 * The end (OpenMetrics' "# EOF").  Returns w->err; the body is w->buf
 * (NUL-terminated, never NULL when 0 is returned), w->len.  A caller that
 * takes the buffer sets w->buf to NULL.
 */
int prom__finish(struct prom_writer *w);
void prom__free(struct prom_writer *w);	/* frees buf (when not taken); NULL-safe */

#endif
