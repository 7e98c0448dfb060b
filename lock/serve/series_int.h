/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The service's cumulative series (series.c), private to lock/serve/: one
 * family of counters by label set ({type, caller} or {type, lock}), to
 * which each interval's rows add.  What a scrape writes.
 *
 * Cumulative and never removed: a series, once made, stays (with its
 * sums) for the life of the family, so each counter Prometheus reads only
 * grows, whatever the kernel table does between intervals.
 *
 * Bounded: the first MAX_SERIES distinct label sets, in the order they
 * are first seen, get a series of their own; every later one folds into
 * one series whose every label value is "other" (LOCK_SERIES_OTHER), and
 * what folded is counted (struct lock_series_fold).  So a family holds at
 * most MAX_SERIES + 1 series, and memory is bounded by MAX_SERIES label
 * sets plus LOCK_SERIES_FOLD_SETS hashes of folded ones.
 *
 * Values are bytes as the report made them (a function's name, an
 * object's path): kept as they are, invalid UTF-8 included; the writer
 * (lib/prom) escapes them.  A label set whose every value is "other"
 * is the other series itself (never a second series of the same labels),
 * and is not counted as folded.
 *
 * An engine: 0 or a negative errno, NULL with errno set; no printing.
 * Not thread-safe: one owner (the service's tick and its scrapes take
 * turns under the owner's lock).
 */
#ifndef FRUGAL_LOCK_SERIES_INT_H
#define FRUGAL_LOCK_SERIES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LOCK_SERIES_OTHER	"other"
#define LOCK_SERIES_MAX_LABELS	8
/*
 * Distinct label sets folded are counted by their 64-bit hashes, up to
 * this many (96 KB at most: the hashes and their table); past it, the
 * count is a lower bound (fold.sets_capped).  Contentions and wait folded
 * are always exact.
 */
#define LOCK_SERIES_FOLD_SETS	4096

/* One series: its label values (in the family's label order) and its sums. */
struct lock_series_row {
	const char *const *values;
	uint64_t contentions;
	uint64_t wait_ns;
};

/* What folded into the other series since the family was made. */
struct lock_series_fold {
	uint64_t adds;			/* lock_series__add() calls folded */
	uint64_t contentions;		/* their counts */
	uint64_t wait_ns;		/* their waits */
	uint64_t sets;			/* distinct label sets folded (see sets_capped) */
	bool sets_capped;		/* more than LOCK_SERIES_FOLD_SETS: SETS is a lower bound */
};

struct lock_series;

/*
 * A family with NLABELS label names (1..LOCK_SERIES_MAX_LABELS, copied)
 * and room for MAX_SERIES series of their own (0: everything folds).
 * NULL with errno set (EINVAL, ENOMEM).
 */
struct lock_series *lock_series__new(const char *const *label_names, size_t nlabels,
				     size_t max_series);
void lock_series__free(struct lock_series *s);	/* NULL-safe */

/*
 * One interval's observation of the label set VALUES (NLABELS strings):
 * COUNT contentions and WAIT_NS of wait, added to its series (made when
 * new and there is room), else to the other series, counted as folded.
 * 0; -ENOMEM when a new series could not be made: the observation is then
 * folded (never lost) and counted so.
 */
int lock_series__add(struct lock_series *s, const char *const *values, uint64_t count,
		     uint64_t wait_ns);

size_t lock_series__nlabels(const struct lock_series *s);
const char *const *lock_series__label_names(const struct lock_series *s);
/* Series of their own, in first-seen order: rows 0 .. nr - 1. */
size_t lock_series__nr(const struct lock_series *s);
const struct lock_series_row *lock_series__row(const struct lock_series *s, size_t i);
/* The other series, once anything went to it (else NULL). */
const struct lock_series_row *lock_series__other(const struct lock_series *s);
void lock_series__folded(const struct lock_series *s, struct lock_series_fold *f);

/* Every series to write: its own in first-seen order, then the other one. */
#define lock_series__for_each(s, i, row)					\
	for ((i) = 0; ((row) = (i) < lock_series__nr(s) ? lock_series__row((s), (i))	\
			      : (i) == lock_series__nr(s) ? lock_series__other(s) : NULL); \
	     (i)++)

#endif
