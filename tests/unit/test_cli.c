// SPDX-License-Identifier: GPL-2.0
/*
 * The command layer: option tables parsed (letters, long names, groups,
 * values, in order or GNU order, a stop at --help), wrong options reported
 * once with the word named, the help printer's columns, and a table of
 * subcommands dispatched with help and errors.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"
#include "tests/test.h"

enum { O_LONG = CLI_OPT_LONG, O_OPT };

static const struct cli_opt opts[] = {
	{ "all", 'a', no_argument, NULL, "all of them" },
	{ "num", 'n', required_argument, "N", "a number" },
	{ "long-only", O_LONG, required_argument, "FILE", "a file,\nover two lines" },
	{ "opt", 'j', optional_argument, "N", "optional value" },
	{ "help", 'h', no_argument, NULL, "this help" },
	{ NULL, 0, 0, NULL, NULL },
};

struct seen {
	char log[256];
};

static int on_opt(void *ctx, int val, const char *arg)
{
	struct seen *s = ctx;
	size_t n = strlen(s->log);

	snprintf(s->log + n, sizeof(s->log) - n, "%s%c=%s", n ? " " : "",
		 val < CLI_OPT_LONG ? val : 'L', arg ? arg : "-");
	if (val == 'n' && !strcmp(arg, "bad"))
		return EXIT_USAGE;
	return val == 'h' ? CLI_OPTS_STOP : 0;
}

/* Run the parser on WORDS (argv[0] first); stderr's first line into ERR. */
static int parse(const char *const *words, unsigned int flags, struct seen *s, int *next,
		 char *err, size_t errlen)
{
	char *argv[16];
	int argc = 0, saved = dup(2), r;
	FILE *tmp = tmpfile();

	while (words[argc]) {
		argv[argc] = (char *)words[argc];
		argc++;
	}
	argv[argc] = NULL;
	memset(s, 0, sizeof(*s));
	fflush(stderr);
	dup2(fileno(tmp), 2);
	r = cli_opts__parse(opts, argc, argv, flags, on_opt, s, next);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	err[0] = '\0';
	if (fgets(err, errlen, tmp))
		err[strcspn(err, "\n")] = '\0';
	fclose(tmp);
	return r;
}

static void test_parse(void)
{
	static const char *const a1[] = { "x", "-an", "3", "--long-only=f", "-j", "--opt=2", "file", NULL };
	static const char *const a2[] = { "x", "-a", "cmd", "-n", "1", NULL };
	static const char *const a3[] = { "x", "-h", "-Z", NULL };
	struct seen s;
	char err[256];
	int next;

	cli_cmd_name = "test";
	TEST_BEGIN("cli: options from the table, letters grouped, values in every form");
	CHECK_EQ(parse(a1, 0, &s, &next, err, sizeof(err)), 0);
	CHECK_STR(s.log, "a=- n=3 L=f j=- j=2");
	CHECK_EQ(next, 6);
	CHECK_STR(err, "");
	TEST_END();

	TEST_BEGIN("cli: GNU order reads past a word; in order stops at it");
	CHECK_EQ(parse(a2, 0, &s, &next, err, sizeof(err)), 0);
	CHECK_STR(s.log, "a=- n=1");
	CHECK_EQ(parse(a2, CLI_OPTS_IN_ORDER, &s, &next, err, sizeof(err)), 0);
	CHECK_STR(s.log, "a=-");
	CHECK_EQ(next, 2);
	TEST_END();

	TEST_BEGIN("cli: a stop (--help) ends parsing, later mistakes unread");
	CHECK_EQ(parse(a3, 0, &s, &next, err, sizeof(err)), 0);
	CHECK_STR(s.log, "h=-");
	CHECK_STR(err, "");
	TEST_END();
}

