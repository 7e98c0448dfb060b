// SPDX-License-Identifier: GPL-2.0
/*
 * lib/prom: the Accept header negotiated as client_golang does, both
 * formats written byte for byte (counters' _total, HELP and TYPE, UNIT,
 * histograms, # EOF), floats as Go's shortest 'g', label values escaped
 * with UTF-8 kept and each byte that is not UTF-8 as U+FFFD, and misuse
 * refused.  tests/e2e/prom.sh reads what --dump writes with promtool and
 * with the Prometheus Python client's parsers.
 *
 *	test_prom				run the checks
 *	test_prom --dump text|openmetrics	a sample exposition, hostile labels
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/prom.h"
#include "tests/test.h"

/* The hostile label values --dump writes (prom.sh reads them back from here). */
static const char *const hostile[] = {
	"plain",
	"a\"quote",
	"back\\slash",
	"new\nline",
	"caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac",
	"bad\xff\xc3(utf8",
	"a,b=c}{",
	"<script>&'x'",
	"\\\"\n\\n",
	"",
	"tab\there",
};
#define NR_HOSTILE (sizeof(hostile) / sizeof(hostile[0]))

/* The sample exposition: every kind of family, the hostile values as labels. */
static int write_sample(struct prom_writer *w)
{
	static const double bounds[] = { 1e-06, 0.001, 1 };
	static const uint64_t counts[] = { 2, 5, 7 };
	size_t i;

	prom__family(w, "frugal_lock_contentions", PROM_COUNTER,
		     "Contended lock waits, by \"caller\" \\ type\nsecond line", NULL);
	for (i = 0; i < NR_HOSTILE; i++) {
		const char *labels[] = { "type", "spinlock", "caller", hostile[i], NULL };

		prom__sample_u64(w, labels, 1000 + i);
	}
	prom__family(w, "frugal_lock_wait_seconds", PROM_COUNTER,
		     "Time spent waiting for contended locks.", "seconds");
	for (i = 0; i < NR_HOSTILE; i++) {
		const char *labels[] = { "type", "mutex", "caller", hostile[i], NULL };

		prom__sample(w, labels, 0.5 * (double)i + 1e-9);
	}
	prom__family(w, "frugal_lock_wait_duration_seconds", PROM_HISTOGRAM,
		     "Contended waits by duration, per lock type.", "seconds");
	{
		const char *a[] = { "type", "rwsem:W", NULL }, *b[] = { "type", "caf\xc3\xa9\xfe", NULL };

		prom__histogram(w, a, bounds, counts, 3, 9, 2.75);
		prom__histogram(w, b, bounds, counts, 3, 7, 1e-3);
	}
	prom__family(w, "frugal_lock_series", PROM_GAUGE, "Series of each family.", NULL);
	{
		const char *l[] = { "family", "contentions", NULL };

		prom__sample_u64(w, l, 12);
		prom__sample(w, NULL, NAN);
	}
	prom__family(w, "process_resident_memory_bytes", PROM_GAUGE,
		     "Resident memory size in bytes.", "bytes");
	prom__sample(w, NULL, 12345678);
	return prom__finish(w);
}

static int dump(const char *fmt)
{
	struct prom_writer w;
	int err;

	if (strcmp(fmt, "text") && strcmp(fmt, "openmetrics")) {
		fprintf(stderr, "test_prom: --dump text|openmetrics\n");
		return 2;
	}
	prom__init(&w, !strcmp(fmt, "text") ? PROM_TEXT : PROM_OPENMETRICS);
	err = write_sample(&w);
	if (!err)
		fwrite(w.buf, 1, w.len, stdout);
	prom__free(&w);
	return err ? 1 : 0;
}

