// SPDX-License-Identifier: GPL-2.0
/*
 * The subcommands' command-line parsers, called directly: the conflicts the
 * docs name are refused with EXIT_USAGE and a message naming the options,
 * the defaults are filled, perf's "lock contention" form is taken, a second
 * call after a failed one starts afresh, the rows that bind to fields set
 * them (flags, numbers refused by name, the last of a repeated option), and
 * the btf parsers refuse a bad -j, an unknown strict feature and a missing
 * FILE, set and clear their feature bits, and take only the letters of
 * their tables.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"
#include "lock/request/request.h"
#include "tests/test.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

/* What the last parse printed on stderr. */
static char msg[512];
static int saved_stderr = -1;
static FILE *msg_file;

static void capture(void)
{
	fflush(stderr);
	msg_file = tmpfile();
	saved_stderr = dup(2);
	if (msg_file)
		dup2(fileno(msg_file), 2);
}

static void release(void)
{
	size_t n = 0;

	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	msg[0] = '\0';
	if (msg_file) {
		rewind(msg_file);
		n = fread(msg, 1, sizeof(msg) - 1, msg_file);
		fclose(msg_file);
	}
	msg[n] = '\0';
}

static struct lock_opts o, o2;

static int lock_parse(int argc, char **argv, int *idx)
{
	int err;

	capture();
	err = lock_opts__parse(&o, argc, argv, idx);
	release();
	return err;
}

/* ARGV must be refused, with a message containing WHAT. */
static void lock_refused(const char *name, int argc, char **argv, const char *what)
{
	int idx;

	TEST_BEGIN(name);
	CHECK_EQ(lock_parse(argc, argv, &idx), EXIT_USAGE);
	CHECK(strstr(msg, what), "message '%s' lacks '%s'", msg, what);
	TEST_END();
}

static void test_lock_conflicts(void)
{
	char *tl[] = { "lock", "-t", "-l", NULL };
	char *jx[] = { "lock", "--json", "-x", ",", NULL };
	char *ptid[] = { "lock", "-p", "1", "--tid", "2", NULL };
	char *ap[] = { "lock", "-a", "-p", "1", NULL };
	char *pcmd[] = { "lock", "-p", "1", "--", "true", NULL };
	char *pcmd2[] = { "lock", "-p", "1", "true", NULL };
	char *skip[] = { "lock", "--stack-skip", "62", NULL };
	char *ring[] = { "lock", "--ring-size", "12", NULL };
	char *empty[] = { "lock", "-x", "", NULL };
	char *group[] = { "lock", "-tZ", NULL };
	char *noval[] = { "lock", "--pid", NULL };

	lock_refused("lock/-t-with-l", ARGC(tl), tl, "-t, -l and -g cannot be combined");
	lock_refused("lock/json-with-x", ARGC(jx), jx, "--json, -x and --folded");
	lock_refused("lock/p-with-tid", ARGC(ptid), ptid, "-p and --tid");
	lock_refused("lock/a-with-p", ARGC(ap), ap, "-a cannot be combined");
	lock_refused("lock/command-after-dashes-with-p", ARGC(pcmd), pcmd, "a command cannot");
	lock_refused("lock/command-with-p", ARGC(pcmd2), pcmd2, "a command cannot");
	/* 62 fits alone, but not beside the default depth it would run with. */
	lock_refused("lock/stack-skip-beside-default-depth", ARGC(skip), skip, "exceed 64");
	lock_refused("lock/ring-size-not-power-of-two", ARGC(ring), ring, "power of two");
	lock_refused("lock/empty-separator", ARGC(empty), empty, "-x: empty");
	lock_refused("lock/unknown-in-group-named-by-letter", ARGC(group), group, "'-Z'");
	lock_refused("lock/missing-value", ARGC(noval), noval, "'--pid' needs a value");
}

