// SPDX-License-Identifier: GPL-2.0
/*
 * Option rows that bind to fields (cli/opts.c): each kind of binding writes
 * its field and nothing else, a bad value is refused with a message naming
 * the option and leaves the field as it was, a repeated option is read
 * again (the last wins, bits add up), a row's callback runs after its
 * binding with the parse's context, rows sharing a value are told apart,
 * and --help prints the table's headings.
 */
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tests/test.h"

enum mood { MOOD_CALM, MOOD_GLAD, MOOD_CROSS };

struct t_opts {
	bool flag, off;
	unsigned int bits, num, size, fields;
	enum mood mood;
	double secs;
	const char *name, *path;
	bool help;
};

/* What the callbacks and the parser's function saw: not the options struct. */
struct t_ctx {
	char log[128];
};

enum { O_SIZE = CLI_OPT_LONG, O_SAME_A, O_SAME_B, O_PATH, O_OTHER };

static const char *const moods[] = { "calm", "glad", "cross" };

static const char *mood_word(unsigned int i)
{
	return i < 3 ? moods[i] : NULL;
}

static void note(struct t_ctx *c, const char *s)
{
	size_t n = strlen(c->log);

	snprintf(c->log + n, sizeof(c->log) - n, "%s%s", n ? " " : "", s);
}

/* -N: the name was kept before this runs; R's value is 7. */
static int named(void *ctx, const struct cli_opt *r, const char *arg)
{
	char s[64];

	snprintf(s, sizeof(s), "named:%s:%llu", arg, r->set);
	note(ctx, s);
	return strcmp(arg, "bad") ? 0 : EXIT_USAGE;
}

static int other(void *ctx, int val, const char *arg)
{
	char s[64];

	snprintf(s, sizeof(s), "fn:%s:%s", val == O_OTHER ? "other" : "?", arg ? arg : "-");
	note(ctx, s);
	return 0;
}

#define T struct t_opts
static const struct cli_opt opts[] = {
	CLI_OPT_GROUP("Flags"),
	CLI_OPT_BOOL("flag", 'f', T, flag, true, "a flag"),
	CLI_OPT_BOOL("no-off", 'o', T, off, false, "clears off"),
	CLI_OPT_BITS("one", '1', T, bits, 0x1, "bit 0"),
	CLI_OPT_BITS("four", '4', T, bits, 0x4, "bit 2"),
	CLI_OPT_BITS_CLEAR("no-two", '2', T, bits, 0x2, "clears bit 1"),
	CLI_OPT_GROUP("Values"),
	CLI_OPT_UINT("num", 'n', T, num, 1, 10, "N", "a number in [1, 10]"),
	CLI_OPT_UINT("size", O_SIZE, T, size, 0, 100, "N", "long only"),
	CLI_OPT_DOUBLE("secs", 'd', T, secs, 0.5, 2, "S", "seconds"),
	CLI_OPT_STR("name", 'N', T, name, "NAME", "a name", .cb = named, .set = 7),
	CLI_OPT_WORD("mood", 'm', T, mood, mood_word, "mood", "M", "calm, glad or cross"),
	CLI_OPT_WORD_MASK("moods", 'M', T, fields, mood_word, "mood", "LIST", "a list of them"),
	/* Two rows with one value: getopt's index tells them apart. */
	CLI_OPT_STR("same-a", O_SAME_A, T, name, "X", "the name too"),
	CLI_OPT_STR("same-b", O_SAME_A, T, path, "X", "the path"),
	{ "other", O_OTHER, no_argument, NULL, "for the parser's function" },
	CLI_OPT_HELP(T, help),
	CLI_OPT_END,
};
#undef T

static struct t_opts o;
static struct t_ctx c;
static char err[256];

/* WORDS (argv[0] first) into o, from defaults; stderr's first line into err. */
static int parse(const char *const *words)
{
	char *argv[24];
	int argc = 0, saved = dup(2), next, r;
	FILE *tmp = tmpfile();

	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	argv[argc] = NULL;
	memset(&o, 0, sizeof(o));
	o.off = true;
	o.bits = 0x2;
	o.num = 5;
	memset(&c, 0, sizeof(c));
	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = cli_opts__parse_into(opts, &o, argc, argv, 0, other, &c, &next);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	err[0] = '\0';
	if (fgets(err, sizeof(err), tmp))
		err[strcspn(err, "\n")] = '\0';
	fclose(tmp);
	return r;
}

static void test_flags(void)
{
	static const char *const none[] = { "t", NULL };
	static const char *const all[] = { "t", "-fo14", "-2", NULL };
	static const char *const longs[] = { "t", "--flag", "--no-off", "--four", NULL };

	cli_cmd_name = "test";
	TEST_BEGIN("opts/flag-rows-set-their-fields");
	CHECK_EQ(parse(none), 0);
	CHECK(!o.flag && o.off, "fields moved without an option");
	CHECK_EQ(o.bits, 0x2);
	CHECK_EQ(parse(all), 0);
	CHECK(o.flag, "-f: flag not set");
	CHECK(!o.off, "-o: off not cleared");
	CHECK_EQ(o.bits, 0x5);
	CHECK_EQ(parse(longs), 0);
	CHECK(o.flag && !o.off, "long names not bound");
	CHECK_EQ(o.bits, 0x6);
	CHECK_STR(c.log, "");
	TEST_END();
}

