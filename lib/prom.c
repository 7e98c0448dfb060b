// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus writer: see prom.h for what it decides.  The two formats
 * differ in a few places, each decided below where it is written:
 *
 *			text 0.0.4		OpenMetrics 1.0.0
 *   counter's name	x_total in HELP, TYPE	x in HELP, TYPE; x_total samples
 *			and samples
 *   UNIT line		none			# UNIT x seconds
 *   HELP escapes	\\ \n			\\ \n \"
 *   a float		Go's 'g', shortest	the same, ".0" added when it has
 *						neither '.' nor 'e' (le="1.0")
 *   the end		nothing			# EOF
 *
 * Floats are written as the Prometheus clients write them (client_golang:
 * strconv.FormatFloat(v, 'g', -1, 64)): the fewest digits that read back
 * as the same double, in exponent form below 1e-4 and from 1e+06 on,
 * "+Inf", "-Inf", "NaN".  Integers (u64 counts) are written whole.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/array.h"
#include "lib/prom.h"
#include "lib/utf8.h"

/* ---- content negotiation ---- */

/* One media range of an Accept header, as far as negotiation reads it. */
struct accept_range {
	enum { R_OTHER, R_TEXT, R_OPENMETRICS } kind;
	double q;
};

/* The value of parameter NAME in [P, END) (after a ';'), into VAL; false if absent. */
static bool param(const char *p, const char *end, const char *name, char *val, size_t size)
{
	size_t n = strlen(name);

	while (p < end) {
		const char *semi = memchr(p, ';', end - p), *stop = semi ? semi : end, *v;
		size_t len;

		while (p < stop && (*p == ' ' || *p == '\t'))
			p++;
		if ((size_t)(stop - p) > n && !strncasecmp(p, name, n) && p[n] == '=') {
			v = p + n + 1;
			while (stop > v && (stop[-1] == ' ' || stop[-1] == '\t'))
				stop--;
			if (stop - v >= 2 && *v == '"' && stop[-1] == '"')
				v++, stop--;
			len = stop - v;
			if (len >= size)
				len = size - 1;
			memcpy(val, v, len);
			val[len] = '\0';
			return true;
		}
		p = semi ? semi + 1 : end;
	}
	return false;
}

/* The media range of LEN bytes at P: its kind (with an acceptable version) and q. */
static struct accept_range parse_range(const char *p, size_t len)
{
	struct accept_range r = { R_OTHER, 1.0 };
	const char *semi, *end;
	char val[32], *e;
	size_t n;

	while (len && (*p == ' ' || *p == '\t'))
		p++, len--;
	end = p + len;
	semi = memchr(p, ';', len);
	n = semi ? (size_t)(semi - p) : len;
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (semi && param(semi + 1, end, "q", val, sizeof(val))) {
		r.q = strtod(val, &e);
		if (e == val || *e || !(r.q >= 0) || r.q > 1)
			r.q = 0;	/* a q that is not one: not acceptable */
	}
	/* The version each format is written in, or none (any). */
	if (!semi || !param(semi + 1, end, "version", val, sizeof(val)))
		val[0] = '\0';
	if (n == strlen("text/plain") && !strncasecmp(p, "text/plain", n) &&
	    (!val[0] || !strcmp(val, "0.0.4")))
		r.kind = R_TEXT;
	else if (n == strlen("application/openmetrics-text") &&
		 !strncasecmp(p, "application/openmetrics-text", n) &&
		 (!val[0] || !strcmp(val, "1.0.0")))
		r.kind = R_OPENMETRICS;
	return r;
}

/*
 * As client_golang's NegotiateIncludingOpenMetrics: the range of the
 * highest q (the first of equals) that names a format written here wins;
 * others (wildcards, protobuf, OpenMetrics 0.0.1, text 1.0.0) are passed over,
 * and with none, text.  Prometheus 2.x asks for OpenMetrics 1.0.0 first.
 */
enum prom_format prom__negotiate(const char *accept)
{
	enum prom_format best = PROM_TEXT;
	double best_q = 0;
	const char *p = accept;

	if (!p)
		return PROM_TEXT;
	while (*p) {
		const char *comma = strchr(p, ','), *end = comma ? comma : p + strlen(p);
		struct accept_range r = parse_range(p, end - p);

		if (r.kind != R_OTHER && r.q > best_q) {
			best_q = r.q;
			best = r.kind == R_TEXT ? PROM_TEXT : PROM_OPENMETRICS;
		}
		if (!comma)
			break;
		p = comma + 1;
	}
	return best;
}