static void test_lock_defaults(void)
{
	char *none[] = { "lock", NULL };
	char *v[] = { "lock", "-v", NULL };
	char *skip0[] = { "lock", "--max-stack", "6", "--stack-skip", "0", NULL };
	int idx = -1;

	TEST_BEGIN("lock/defaults");
	CHECK_EQ(lock_parse(ARGC(none), none, &idx), 0);
	CHECK_EQ(idx, 1);
	CHECK_EQ(o.mode, LOCK_AGGR_CALLER);
	CHECK_EQ(o.sort, LOCK_SORT_WAIT_TOTAL);
	CHECK_EQ(o.fields, LOCK_FIELDS_DEFAULT);
	CHECK_EQ(o.map_entries, LOCK_DEF_ENTRIES);
	CHECK_EQ(o.ring_kb, 128);
	/* 4 frames name the caller; the tracing frames come on top. */
	CHECK_EQ(o.user_max_stack, 4);
	CHECK_EQ(o.max_stack, 4 + LOCK_MACHINERY_FRAMES);
	CHECK_EQ(o.stack_skip, 1);
	CHECK(o.strip_machinery, "tracing frames not stripped by default");
	CHECK(!o.help && !o.system_wide && !o.target_mode && !o.verbose_stacks, "flags set");
	TEST_END();

	TEST_BEGIN("lock/defaults-v-deeper-stacks");
	CHECK_EQ(lock_parse(ARGC(v), v, &idx), 0);
	CHECK_EQ(o.user_max_stack, 8);
	CHECK(o.verbose_stacks, "-v not recorded");
	CHECK_EQ(cli_verbose, 0);	/* the caller turns logging on, not the parser */
	TEST_END();

	TEST_BEGIN("lock/explicit-stack-skip-keeps-depth");
	CHECK_EQ(lock_parse(ARGC(skip0), skip0, &idx), 0);
	CHECK_EQ(o.max_stack, 6);
	CHECK_EQ(o.stack_skip, 0);
	CHECK(!o.strip_machinery, "frames stripped despite --stack-skip");
	TEST_END();
}

static void test_lock_accepted(void)
{
	char *perf[] = { "lock", "contention", "-a", "-v", "--max-stack", "6", NULL };
	char *perf_cmd[] = { "lock", "contention", "-t", "--", "true", "x", NULL };
	char *seed[] = { "lock", "-t", "-M", "8", "-x", ",", "-p", "1,2", NULL };
	char *last[] = { "lock", "-p", "1,2", "-p", "0x10", NULL };
	char *copy[ARGC(perf_cmd) + 1];
	int idx = -1;

	TEST_BEGIN("lock/contention-form");
	CHECK_EQ(lock_parse(ARGC(perf), perf, &idx), 0);
	CHECK_EQ(idx, ARGC(perf));
	CHECK(o.system_wide && o.verbose_stacks, "-a -v lost");
	CHECK_EQ(o.user_max_stack, 6);
	memcpy(copy, perf_cmd, sizeof(copy));
	CHECK_EQ(lock_parse(ARGC(perf_cmd), perf_cmd, &idx), 0);
	CHECK_EQ(idx, 4);
	CHECK_STR(perf_cmd[idx], "true");
	CHECK_EQ(o.mode, LOCK_AGGR_TASK);
	CHECK(!memcmp(copy, perf_cmd, sizeof(copy)), "argv modified");
	TEST_END();

	TEST_BEGIN("lock/targets-and-table");
	CHECK_EQ(lock_parse(ARGC(seed), seed, &idx), 0);
	CHECK_EQ(o.target_mode, 1);
	CHECK_EQ(o.nr_targets, 2);
	CHECK_EQ(o.targets[0], 1);
	CHECK_EQ(o.targets[1], 2);
	CHECK_EQ(o.map_entries, 8);
	CHECK_STR(o.csv_sep, ",");
	TEST_END();

	/* The report names the last -p; the targets must be that list. */
	TEST_BEGIN("lock/last-p-wins");
	CHECK_EQ(lock_parse(ARGC(last), last, &idx), 0);
	CHECK_EQ(o.nr_targets, 1);
	CHECK_EQ(o.targets[0], 16);
	CHECK_STR(o.pid_arg, "0x10");
	TEST_END();
}

