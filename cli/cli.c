// SPDX-License-Identifier: GPL-2.0
/* Errors, numbers and logs: what every command shares. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"

const char *cli_cmd_name;
int cli_verbose;

static void print_prefix(void)
{
	if (cli_cmd_name)
		fprintf(stderr, "frugal %s: ", cli_cmd_name);
	else
		fputs("frugal: ", stderr);
}

int cli_err(const char *what, const char *fmt, ...)
{
	va_list ap;

	print_prefix();
	if (what)
		fprintf(stderr, "%s: ", what);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_RUNTIME;
}

int cli_usage_err(const char *fmt, ...)
{
	va_list ap;

	print_prefix();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cli_cmd_name)
		fprintf(stderr, " (see 'frugal %s --help')\n", cli_cmd_name);
	else
		fputs(" (see 'frugal help')\n", stderr);
	return EXIT_USAGE;
}

int cli_vlog(const char *fmt, va_list ap)
{
	return cli_verbose ? vfprintf(stderr, fmt, ap) : 0;
}

void cli_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vlog(fmt, ap);
	va_end(ap);
}

int cli_parse_u64(const char *opt, const char *arg, unsigned long long min,
		  unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	/* strtoull skips any leading blank and takes a sign: neither is a count. */
	if (!arg || !*arg || *arg == '-' || *arg == '+' || isspace((unsigned char)*arg))
		return cli_usage_err("%s: '%s' is not a number", opt, arg ? arg : "");
	errno = 0;
	v = strtoull(arg, &end, 0);
	if (*end)
		return cli_usage_err("%s: '%s' is not a number", opt, arg);
	if (errno == ERANGE || v < min || v > max)
		return cli_usage_err("%s: %s is out of range [%llu, %llu]", opt, arg, min, max);
	*out = v;
	return 0;
}

int cli_parse_double(const char *opt, const char *arg, double min, double max,
		     double *out)
{
	double v;
	char *end;

	if (!arg || !*arg)
		return cli_usage_err("%s: '' is not a number", opt);
	errno = 0;
	v = strtod(arg, &end);
	if (*end || isnan(v))
		return cli_usage_err("%s: '%s' is not a number", opt, arg);
	if (errno == ERANGE || v < min || v > max)
		return cli_usage_err("%s: %s is out of range [%g, %g]", opt, arg, min, max);
	*out = v;
	return 0;
}

__attribute__((format(printf, 2, 0)))
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : cli_vlog(fmt, ap);
}

void cli_libbpf_logs(void)
{
	libbpf_set_print(libbpf_print);
}

double cli_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