const char *prom__content_type(enum prom_format f)
{
	return f == PROM_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				     : "text/plain; version=0.0.4; charset=utf-8";
}

/* ---- names ---- */

bool prom__name_ok(const char *name, bool label)
{
	const char *s = name;

	if (!s || !*s || isdigit((unsigned char)*s))
		return false;
	/* Label names that start with "__" are Prometheus' own. */
	if (label && s[0] == '_' && s[1] == '_')
		return false;
	for (; *s; s++)
		if (!(isascii((unsigned char)*s) &&
		      (isalnum((unsigned char)*s) || *s == '_' || (!label && *s == ':'))))
			return false;
	return true;
}

/* ---- the buffer ---- */

static void put(struct prom_writer *w, const char *s, size_t n)
{
	if (w->err)
		return;
	if (w->len + n + 1 < w->len ||
	    array__grow(&w->buf, &w->cap, w->len + n + 1, 1, 4096)) {
		w->err = -ENOMEM;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void puts_(struct prom_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

/* A programming error (a bad name, a sample of no family): sticky, nothing more written. */
static void misuse(struct prom_writer *w)
{
	if (!w->err)
		w->err = -EINVAL;
}

/*
 * S as UTF-8, each byte that is not as U+FFFD; a backslash, a newline
 * and (QUOTE: label values, OpenMetrics' HELP) a double quote escaped.
 */
static void put_escaped(struct prom_writer *w, const char *str, bool quote)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	int n;

	for (; *s; s += n ? n : 1) {
		n = utf8_dec(s, &cp);
		if (!n)
			put(w, UTF8_REPLACEMENT, 3);
		else if (cp == '\\')
			put(w, "\\\\", 2);
		else if (cp == '\n')
			put(w, "\\n", 2);
		else if (cp == '"' && quote)
			put(w, "\\\"", 2);
		else
			put(w, (const char *)s, n);
	}
}

/* ---- numbers ---- */

/*
 * V as Go's strconv.FormatFloat(v, 'g', -1, 64) writes it, into BUF (32
 * bytes); OpenMetrics adds ".0" to a number that has neither '.' nor 'e'.
 */
static void fmt_double(char *buf, double v, bool om)
{
	char e[32];
	int prec, exp;

	if (isnan(v)) {
		strcpy(buf, "NaN");
		return;
	}
	if (isinf(v)) {
		strcpy(buf, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	/* The fewest significant digits that read back as V. */
	for (prec = 1; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec - 1, v);
		if (strtod(e, NULL) == v)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", prec - 1, v);
	exp = atoi(strchr(e, 'e') + 1);
	if (exp < -4 || exp >= 6)	/* Go's threshold when the precision is shortest */
		strcpy(buf, e);
	else
		snprintf(buf, 32, "%.*f", prec - 1 - exp > 0 ? prec - 1 - exp : 0, v);
	if (om && !strpbrk(buf, ".e"))
		strcat(buf, ".0");
}

/* ---- families and samples ---- */

void prom__init(struct prom_writer *w, enum prom_format f)
{
	memset(w, 0, sizeof(*w));
	w->format = f;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/* A unit's name ends the family's: "_seconds" for "seconds". */
static bool unit_ok(const char *name, const char *unit)
{
	size_t n = strlen(name), m = strlen(unit);

	return prom__name_ok(unit, true) && n > m + 1 && name[n - m - 1] == '_' &&
	       !strcmp(name + n - m, unit);
}

static const char *const type_names[] = {
	[PROM_COUNTER] = "counter", [PROM_GAUGE] = "gauge", [PROM_HISTOGRAM] = "histogram",
};

void prom__family(struct prom_writer *w, const char *name, enum prom_type type,
		  const char *help, const char *unit)
{
	bool om = w->format == PROM_OPENMETRICS;
	/* The text format names a counter by its samples' name. */
	const char *suffix = !om && type == PROM_COUNTER ? "_total" : "";

	if (w->err)
		return;
	if (!prom__name_ok(name, false) || (unsigned int)type > PROM_HISTOGRAM ||
	    (type == PROM_COUNTER && ends_with(name, "_total")) || (unit && !unit_ok(name, unit))) {
		misuse(w);
		return;
	}
	w->family = name;
	w->type = type;
	if (help) {
		puts_(w, "# HELP ");
		puts_(w, name);
		puts_(w, suffix);
		put(w, " ", 1);
		put_escaped(w, help, om);
		put(w, "\n", 1);
	}
	puts_(w, "# TYPE ");
	puts_(w, name);
	puts_(w, suffix);
	put(w, " ", 1);
	puts_(w, type_names[type]);
	put(w, "\n", 1);
	if (om && unit) {
		puts_(w, "# UNIT ");
		puts_(w, name);
		put(w, " ", 1);
		puts_(w, unit);
		put(w, "\n", 1);
	}
}

/* NAME SUFFIX{labels[,le="LE"]} : everything of a sample line but its value. */
static void sample_head(struct prom_writer *w, const char *suffix, const char *const *labels,
			const char *le)
{
	size_t i;

	for (i = 0; labels && labels[i]; i += 2)
		if (!labels[i + 1] || !prom__name_ok(labels[i], true) ||
		    (le && !strcmp(labels[i], "le"))) {
			misuse(w);
			return;
		}
	puts_(w, w->family);
	puts_(w, suffix);
	if ((labels && labels[0]) || le) {
		put(w, "{", 1);
		for (i = 0; labels && labels[i]; i += 2) {
			if (i)
				put(w, ",", 1);
			puts_(w, labels[i]);
			put(w, "=\"", 2);
			put_escaped(w, labels[i + 1], true);
			put(w, "\"", 1);
		}
		if (le) {
			puts_(w, i ? ",le=\"" : "le=\"");
			puts_(w, le);
			put(w, "\"", 1);
		}
		put(w, "}", 1);
	}
	put(w, " ", 1);
}

/* A counter's or a gauge's sample: the family's name, with _total for a counter. */
static bool scalar_head(struct prom_writer *w, const char *const *labels)
{
	if (w->err)
		return false;
	if (!w->family || w->type == PROM_HISTOGRAM) {
		misuse(w);
		return false;
	}
	sample_head(w, w->type == PROM_COUNTER ? "_total" : "", labels, NULL);
	return !w->err;
}

void prom__sample(struct prom_writer *w, const char *const *labels, double value)
{
	char num[32];

	if (!scalar_head(w, labels))
		return;
	fmt_double(num, value, w->format == PROM_OPENMETRICS);
	puts_(w, num);
	put(w, "\n", 1);
}

static void put_u64(struct prom_writer *w, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%llu", (unsigned long long)v);
	puts_(w, num);
	put(w, "\n", 1);
}

void prom__sample_u64(struct prom_writer *w, const char *const *labels, uint64_t value)
{
	if (scalar_head(w, labels))
		put_u64(w, value);
}

void prom__histogram(struct prom_writer *w, const char *const *labels, const double *bounds,
		     const uint64_t *counts, size_t n, uint64_t count, double sum)
{
	bool om = w->format == PROM_OPENMETRICS;
	char le[32];
	size_t i;

	if (w->err)
		return;
	if (!w->family || w->type != PROM_HISTOGRAM) {
		misuse(w);
		return;
	}
	/* Bounds increase, counts are cumulative, and +Inf's is COUNT. */
	for (i = 0; i < n; i++)
		if (!isfinite(bounds[i]) || (i && (bounds[i] <= bounds[i - 1] ||
						   counts[i] < counts[i - 1])) ||
		    counts[i] > count) {
			misuse(w);
			return;
		}
	for (i = 0; i <= n; i++) {
		if (i < n)
			fmt_double(le, bounds[i], om);
		else
			strcpy(le, "+Inf");
		sample_head(w, "_bucket", labels, le);
		put_u64(w, i < n ? counts[i] : count);
	}
	sample_head(w, "_sum", labels, NULL);
	fmt_double(le, sum, om);
	puts_(w, le);
	put(w, "\n", 1);
	sample_head(w, "_count", labels, NULL);
	put_u64(w, count);
}

int prom__finish(struct prom_writer *w)
{
	if (w->format == PROM_OPENMETRICS)
		puts_(w, "# EOF\n");
	else if (!w->buf)
		put(w, "", 0);	/* an empty body is still a buffer */
	return w->err;
}

void prom__free(struct prom_writer *w)
{
	if (!w)
		return;
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}