static void test_lock_repeat(void)
{
	char *bad[] = { "lock", "-Zt", NULL };
	char *l[] = { "lock", "-l", NULL };
	char *full[] = { "lock", "-k", "wait_max", "-F", "contended,avg_wait", "-E", "3",
			 "-Y", "mutex", "-d", "1.5", "--ring-size", "64", "-C", "0", "--", "x", NULL };
	char *h[] = { "lock", "-t", "-h", "-l", NULL };
	int idx, idx2;

	/* "-Zt" fails with 't' unread: a stale getopt would hand it to the next call. */
	TEST_BEGIN("lock/getopt-reset-after-error");
	CHECK_EQ(lock_parse(ARGC(bad), bad, &idx), EXIT_USAGE);
	CHECK_EQ(lock_parse(ARGC(l), l, &idx), 0);
	CHECK_EQ(o.mode, LOCK_AGGR_ADDR);
	TEST_END();

	TEST_BEGIN("lock/same-result-twice");
	CHECK_EQ(lock_parse(ARGC(full), full, &idx), 0);
	o2 = o;
	CHECK_EQ(lock_parse(ARGC(full), full, &idx2), 0);
	CHECK(!memcmp(&o, &o2, sizeof(o)), "second parse differs");
	CHECK_EQ(idx, idx2);
	CHECK_EQ(idx, ARGC(full) - 1);
	CHECK_EQ(o.sort, LOCK_SORT_WAIT_MAX);
	CHECK_EQ(o.fields, LOCK_FIELD_CONTENDED | LOCK_FIELD_AVG_WAIT);
	CHECK_EQ(o.entries, 3);
	CHECK(o.type_mask != 0, "-Y mutex: empty mask");
	CHECK_EQ(o.ring_kb, 64);
	CHECK(o.duration == 1.5, "-d 1.5 read as %g", o.duration);
	TEST_END();

	TEST_BEGIN("lock/help-stops-parsing");
	CHECK_EQ(lock_parse(ARGC(h), h, &idx), 0);
	CHECK(o.help, "-h not recorded");
	CHECK_STR(msg, "");
	TEST_END();
}

/* lock's rows bind to struct lock_opts's fields (cli/opts.c): flags, numbers, repeats. */
static void test_lock_bound(void)
{
	char *flags[] = { "lock", "--raw-tp", "-U", "--nested", "-q", "--stack-check", NULL };
	char *undo[] = { "lock", "--nested", "--skip-nested", NULL };
	char *again[] = { "lock", "-E", "5", "-k", "contended", "-E", "7", "-M", "64",
			  "--key=avg_wait", "-M", "32", "-d", "1", "--duration", "2", NULL };
	char *m0[] = { "lock", "-M", "0", NULL };
	char *ms[] = { "lock", "--max-stack", "6x", NULL };
	char *e_late[] = { "lock", "-E", "5", "-E", "0", NULL };
	int idx;

	TEST_BEGIN("lock/flag-rows");
	CHECK_EQ(lock_parse(ARGC(flags), flags, &idx), 0);
	CHECK(o.force_raw_tp && o.user && o.quiet && o.stack_check, "a flag lost");
	CHECK(!o.skip_nested, "--nested did not clear skip_nested");
	CHECK(!o.floor && !o.as_nested && !o.no_stack_walk && !o.user_only, "a flag not given is set");
	CHECK_EQ(lock_parse(ARGC(undo), undo, &idx), 0);
	CHECK(o.skip_nested, "--skip-nested after --nested");
	TEST_END();

	TEST_BEGIN("lock/repeated-options-last-wins");
	CHECK_EQ(lock_parse(ARGC(again), again, &idx), 0);
	CHECK_EQ(o.entries, 7);
	CHECK_EQ(o.sort, LOCK_SORT_AVG_WAIT);
	CHECK_EQ(o.map_entries, 32);
	CHECK(o.duration == 2, "-d then --duration: %g", o.duration);
	TEST_END();

	lock_refused("lock/number-row-out-of-range", ARGC(m0), m0,
		     "frugal test: -M: 0 is out of range [1, 16777216]");
	lock_refused("lock/number-row-not-a-number", ARGC(ms), ms,
		     "frugal test: --max-stack: '6x' is not a number");
	lock_refused("lock/repeated-number-row-checked-again", ARGC(e_late), e_late,
		     "frugal test: -E: 0 is out of range");
}

static int enc_parse(struct btf_encode_args *a, int argc, char **argv)
{
	int err;

	capture();
	err = btf_encode_args__parse(a, argc, argv);
	release();
	return err;
}

