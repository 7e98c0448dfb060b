// SPDX-License-Identifier: GPL-2.0
/*
 * lib/json: strings as json.h says (UTF-8 kept, controls as \u00xx, each
 * byte that is not UTF-8 as \ufffd), commas and nesting, the caller's
 * newlines; and lib/utf8's decoder and copy, which the flame graph and the
 * stack formats share.  Expected strings are exact; tests/e2e/json.sh
 * parses what this writes with python3's json module.
 *
 *	test_json			run the checks
 *	test_json --dump		the documents, one a line, for json.sh
 */
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/utf8.h"
#include "tests/test.h"

/* S written by json_put_str, in a buffer the caller frees. */
static char *quoted(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	json_put_str(f, s);
	fclose(f);
	return buf;
}

#define CHECK_QUOTED(in, want) do {					\
	char *__q = quoted(in);						\
	CHECK(!strcmp(__q, want), "%s: got %s, expected %s", #in, __q, want); \
	free(__q);							\
} while (0)

/* The hostile names: each input, and the JSON string it must become. */
static const struct {
	const char *in, *want;
} names[] = {
	{ "plain", "\"plain\"" },
	{ "", "\"\"" },
	/* valid UTF-8 of 2, 3 and 4 bytes stays as it is */
	{ "caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", "\"caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac\"" },
	{ "\xf0\x9f\x94\x92 lock", "\"\xf0\x9f\x94\x92 lock\"" },
	{ "\xef\xbf\xbd\xef\xbf\xbf", "\"\xef\xbf\xbd\xef\xbf\xbf\"" },	/* U+FFFD, U+FFFF */
	{ "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"" },			/* U+10FFFF */
	/* overlong forms: each byte its own U+FFFD */
	{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },
	{ "\xc1\xbf", "\"\\ufffd\\ufffd\"" },
	{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	/* surrogates, and past U+10FFFF */
	{ "a\xed\xa0\x80z", "\"a\\ufffd\\ufffd\\ufffdz\"" },
	{ "\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
	{ "\xf5\x80", "\"\\ufffd\\ufffd\"" },
	/* sequences cut short: at the end (a comm cut at 15 bytes), and by a
	 * byte that does not continue them, which then stands for itself */
	{ "ab\xe6\x97", "\"ab\\ufffd\\ufffd\"" },
	{ "\xf0\x9f\x94", "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "\xc3", "\"\\ufffd\"" },
	{ "\xe6\x97z\xc3\xa9", "\"\\ufffd\\ufffdz\xc3\xa9\"" },
	/* bytes 0x80-0xff alone */
	{ "\x80", "\"\\ufffd\"" },
	{ "\xbf\xff\xfe", "\"\\ufffd\\ufffd\\ufffd\"" },
	{ "x\xe9y", "\"x\\ufffdy\"" },				/* Latin-1 é */
	/* quotes, backslash, DEL, C1 controls, and what stands */
	{ "a\"b", "\"a\\\"b\"" },
	{ "a\\b", "\"a\\\\b\"" },
	{ "\\\"", "\"\\\\\\\"\"" },
	{ "del\x7f", "\"del\\u007f\"" },
	{ "c1\xc2\x80\xc2\x9f\xc2\xa0", "\"c1\\u0080\\u009f\xc2\xa0\"" },
	{ "a,b</c>&'d'/e", "\"a,b</c>&'d'/e\"" },
	{ "line\nbreak\r\ttab", "\"line\\u000abreak\\u000d\\u0009tab\"" },
	{ "\x1b[31mred", "\"\\u001b[31mred\"" },
};

static void test_strings(void)
{
	size_t i;

	TEST_BEGIN("json: strings (UTF-8, invalid bytes, controls, quotes)");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK_QUOTED(names[i].in, names[i].want);
	TEST_END();
}

static void test_controls(void)
{
	char in[2] = "", want[16];
	int c;

	TEST_BEGIN("json: every control character as \\u00xx");
	for (c = 1; c < 0x20; c++) {
		in[0] = (char)c;
		snprintf(want, sizeof(want), "\"\\u%04x\"", c);
		CHECK_QUOTED(in, want);
	}
	TEST_END();
}

/* A document of every kind of value, nested, with newlines asked for. */
static void write_doc(FILE *f)
{
	struct json_writer w;
	size_t i;

	json__init(&w, f);
	json__obj_begin(&w);
	json__str_field(&w, "tool", "t");
	json__key(&w, "empty");
	json__arr_begin(&w);
	json__arr_end(&w);
	json__key(&w, "none");
	json__obj_begin(&w);
	json__obj_end(&w);
	json__u64_field(&w, "big", UINT64_MAX);
	json__i64_field(&w, "neg", -5);
	json__fixed_field(&w, "t", 1.5, 3);
	json__fixed_field(&w, "inf", 1.0 / 0.0, 3);
	json__bool_field(&w, "yes", true);
	json__key(&w, "nil");
	json__null(&w);
	json__key(&w, "rows");
	json__arr_begin(&w);
	for (i = 0; i < 3; i++) {
		json__nl(&w);
		json__obj_begin(&w);
		json__u64_field(&w, "n", i);
		json__key(&w, "deep");
		json__arr_begin(&w);
		json__arr_begin(&w);
		json__str(&w, "a");
		json__bool(&w, false);
		json__arr_end(&w);
		json__u64(&w, 7);
		json__arr_end(&w);
		json__obj_end(&w);
	}
	json__arr_end(&w);
	json__nl(&w);
	json__key(&w, "names");
	json__arr_begin(&w);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		json__str(&w, names[i].in);
	json__arr_end(&w);
	json__key(&w, "caf\xc3\xa9,\"\n\xff");
	json__str(&w, "key escaped too");
	json__obj_end(&w);
	fputc('\n', f);
	/* a second document: no comma between top-level values */
	json__arr_begin(&w);
	json__arr_end(&w);
	fputc('\n', f);
}

static void test_commas(void)
{
	static const char want_head[] =
		"{\"tool\":\"t\",\"empty\":[],\"none\":{},\"big\":18446744073709551615,"
		"\"neg\":-5,\"t\":1.500,\"inf\":null,\"yes\":true,\"nil\":null,\"rows\":[\n"
		"{\"n\":0,\"deep\":[[\"a\",false],7]},\n"
		"{\"n\":1,\"deep\":[[\"a\",false],7]},\n"
		"{\"n\":2,\"deep\":[[\"a\",false],7]}],\n"
		"\"names\":[\"plain\",\"\",";
	static const char want_tail[] =
		"],\"caf\xc3\xa9,\\\"\\u000a\\ufffd\":\"key escaped too\"}\n[]\n";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	TEST_BEGIN("json: commas, nesting, the caller's newlines, documents in a row");
	if (!f)
		abort();
	write_doc(f);
	fclose(f);
	CHECK(!strncmp(buf, want_head, strlen(want_head)), "head: %s", buf);
	CHECK(len > strlen(want_tail) && !strcmp(buf + len - strlen(want_tail), want_tail),
	      "tail: %s", buf);
	CHECK(!strstr(buf, ",,") && !strstr(buf, "[,") && !strstr(buf, "{,") &&
	      !strstr(buf, ",]") && !strstr(buf, ",}"), "a stray comma: %s", buf);
	free(buf);
	TEST_END();
}

static void test_utf8(void)
{
	char out[8];
	uint32_t cp = 0;

	TEST_BEGIN("utf8: the decoder, and a copy cut between characters");
	CHECK_EQ(utf8_dec((const unsigned char *)"\xc3\xa9", &cp), 2);
	CHECK_EQ(cp, 0xe9);
	CHECK_EQ(utf8_dec((const unsigned char *)"\xf0\x9f\x94\x92", &cp), 4);
	CHECK_EQ(cp, 0x1f512);
	CHECK_EQ(utf8_dec((const unsigned char *)"\xed\xa0\x80", &cp), 0);
	CHECK_EQ(utf8_dec((const unsigned char *)"\xe0\x9f\xbf", &cp), 0);
	CHECK_EQ(utf8_dec((const unsigned char *)"\xe6\x97", &cp), 0);
	/* 7 bytes of room: "ab" and one 3-byte character, not half the next */
	CHECK_EQ(utf8_copy(out, sizeof(out), "ab\xe6\x97\xa5\xe6\x9c\xac"), 5);
	CHECK_STR(out, "ab\xe6\x97\xa5");
	CHECK_EQ(utf8_copy(out, sizeof(out), "a\xff" "b"), 5);
	CHECK_STR(out, "a" UTF8_REPLACEMENT "b");
	CHECK_EQ(utf8_copy(out, 6, "\xff\xff"), 3);	/* the second does not fit */
	CHECK_STR(out, UTF8_REPLACEMENT);
	CHECK_EQ(utf8_copy(out, 1, "abc"), 0);
	CHECK_STR(out, "");
	TEST_END();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--dump")) {
		write_doc(stdout);
		return 0;
	}
	test_strings();
	test_controls();
	test_commas();
	test_utf8();
	TEST_EXIT();
}