static void test_negotiate(void)
{
	TEST_BEGIN("negotiate: Prometheus' Accept, q-values, versions, the default");
	/* Prometheus 2.42's scrape_protocols default, verbatim */
	CHECK_EQ(prom__negotiate("application/openmetrics-text;version=1.0.0,application/"
				 "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
				 "q=0.5,*/*;q=0.1"), PROM_OPENMETRICS);
	CHECK_EQ(prom__negotiate(NULL), PROM_TEXT);
	CHECK_EQ(prom__negotiate(""), PROM_TEXT);
	CHECK_EQ(prom__negotiate("*/*"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("text/plain;version=0.0.4"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("application/openmetrics-text"), PROM_OPENMETRICS);
	CHECK_EQ(prom__negotiate(" Application/OpenMetrics-Text ; Version=\"1.0.0\" ; q=0.9"),
		 PROM_OPENMETRICS);
	/* the higher q wins, whatever the order; the first of equals */
	CHECK_EQ(prom__negotiate("text/plain;q=0.4, application/openmetrics-text;q=0.8"),
		 PROM_OPENMETRICS);
	CHECK_EQ(prom__negotiate("application/openmetrics-text;q=0.3,text/plain;q=0.8"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("text/plain,application/openmetrics-text"), PROM_TEXT);
	/* q=0 is "not acceptable"; a q that is not a number counts as 0 */
	CHECK_EQ(prom__negotiate("application/openmetrics-text;q=0,text/plain;q=0.1"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("application/openmetrics-text;q=abc"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("application/openmetrics-text;q=2"), PROM_TEXT);
	/* versions not written here are passed over: OpenMetrics 0.0.1, protobuf */
	CHECK_EQ(prom__negotiate("application/openmetrics-text;version=0.0.1"), PROM_TEXT);
	CHECK_EQ(prom__negotiate("application/vnd.google.protobuf;proto=io.prometheus.client."
				 "MetricFamily;encoding=delimited,application/openmetrics-text;"
				 "version=1.0.0;q=0.5"), PROM_OPENMETRICS);
	/* wildcards are not a request for OpenMetrics */
	CHECK_EQ(prom__negotiate("application/*,*/*;q=0.9"), PROM_TEXT);
	CHECK_EQ(prom__negotiate(",,;;;,"), PROM_TEXT);
	CHECK_STR(prom__content_type(PROM_TEXT), "text/plain; version=0.0.4; charset=utf-8");
	CHECK_STR(prom__content_type(PROM_OPENMETRICS),
		  "application/openmetrics-text; version=1.0.0; charset=utf-8");
	TEST_END();
}

/* One gauge sample of V, its value as written. */
static char *gauge(enum prom_format f, double v)
{
	struct prom_writer w;
	char *s, *sp, *nl;

	prom__init(&w, f);
	prom__family(&w, "g", PROM_GAUGE, NULL, NULL);
	prom__sample(&w, NULL, v);
	if (prom__finish(&w) || !(sp = strstr(w.buf, "\ng ")) || !(nl = strchr(sp + 3, '\n'))) {
		prom__free(&w);
		return strdup("(failed)");
	}
	s = strndup(sp + 3, nl - sp - 3);
	prom__free(&w);
	return s;
}

static void test_floats(void)
{
	/* Each value and strconv.FormatFloat(v, 'g', -1, 64) of Go 1.19 */
	static const struct {
		double v;
		const char *text, *om;
	} t[] = {
		{ 0, "0", "0.0" },
		{ -0.0, "-0", "-0.0" },
		{ 1, "1", "1.0" },
		{ 100, "100", "100.0" },
		{ 999999, "999999", "999999.0" },
		{ 1e6, "1e+06", "1e+06" },
		{ 1234567, "1.234567e+06", "1.234567e+06" },
		{ 0.1, "0.1", "0.1" },
		{ 0.3, "0.3", "0.3" },
		{ 0.1 + 0.2, "0.30000000000000004", "0.30000000000000004" },
		{ 1e-4, "0.0001", "0.0001" },
		{ 1.5e-5, "1.5e-05", "1.5e-05" },
		{ 1e-9, "1e-09", "1e-09" },
		{ 2.5, "2.5", "2.5" },
		{ 123456.5, "123456.5", "123456.5" },
		{ 1.8446744073709552e19, "1.8446744073709552e+19", "1.8446744073709552e+19" },
		{ 5e-324, "5e-324", "5e-324" },
		{ 1.7976931348623157e308, "1.7976931348623157e+308", "1.7976931348623157e+308" },
		{ INFINITY, "+Inf", "+Inf" },
		{ -INFINITY, "-Inf", "-Inf" },
		{ NAN, "NaN", "NaN" },
		{ -2.25, "-2.25", "-2.25" },
	};
	size_t i;

	TEST_BEGIN("floats: Go's shortest 'g'; OpenMetrics' .0; +Inf, -Inf, NaN");
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		char *a = gauge(PROM_TEXT, t[i].v), *b = gauge(PROM_OPENMETRICS, t[i].v);

		CHECK(!strcmp(a, t[i].text), "text %.17g: %s, expected %s", t[i].v, a, t[i].text);
		CHECK(!strcmp(b, t[i].om), "openmetrics %.17g: %s, expected %s", t[i].v, b, t[i].om);
		free(a);
		free(b);
	}
	TEST_END();
}

static void test_text(void)
{
	static const double bounds[] = { 0.001, 1 };
	static const uint64_t counts[] = { 1, 3 };
	const char *l[] = { "type", "spinlock", "caller", "a\"b\\c\nd\xff" "caf\xc3\xa9", NULL };
	const char *t[] = { "type", "mutex", NULL };
	struct prom_writer w;

	TEST_BEGIN("text 0.0.4: families, counters' _total in HELP and TYPE, escapes, histogram");
	prom__init(&w, PROM_TEXT);
	prom__family(&w, "frugal_lock_contentions", PROM_COUNTER, "Waits \"in\" \\ all\nof it",
		     NULL);
	prom__sample_u64(&w, l, UINT64_MAX);
	prom__sample_u64(&w, NULL, 0);
	prom__family(&w, "frugal_lock_wait_seconds", PROM_COUNTER, "Wait.", "seconds");
	prom__sample(&w, t, 1.5);
	prom__family(&w, "frugal_lock_wait_duration_seconds", PROM_HISTOGRAM, "Waits.", "seconds");
	prom__histogram(&w, t, bounds, counts, 2, 4, 2.5);
	prom__histogram(&w, NULL, bounds, counts, 0, 0, 0);
	prom__family(&w, "frugal_up", PROM_GAUGE, NULL, NULL);
	prom__sample(&w, NULL, 1);
	CHECK_EQ(prom__finish(&w), 0);
	CHECK_STR(w.buf,
		  "# HELP frugal_lock_contentions_total Waits \"in\" \\\\ all\\nof it\n"
		  "# TYPE frugal_lock_contentions_total counter\n"
		  "frugal_lock_contentions_total{type=\"spinlock\",caller=\"a\\\"b\\\\c\\nd\xef\xbf\xbd"
		  "caf\xc3\xa9\"} 18446744073709551615\n"
		  "frugal_lock_contentions_total 0\n"
		  "# HELP frugal_lock_wait_seconds_total Wait.\n"
		  "# TYPE frugal_lock_wait_seconds_total counter\n"
		  "frugal_lock_wait_seconds_total{type=\"mutex\"} 1.5\n"
		  "# HELP frugal_lock_wait_duration_seconds Waits.\n"
		  "# TYPE frugal_lock_wait_duration_seconds histogram\n"
		  "frugal_lock_wait_duration_seconds_bucket{type=\"mutex\",le=\"0.001\"} 1\n"
		  "frugal_lock_wait_duration_seconds_bucket{type=\"mutex\",le=\"1\"} 3\n"
		  "frugal_lock_wait_duration_seconds_bucket{type=\"mutex\",le=\"+Inf\"} 4\n"
		  "frugal_lock_wait_duration_seconds_sum{type=\"mutex\"} 2.5\n"
		  "frugal_lock_wait_duration_seconds_count{type=\"mutex\"} 4\n"
		  "frugal_lock_wait_duration_seconds_bucket{le=\"+Inf\"} 0\n"
		  "frugal_lock_wait_duration_seconds_sum 0\n"
		  "frugal_lock_wait_duration_seconds_count 0\n"
		  "# TYPE frugal_up gauge\n"
		  "frugal_up 1\n");
	CHECK_EQ(w.len, strlen(w.buf));
	prom__free(&w);
	prom__free(&w);		/* twice: NULL-safe */
	prom__free(NULL);
	TEST_END();
}

static void test_openmetrics(void)
{
	static const double bounds[] = { 0.001, 1 };
	static const uint64_t counts[] = { 1, 3 };
	const char *l[] = { "caller", "a\"b\\c\nd", NULL };
	struct prom_writer w;

	TEST_BEGIN("openmetrics 1.0.0: family without _total, UNIT, HELP's quote, le as 1.0, # EOF");
	prom__init(&w, PROM_OPENMETRICS);
	prom__family(&w, "frugal_lock_contentions", PROM_COUNTER, "Waits \"in\" \\ all\nof it",
		     NULL);
	prom__sample_u64(&w, l, 7);
	prom__family(&w, "frugal_lock_wait_seconds", PROM_COUNTER, "Wait.", "seconds");
	prom__sample(&w, NULL, 2);
	prom__family(&w, "frugal_lock_wait_duration_seconds", PROM_HISTOGRAM, "Waits.", "seconds");
	prom__histogram(&w, NULL, bounds, counts, 2, 4, 2.5);
	CHECK_EQ(prom__finish(&w), 0);
	CHECK_STR(w.buf,
		  "# HELP frugal_lock_contentions Waits \\\"in\\\" \\\\ all\\nof it\n"
		  "# TYPE frugal_lock_contentions counter\n"
		  "frugal_lock_contentions_total{caller=\"a\\\"b\\\\c\\nd\"} 7\n"
		  "# HELP frugal_lock_wait_seconds Wait.\n"
		  "# TYPE frugal_lock_wait_seconds counter\n"
		  "# UNIT frugal_lock_wait_seconds seconds\n"
		  "frugal_lock_wait_seconds_total 2.0\n"
		  "# HELP frugal_lock_wait_duration_seconds Waits.\n"
		  "# TYPE frugal_lock_wait_duration_seconds histogram\n"
		  "# UNIT frugal_lock_wait_duration_seconds seconds\n"
		  "frugal_lock_wait_duration_seconds_bucket{le=\"0.001\"} 1\n"
		  "frugal_lock_wait_duration_seconds_bucket{le=\"1.0\"} 3\n"
		  "frugal_lock_wait_duration_seconds_bucket{le=\"+Inf\"} 4\n"
		  "frugal_lock_wait_duration_seconds_sum 2.5\n"
		  "frugal_lock_wait_duration_seconds_count 4\n"
		  "# EOF\n");
	prom__free(&w);

	/* nothing at all: an empty body, and OpenMetrics' end alone */
	prom__init(&w, PROM_TEXT);
	CHECK_EQ(prom__finish(&w), 0);
	CHECK_STR(w.buf, "");
	prom__free(&w);
	prom__init(&w, PROM_OPENMETRICS);
	CHECK_EQ(prom__finish(&w), 0);
	CHECK_STR(w.buf, "# EOF\n");
	prom__free(&w);
	TEST_END();
}

/* What one misuse leaves: -EINVAL, and nothing written after it (a
 * refused sample writes nothing of itself either: test_text's exact
 * strings would show it). */
#define CHECK_MISUSE(what, ...) do {					\
	struct prom_writer __w;						\
	size_t __len;							\
									\
	prom__init(&__w, PROM_TEXT);					\
	prom__family(&__w, "ok", PROM_GAUGE, NULL, NULL);		\
	__VA_ARGS__;							\
	__len = __w.len;						\
	CHECK(__w.err == -EINVAL, "%s: err %d", what, __w.err);		\
	prom__sample(&__w, NULL, 1);					\
	CHECK(prom__finish(&__w) == -EINVAL && __w.len == __len,	\
	      "%s: written after it", what);				\
	prom__free(&__w);						\
} while (0)

static void test_misuse(void)
{
	static const double bounds[] = { 1, 0.5 }, inf[] = { INFINITY };
	static const uint64_t counts[] = { 1, 2 }, down[] = { 2, 1 };
	const char *bad_label[] = { "0x", "v", NULL }, *reserved[] = { "__name__", "v", NULL };
	const char *dash[] = { "a-b", "v", NULL }, *le[] = { "le", "1", NULL };
	const char *odd[] = { "a", NULL };

	TEST_BEGIN("misuse: bad names, _total, units, samples of no family or the wrong type");
	CHECK(prom__name_ok("frugal_lock:x_1", false) && prom__name_ok("_x", false) &&
	      prom__name_ok("type", true) && prom__name_ok("_t", true), "good names");
	CHECK(!prom__name_ok("", false) && !prom__name_ok(NULL, true) &&
	      !prom__name_ok("1x", false) && !prom__name_ok("a-b", false) &&
	      !prom__name_ok("a:b", true) && !prom__name_ok("__x", true) &&
	      !prom__name_ok("caf\xc3\xa9", false) && !prom__name_ok("a b", false), "bad names");
	CHECK_MISUSE("a bad family name", prom__family(&__w, "frugal-lock", PROM_GAUGE, "", NULL));
	CHECK_MISUSE("a counter with _total",
		     prom__family(&__w, "x_total", PROM_COUNTER, NULL, NULL));
	CHECK_MISUSE("a unit the name does not end in",
		     prom__family(&__w, "x_bytes", PROM_GAUGE, NULL, "seconds"));
	CHECK_MISUSE("a unit that is the whole name",
		     prom__family(&__w, "seconds", PROM_GAUGE, NULL, "seconds"));
	CHECK_MISUSE("a bad type", prom__family(&__w, "x", (enum prom_type)7, NULL, NULL));
	CHECK_MISUSE("a label name starting with a digit", prom__sample(&__w, bad_label, 1));
	CHECK_MISUSE("a reserved label name", prom__sample_u64(&__w, reserved, 1));
	CHECK_MISUSE("a label name with a dash", prom__sample(&__w, dash, 1));
	CHECK_MISUSE("a label without a value", prom__sample(&__w, odd, 1));
	CHECK_MISUSE("a histogram sample of a gauge",
		     prom__histogram(&__w, NULL, bounds, counts, 0, 0, 0));
	CHECK_MISUSE("a gauge sample of a histogram",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__sample(&__w, NULL, 1));
	CHECK_MISUSE("bounds that decrease",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__histogram(&__w, NULL, bounds, counts, 2, 2, 0));
	CHECK_MISUSE("counts that decrease",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__histogram(&__w, NULL, (const double[]){ 1, 2 }, down, 2, 2, 0));
	CHECK_MISUSE("a bucket above the count",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__histogram(&__w, NULL, (const double[]){ 1, 2 }, counts, 2, 1, 0));
	CHECK_MISUSE("+Inf as a bound",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__histogram(&__w, NULL, inf, counts, 1, 1, 0));
	CHECK_MISUSE("le on a histogram",
		     prom__family(&__w, "h", PROM_HISTOGRAM, NULL, NULL);
		     prom__histogram(&__w, le, NULL, NULL, 0, 0, 0));
	{
		struct prom_writer w;

		prom__init(&w, PROM_OPENMETRICS);
		prom__sample(&w, NULL, 1);	/* no family yet */
		CHECK_EQ(prom__finish(&w), -EINVAL);
		CHECK_EQ(w.len, 0);
		prom__free(&w);
	}
	TEST_END();
}

static void test_sample(void)
{
	struct prom_writer w;

	TEST_BEGIN("the --dump exposition: written whole, both formats");
	prom__init(&w, PROM_TEXT);
	CHECK_EQ(write_sample(&w), 0);
	CHECK(w.buf && strstr(w.buf, "caller=\"bad\xef\xbf\xbd\xef\xbf\xbd(utf8\"} 1005\n"),
	      "each invalid byte as U+FFFD (a cut sequence too), the rest kept");
	CHECK(w.buf && strstr(w.buf, "caller=\"new\\nline\""), "a newline escaped");
	prom__free(&w);
	prom__init(&w, PROM_OPENMETRICS);
	CHECK_EQ(write_sample(&w), 0);
	CHECK(w.len > 6 && !strcmp(w.buf + w.len - 6, "# EOF\n"), "ends in # EOF");
	prom__free(&w);
	TEST_END();
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--dump"))
		return dump(argv[2]);
	test_negotiate();
	test_floats();
	test_text();
	test_openmetrics();
	test_misuse();
	test_sample();
	TEST_EXIT();
}