static void test_encode(void)
{
	static struct btf_encode_args a;
	char *j0[] = { "pahole", "-J", "-j0", "vmlinux", NULL };
	char *jbig[] = { "encode", "-j1025", "vmlinux", NULL };
	char *strict[] = { "encode", "--btf_features_strict=var,bogus", "vmlinux", NULL };
	char *lax[] = { "encode", "--btf_features=var,bogus", "vmlinux", NULL };
	char *nofile[] = { "pahole", "-J", "--btf_features=default", NULL };
	char *two[] = { "encode", "a", "b", NULL };
	char *kernel[] = { "pahole", "-J", "--btf_features=default", "-j4", "vmlinux", NULL };
	char *after[] = { "pahole", "vmlinux", "-j2", "--skip_encoding_btf_enum64", NULL };
	char *version[] = { "pahole", "--version", NULL };
	char *help_bad[] = { "encode", "-h", "--nope", NULL };
	char *jobs_opt[] = { "pahole", "-J", "-j", "vmlinux", NULL };

	TEST_BEGIN("encode/bad-jobs");
	CHECK_EQ(enc_parse(&a, ARGC(j0), j0), EXIT_USAGE);
	CHECK(strstr(msg, "-j"), "message '%s' does not name -j", msg);
	CHECK_EQ(enc_parse(&a, ARGC(jbig), jbig), EXIT_USAGE);
	TEST_END();

	TEST_BEGIN("encode/unknown-feature");
	/* pahole 1.32 exits 1 and lists what it supports. */
	CHECK_EQ(enc_parse(&a, ARGC(strict), strict), EXIT_RUNTIME);
	CHECK(strstr(msg, "'bogus'"), "message '%s' does not name the feature", msg);
	CHECK(strstr(msg, "supported: encode_force,var,"), "message '%s' does not list the features", msg);
	CHECK_EQ(enc_parse(&a, ARGC(lax), lax), 0);
	CHECK_EQ(a.opts.features, BTF_FEAT_VAR);
	TEST_END();

	TEST_BEGIN("encode/one-file");
	CHECK_EQ(enc_parse(&a, ARGC(nofile), nofile), EXIT_USAGE);
	CHECK(strstr(msg, "FILE"), "message '%s'", msg);
	CHECK_EQ(enc_parse(&a, ARGC(two), two), EXIT_USAGE);
	TEST_END();

	TEST_BEGIN("encode/kernel-command-line");
	CHECK_EQ(enc_parse(&a, ARGC(kernel), kernel), 0);
	CHECK_EQ(a.opts.jobs, 4);
	CHECK_EQ(a.opts.features, btf_feat__default());
	CHECK_STR(a.opts.path, "vmlinux");
	/* pahole's defaults without --btf_features; options after FILE too. */
	CHECK_EQ(enc_parse(&a, ARGC(after), after), 0);
	CHECK_EQ(a.opts.jobs, 2);
	CHECK_EQ(a.opts.features, BTF_FEAT_LEGACY & ~BTF_FEAT_ENUM64);
	CHECK_STR(a.opts.path, "vmlinux");
	CHECK_EQ(enc_parse(&a, ARGC(version), version), 0);
	CHECK(a.version && !a.opts.path, "--version alone");
	TEST_END();

	/* -j's value is optional (pahole's "-j[N]"): alone, one per CPU. */
	TEST_BEGIN("encode/jobs-without-value");
	CHECK_EQ(enc_parse(&a, ARGC(jobs_opt), jobs_opt), 0);
	CHECK(a.opts.jobs >= 1, "jobs %u", a.opts.jobs);
	CHECK_STR(a.opts.path, "vmlinux");
	TEST_END();

	/* encode reads on past -h (as it always did); diff and stat stop there. */
	TEST_BEGIN("encode/help-does-not-stop-parsing");
	CHECK_EQ(enc_parse(&a, ARGC(help_bad), help_bad), EXIT_USAGE);
	CHECK(strstr(msg, "'--nope'"), "message '%s'", msg);
	TEST_END();
}