static void test_bad(void)
{
	static const struct { const char *w[5]; const char *msg; } cases[] = {
		{ { "x", "--nope", NULL }, "frugal test: unknown option '--nope' (see 'frugal test --help')" },
		{ { "x", "-aZ", NULL }, "frugal test: unknown option '-Z' (see 'frugal test --help')" },
		{ { "x", "file", "-Q", NULL }, "frugal test: unknown option '-Q' (see 'frugal test --help')" },
		{ { "x", "-n", NULL }, "frugal test: option '-n' needs a value (see 'frugal test --help')" },
		{ { "x", "--num", NULL }, "frugal test: option '--num' needs a value (see 'frugal test --help')" },
		{ { "x", "--all=1", NULL }, "frugal test: unknown option '--all=1' (see 'frugal test --help')" },
	};
	static const char *const fn_err[] = { "x", "-n", "bad", "-a", NULL };
	struct seen s;
	char err[256];
	size_t i;
	int next;

	TEST_BEGIN("cli: a wrong option is named once, exit 2");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(parse(cases[i].w, 0, &s, &next, err, sizeof(err)), EXIT_USAGE);
		CHECK_STR(err, cases[i].msg);
	}
	TEST_END();

	TEST_BEGIN("cli: the parser's own exit code stops the parse");
	CHECK_EQ(parse(fn_err, 0, &s, &next, err, sizeof(err)), EXIT_USAGE);
	CHECK_STR(s.log, "n=bad");
	TEST_END();

	TEST_BEGIN("cli: numbers parsed whole, errors name the option");
	{
		unsigned long long v;
		double d;

		CHECK_EQ(cli_parse_u64("-n", "0x10", 0, 100, &v), 0);
		CHECK_EQ(v, 16);
		CHECK_EQ(cli_parse_u64("-n", " 1", 0, 100, &v), EXIT_USAGE);
		CHECK_EQ(cli_parse_u64("-n", "-1", 0, 100, &v), EXIT_USAGE);
		CHECK_EQ(cli_parse_u64("-n", "101", 0, 100, &v), EXIT_USAGE);
		CHECK_EQ(cli_parse_double("-d", "0.5", 0, 1, &d), 0);
		CHECK_EQ(cli_parse_double("-d", "nan", 0, 1, &d), EXIT_USAGE);
	}
	TEST_END();
}

static void test_help(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	TEST_BEGIN("cli: the help printer lines up every option");
	cli_opts__help(f, opts);
	fclose(f);
	CHECK_STR(buf,
		  "  -a, --all             all of them\n"
		  "  -n, --num N           a number\n"
		  "      --long-only FILE  a file,\n"
		  "                        over two lines\n"
		  "  -j, --opt[=N]         optional value\n"
		  "  -h, --help            this help\n");
	TEST_END();
	free(buf);
}

static char last[64];

static int cmd_one(int argc, char **argv)
{
	snprintf(last, sizeof(last), "one %d %s", argc, argc > 1 ? argv[1] : "");
	return 3;
}

static void test_group(void)
{
	static const struct cli_cmd cmds[] = {
		{ "one", "the first", cmd_one },
		{ NULL, NULL, NULL },
	};
	static const struct cli_group g = { .name = "frugal t", .noun = "thing", .cmds = cmds };
	char *a1[] = { "t", "one", "x", NULL };
	char *a2[] = { "t", "help", "one", NULL };
	char *a3[] = { "t", "two", NULL };
	char *a4[] = { "t", NULL };

	TEST_BEGIN("cli: a table of subcommands: run, help CMD, unknown, none");
	CHECK_EQ(cli_group__run(&g, 3, a1), 3);
	CHECK_STR(last, "one 2 x");
	CHECK_EQ(cli_group__run(&g, 3, a2), 3);
	CHECK_STR(last, "one 2 --help");
	fflush(stderr);
	{
		int saved = dup(2);
		FILE *tmp = tmpfile();
		char line[128] = "";

		dup2(fileno(tmp), 2);
		CHECK_EQ(cli_group__run(&g, 2, a3), EXIT_USAGE);
		CHECK_EQ(cli_group__run(&g, 1, a4), EXIT_USAGE);
		fflush(stderr);
		dup2(saved, 2);
		close(saved);
		rewind(tmp);
		CHECK(fgets(line, sizeof(line), tmp) &&
		      !strcmp(line, "frugal test: unknown thing 'two' (see 'frugal test --help')\n"),
		      "message %s", line);
		CHECK(fgets(line, sizeof(line), tmp) && !strncmp(line, "usage: frugal t ", 16),
		      "usage %s", line);
		fclose(tmp);
	}
	TEST_END();
}

int main(void)
{
	test_parse();
	test_bad();
	test_help();
	test_group();
	TEST_EXIT();
}
