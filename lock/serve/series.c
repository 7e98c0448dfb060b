// SPDX-License-Identifier: GPL-2.0
/*
 * The service's cumulative series: see series_int.h.  The rows are an
 * array in first-seen order (what a scrape walks), found by the hash of
 * their label values through lib/idxmap; each row's values live in one
 * allocation of its own (the pointers, then the strings), so growing the
 * array never moves a string a scrape holds.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/array.h"
#include "lib/hash.h"
#include "lib/idxmap.h"
#include "lock/serve/series_int.h"

struct lock_series {
	size_t nlabels, max;
	char **names;				/* NLABELS + 1, NULL-ended */
	struct lock_series_row *rows;
	size_t nr, cap;
	struct idxmap by_values;		/* rows by their values' hash */
	struct lock_series_row other;
	const char *other_values[LOCK_SERIES_MAX_LABELS];
	bool other_used;
	struct lock_series_fold fold;
	/* the hashes of the label sets folded, up to LOCK_SERIES_FOLD_SETS */
	uint64_t *folded;
	size_t nfolded, folded_cap;
	struct idxmap by_fold;
};

/* The label set's hash: each value with its NUL, so ("ab","c") is not ("a","bc"). */
static uint64_t values_hash(const char *const *values, size_t n)
{
	uint64_t h = HASH_FNV1A_SEED;
	size_t i;

	for (i = 0; i < n; i++)
		h = hash_fnv1a(h, values[i], strlen(values[i]) + 1);
	return h;
}

static bool values_eq(const char *const *a, const char *const *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

/* N strings copied into one allocation: the pointers, then the bytes. */
static const char *const *values_dup(const char *const *values, size_t n)
{
	size_t i, size = n * sizeof(char *);
	char **p, *at;

	for (i = 0; i < n; i++)
		size += strlen(values[i]) + 1;
	p = malloc(size);
	if (!p)
		return NULL;
	at = (char *)(p + n);
	for (i = 0; i < n; i++) {
		size_t len = strlen(values[i]) + 1;

		memcpy(at, values[i], len);
		p[i] = at;
		at += len;
	}
	return (const char *const *)p;
}

struct lock_series *lock_series__new(const char *const *label_names, size_t nlabels,
				     size_t max_series)
{
	struct lock_series *s;
	size_t i;

	if (!nlabels || nlabels > LOCK_SERIES_MAX_LABELS || max_series > IDXMAP_MAX_INDEX) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < nlabels; i++)
		if (!label_names[i]) {
			errno = EINVAL;
			return NULL;
		}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->nlabels = nlabels;
	s->max = max_series;
	s->by_values = (struct idxmap)IDXMAP_INIT;
	s->by_fold = (struct idxmap)IDXMAP_INIT;
	s->names = calloc(nlabels + 1, sizeof(char *));
	if (!s->names)
		goto err;
	for (i = 0; i < nlabels; i++) {
		s->names[i] = strdup(label_names[i]);
		if (!s->names[i])
			goto err;
		s->other_values[i] = LOCK_SERIES_OTHER;
	}
	s->other.values = s->other_values;
	return s;
err:
	lock_series__free(s);
	errno = ENOMEM;
	return NULL;
}

void lock_series__free(struct lock_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nr; i++)
		free((void *)s->rows[i].values);
	free(s->rows);
	idxmap__free(&s->by_values);
	for (i = 0; s->names && i < s->nlabels; i++)
		free(s->names[i]);
	free(s->names);
	free(s->folded);
	idxmap__free(&s->by_fold);
	free(s);
}

/* A folded label set of hash H: counted once, while the bound lasts. */
static void count_fold_set(struct lock_series *s, uint64_t h)
{
	struct idxmap_probe p;
	uint32_t i;

	if (s->fold.sets_capped)
		return;
	if (idxmap__reserve(&s->by_fold, 1))
		goto capped;	/* no memory: the count becomes a lower bound */
	idxmap__for_each_candidate(&s->by_fold, h, &p, i)
		if (s->folded[i] == h)
			return;
	if (s->nfolded == LOCK_SERIES_FOLD_SETS ||
	    array__grow(&s->folded, &s->folded_cap, s->nfolded + 1, sizeof(*s->folded), 64))
		goto capped;
	s->folded[s->nfolded] = h;
	idxmap__probe_put(&s->by_fold, &p, s->nfolded++);
	s->fold.sets++;
	return;
capped:
	s->fold.sets_capped = true;
}

static void to_other(struct lock_series *s, uint64_t count, uint64_t wait_ns)
{
	s->other.contentions += count;
	s->other.wait_ns += wait_ns;
	s->other_used = true;
}

int lock_series__add(struct lock_series *s, const char *const *values, uint64_t count,
		     uint64_t wait_ns)
{
	uint64_t h = values_hash(values, s->nlabels);
	struct lock_series_row *r;
	struct idxmap_probe p;
	const char *const *copy;
	uint32_t i;
	int err = 0;

	if (values_eq(values, s->other_values, s->nlabels)) {
		to_other(s, count, wait_ns);
		return 0;
	}
	/* Room in the map first: the probe below ends where a new row goes. */
	if (s->nr < s->max && idxmap__reserve(&s->by_values, 1))
		err = -ENOMEM;
	idxmap__for_each_candidate(&s->by_values, h, &p, i)
		if (values_eq(s->rows[i].values, values, s->nlabels)) {
			s->rows[i].contentions += count;
			s->rows[i].wait_ns += wait_ns;
			return 0;
		}
	if (s->nr < s->max && !err) {
		copy = NULL;
		if (array__grow(&s->rows, &s->cap, s->nr + 1, sizeof(*s->rows), 16) ||
		    !(copy = values_dup(values, s->nlabels))) {
			err = -ENOMEM;
		} else {
			r = &s->rows[s->nr];
			r->values = copy;
			r->contentions = count;
			r->wait_ns = wait_ns;
			idxmap__probe_put(&s->by_values, &p, s->nr++);
			return 0;
		}
	}
	/* Full (or out of memory): the other series takes it, and it is counted. */
	to_other(s, count, wait_ns);
	s->fold.adds++;
	s->fold.contentions += count;
	s->fold.wait_ns += wait_ns;
	count_fold_set(s, h);
	return err;
}

size_t lock_series__nlabels(const struct lock_series *s)
{
	return s->nlabels;
}

const char *const *lock_series__label_names(const struct lock_series *s)
{
	return (const char *const *)s->names;
}

size_t lock_series__nr(const struct lock_series *s)
{
	return s->nr;
}

const struct lock_series_row *lock_series__row(const struct lock_series *s, size_t i)
{
	return i < s->nr ? &s->rows[i] : NULL;
}

const struct lock_series_row *lock_series__other(const struct lock_series *s)
{
	return s->other_used ? &s->other : NULL;
}

void lock_series__folded(const struct lock_series *s, struct lock_series_fold *f)
{
	*f = s->fold;
}