/* encode's feature switches bind to opts.features' bits; the newer ones mark the default pahole, 1.32. */
static void test_encode_bound(void)
{
	char *bits[] = { "pahole", "-J", "--btf_gen_floats", "--skip_encoding_btf_vars",
			 "--skip_encoding_btf_vars", "vmlinux", NULL };
	char *newer[] = { "pahole", "--btf_gen_optimized", "vmlinux", NULL };
	char *c132[] = { "pahole", "-J", "--pahole_compat=1.32", "--btf_gen_floats", "vmlinux", NULL };
	char *c130[] = { "pahole", "--btf_features=default", "--pahole_compat=v1.30", "vmlinux", NULL };
	char *cbad[] = { "pahole", "--pahole_compat=1.31", "vmlinux", NULL };
	struct btf_encode_args a;

	TEST_BEGIN("encode/switch-rows-set-and-clear-bits");
	CHECK_EQ(enc_parse(&a, ARGC(bits), bits), 0);
	CHECK_EQ(a.opts.features, (BTF_FEAT_LEGACY | BTF_FEAT_FLOAT) & ~BTF_FEAT_VAR);
	CHECK_EQ(a.opts.rules, BTF_RULES_PAHOLE_1_24);
	CHECK_EQ(enc_parse(&a, ARGC(newer), newer), 0);
	CHECK_EQ(a.opts.features, BTF_FEAT_LEGACY | BTF_FEAT_OPTIMIZED_FUNC);
	CHECK_EQ(a.opts.rules, BTF_RULES_PAHOLE_1_32);
	TEST_END();

	/* --pahole_compat names the release whatever the switches say. */
	TEST_BEGIN("encode/pahole-compat");
	CHECK_EQ(enc_parse(&a, ARGC(c132), c132), 0);
	CHECK_EQ(a.opts.rules, BTF_RULES_PAHOLE_1_32);
	CHECK_EQ(enc_parse(&a, ARGC(c130), c130), 0);
	CHECK_EQ(a.opts.rules, BTF_RULES_PAHOLE_1_30);
	CHECK_EQ(enc_parse(&a, ARGC(cbad), cbad), EXIT_USAGE);
	CHECK(strstr(msg, "'1.31'"), "message '%s' does not name the version", msg);
	TEST_END();
}

static void test_diff_stat(void)
{
	static struct btf_diff_opts d;
	static struct btf_stat_opts s;
	char *one[] = { "diff", "a", NULL };
	char *kinds[] = { "diff", "--kinds", "bogus", "a", "b", NULL };
	char *base[] = { "diff", "a", "--base", "vmlinux", "b", "-q", NULL };
	char *none[] = { "stat", NULL };
	char *sbase[] = { "stat", "--base", "vmlinux", "--dump", "mod.ko", NULL };
	char *dhelp[] = { "diff", "-h", "--nope", NULL };
	char *sletter[] = { "stat", "-d", "mod.ko", NULL };
	int err;

	TEST_BEGIN("diff/arguments");
	capture();
	err = btf_diff_opts__parse(&d, ARGC(one), one);
	release();
	CHECK_EQ(err, EXIT_USAGE);
	CHECK(strstr(msg, "two files"), "message '%s'", msg);
	capture();
	err = btf_diff_opts__parse(&d, ARGC(kinds), kinds);
	release();
	CHECK_EQ(err, EXIT_USAGE);
	CHECK_EQ(btf_diff_opts__parse(&d, ARGC(base), base), 0);
	CHECK_STR(d.base[0], "vmlinux");
	CHECK_STR(d.base[1], "vmlinux");
	CHECK_STR(d.path[0], "a");
	CHECK_STR(d.path[1], "b");
	CHECK(d.quiet && !d.summary, "-q");
	CHECK_EQ(d.kinds, BTF_CANON_ALL);
	TEST_END();

	TEST_BEGIN("stat/arguments");
	capture();
	err = btf_stat_opts__parse(&s, ARGC(none), none);
	release();
	CHECK_EQ(err, EXIT_USAGE);
	CHECK(strstr(msg, "one file"), "message '%s'", msg);
	CHECK_EQ(btf_stat_opts__parse(&s, ARGC(sbase), sbase), 0);
	CHECK_STR(s.base, "vmlinux");
	CHECK_STR(s.path, "mod.ko");
	CHECK(s.dump, "--dump");
	TEST_END();

	TEST_BEGIN("diff-stat/help-stops-parsing");
	capture();
	err = btf_diff_opts__parse(&d, ARGC(dhelp), dhelp);
	release();
	CHECK_EQ(err, 0);
	CHECK(d.help && !d.path[0], "-h not recorded");
	CHECK_STR(msg, "");
	TEST_END();

	/* --base and --dump are long-only: no -b or -d. */
	TEST_BEGIN("stat/long-only-options");
	capture();
	err = btf_stat_opts__parse(&s, ARGC(sletter), sletter);
	release();
	CHECK_EQ(err, EXIT_USAGE);
	CHECK(strstr(msg, "unknown option '-d'"), "message '%s'", msg);
	TEST_END();
}

int main(void)
{
	cli_cmd_name = "test";
	test_lock_conflicts();
	test_lock_defaults();
	test_lock_accepted();
	test_lock_repeat();
	test_lock_bound();
	test_encode();
	test_encode_bound();
	test_diff_stat();
	TEST_EXIT();
}