static void test_values(void)
{
	static const char *const ok[] = { "t", "-n", "0x3", "--size=100", "-d", "1.5", "-m", "cross",
					  "-M", "glad,calm", NULL };
	static const struct { const char *w[4]; const char *msg; } bad[] = {
		{ { "t", "-n", "0", NULL }, "frugal test: -n: 0 is out of range [1, 10] (see 'frugal test --help')" },
		{ { "t", "-n", "11", NULL }, "frugal test: -n: 11 is out of range [1, 10] (see 'frugal test --help')" },
		{ { "t", "-n", "3x", NULL }, "frugal test: -n: '3x' is not a number (see 'frugal test --help')" },
		{ { "t", "--num", "-1", NULL }, "frugal test: -n: '-1' is not a number (see 'frugal test --help')" },
		{ { "t", "--size", "101", NULL }, "frugal test: --size: 101 is out of range [0, 100] (see 'frugal test --help')" },
		{ { "t", "-d", "3", NULL }, "frugal test: -d: 3 is out of range [0.5, 2] (see 'frugal test --help')" },
		{ { "t", "-m", "sad", NULL }, "frugal test: -m: unknown mood 'sad' (see 'frugal test --help')" },
		{ { "t", "-M", "calm,sad", NULL }, "frugal test: -M: unknown mood 'sad' (see 'frugal test --help')" },
		{ { "t", "-M", ",", NULL }, "frugal test: -M: unknown mood '' (see 'frugal test --help')" },
		{ { "t", "-M", "", NULL }, "frugal test: -M: empty list (see 'frugal test --help')" },
	};
	size_t i;

	TEST_BEGIN("opts/value-rows-parse-into-their-fields");
	CHECK_EQ(parse(ok), 0);
	CHECK_EQ(o.num, 3);
	CHECK_EQ(o.size, 100);
	CHECK(o.secs == 1.5, "-d 1.5 read as %g", o.secs);
	CHECK_EQ(o.mood, MOOD_CROSS);
	CHECK_EQ(o.fields, 0x3);
	TEST_END();

	TEST_BEGIN("opts/a-bad-value-is-named-and-not-kept");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(parse(bad[i].w), EXIT_USAGE);
		CHECK_STR(err, bad[i].msg);
	}
	/* The last refused: -n 3x left the default. */
	CHECK_EQ(parse(bad[2].w), EXIT_USAGE);
	CHECK_EQ(o.num, 5);
	TEST_END();
}

static void test_repeat(void)
{
	static const char *const again[] = { "t", "-n", "2", "-m", "glad", "-N", "a", "-n", "9",
					     "--mood=calm", "--name", "b", "-1", "-4", "-1", NULL };
	static const char *const bad_later[] = { "t", "-n", "2", "-n", "99", NULL };

	TEST_BEGIN("opts/a-repeated-option-is-read-again");
	CHECK_EQ(parse(again), 0);
	CHECK_EQ(o.num, 9);
	CHECK_EQ(o.mood, MOOD_CALM);
	CHECK_STR(o.name, "b");
	CHECK_EQ(o.bits, 0x7);
	CHECK_STR(c.log, "named:a:7 named:b:7");
	CHECK_EQ(parse(bad_later), EXIT_USAGE);
	CHECK_STR(err, "frugal test: -n: 99 is out of range [1, 10] (see 'frugal test --help')");
	TEST_END();
}

static void test_callbacks(void)
{
	static const char *const cb_bad[] = { "t", "-N", "bad", "-f", NULL };
	static const char *const same[] = { "t", "--same-b", "p", "--same-a", "n", NULL };
	static const char *const fn[] = { "t", "--other", "-f", NULL };
	static const char *const help[] = { "t", "-f", "-h", "-n", "0", "-Z", NULL };

	TEST_BEGIN("opts/a-callback-runs-after-its-binding");
	CHECK_EQ(parse(cb_bad), EXIT_USAGE);
	CHECK_STR(o.name, "bad");
	CHECK_STR(c.log, "named:bad:7");
	CHECK(!o.flag, "parsed on past the callback's error");
	TEST_END();

	TEST_BEGIN("opts/rows-sharing-a-value-bind-their-own-field");
	CHECK_EQ(parse(same), 0);
	CHECK_STR(o.path, "p");
	CHECK_STR(o.name, "n");
	CHECK_STR(c.log, "");
	TEST_END();

	TEST_BEGIN("opts/only-unbound-rows-reach-the-parsers-function");
	CHECK_EQ(parse(fn), 0);
	CHECK_STR(c.log, "fn:other:-");
	CHECK(o.flag, "-f lost");
	TEST_END();

	TEST_BEGIN("opts/help-row-sets-its-field-and-stops");
	CHECK_EQ(parse(help), 0);
	CHECK(o.help && o.flag, "help %d flag %d", o.help, o.flag);
	CHECK_EQ(o.num, 5);
	CHECK_STR(err, "");
	TEST_END();
}

static void test_help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	TEST_BEGIN("opts/help-under-headings");
	cli_opts__help(f, opts);
	fclose(f);
	CHECK(buf && !strncmp(buf, "Flags:\n  -f, --flag ", 20), "starts '%.40s'", buf);
	CHECK(buf && strstr(buf, "  clears bit 1\n\nValues:\n  -n, --num N "), "no 'Values' group in:\n%s", buf);
	CHECK(buf && strstr(buf, "      --size N      "), "long-only row:\n%s", buf);
	TEST_END();
	free(buf);
}

int main(void)
{
	test_flags();
	test_values();
	test_repeat();
	test_callbacks();
	test_help();
	TEST_EXIT();
}
