// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf encode` and the `pahole` drop-in: parse pahole's command line
 * (the subset a kernel build uses, same meanings) and run the encoder.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "btf/btf.h"
#include "btf/btf_int.h"
#include "btf/encode/encode.h"
#include "cli/cli.h"

/*
 * The pahole releases whose output we can reproduce, by --pahole_compat's
 * name and --version's answer.  A kernel build picks its flags by the
 * version: 6.1's pahole-flags.sh adds --skip_encoding_btf_inconsistent_proto
 * --btf_gen_optimized from 1.25 on, 6.12's Makefile.btf uses --btf_features
 * from 1.26 on (attributes from 1.30 in 6.16+, distilled_base for external
 * modules, layout from 1.31 in 7.x).  Each of 1.30's command lines is
 * checked against pahole 1.30 on Debian's kernels (tests/btf/kernel612.sh,
 * docs/btf.md); a command line of pahole 1.24's switches only gets pahole
 * 1.24's output (BTF_RULES_PAHOLE_1_24, tests/btf/kernel.sh).  1.32 is the
 * default: its output has no canonical difference from pahole 1.32's on
 * Debian's 6.12 and 7.x kernels (tests/btf/kernel*-pahole132.sh) nor in a
 * 7.x build (tests/long/kernel-build.sh); 1.30's, which Debian 13 builds
 * its kernels with, stays a switch away.
 */
static const struct {
	const char *name, *version;
	enum btf_rules rules;
} compats[] = {
	{ "1.24", "v1.24", BTF_RULES_PAHOLE_1_24 },
	{ "1.30", "v1.30", BTF_RULES_PAHOLE_1_30 },
	{ "1.32", "v1.32", BTF_RULES_PAHOLE_1_32 },
};
#define NR_COMPATS (sizeof(compats) / sizeof(compats[0]))
#define DEFAULT_COMPAT 2	/* 1.32 */
/* Indexed by enum btf_rules (the -V log names the rules followed). */
_Static_assert(NR_COMPATS == BTF_RULES_PAHOLE_1_32 + 1, "a row per enum btf_rules");

/* --pahole_compat's Ith word (a cli_words_fn). */
static const char *compat_word(unsigned int i)
{
	return i < NR_COMPATS ? compats[i].name : NULL;
}

enum {
	OPT_JOBS = 'j',
	OPT_ENCODE = 'J',
	OPT_VERBOSE = 'V',
	OPT_HELP = 'h',
	OPT_FEATURES = CLI_OPT_LONG,
	OPT_FEATURES_STRICT,
	OPT_SUPPORTED_FEATURES,
	OPT_DETACHED,
	OPT_BASE,
	OPT_LANG_EXCLUDE,
	OPT_VERSION,
	OPT_FULL_BASE,
	OPT_COMPAT,
	OPT_SKIP_VARS,
	OPT_GEN_FLOATS,
	OPT_GEN_ALL,
	OPT_SKIP_ENUM64,
	OPT_SKIP_DECL_TAG,
	OPT_SKIP_TYPE_TAG,
	OPT_GEN_OPTIMIZED,
	OPT_SKIP_INCONSISTENT,
	OPT_ENCODE_FORCE,
	OPT_GLOBAL_VARS,
	OPT_REPRODUCIBLE,
	OPT_IGNORED,
};

/* --btf_features' names for sets of features, before the features' own. */
static const char *const feature_sets[] = { "default", "all" };
#define NR_FEATURE_SETS (sizeof(feature_sets) / sizeof(feature_sets[0]))

/* --btf_features' Ith word (a cli_words_fn). */
static const char *feature_word(unsigned int i)
{
	return i < NR_FEATURE_SETS ? feature_sets[i] : btf_feat__name(i - NR_FEATURE_SETS);
}

/* A switch pahole 1.24 did not have: the caller speaks to a newer pahole, the default one. */
static int newer_pahole(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_encode_args *a = ctx;

	(void)r, (void)arg;
	a->opts.rules = compats[DEFAULT_COMPAT].rules;
	return 0;
}

static int add_features(void *ctx, const struct cli_opt *r, const char *arg);
static int parse_jobs(void *ctx, const struct cli_opt *r, const char *arg);
static int parse_langs(void *ctx, const struct cli_opt *r, const char *arg);
static int parse_compat(void *ctx, const struct cli_opt *r, const char *arg);

#define EA struct btf_encode_args	/* the type every row binds into */

/* pahole's options, same letters and meanings, under --help's headings. */
const struct cli_opt btf_encode_cli_opts[] = {
	CLI_OPT_GROUP("pahole's options"),
	{ "btf_encode", OPT_ENCODE, no_argument, NULL,
	  "encode BTF (the only mode; accepted for pahole compatibility)" },
	CLI_OPT_CALLBACK("jobs", OPT_JOBS, optional_argument, "N",
			 "N worker threads (default: online CPUs)", parse_jobs, 0),
	CLI_OPT_CALLBACK("btf_features", OPT_FEATURES, required_argument, "LIST",
			 "features to encode: 'default', 'all' or a comma list (see docs)",
			 add_features, false, .kind = CLI_ARG_LIST, .words = feature_word),
	CLI_OPT_CALLBACK("btf_features_strict", OPT_FEATURES_STRICT, required_argument, "LIST",
			 "like --btf_features, but an unknown feature is an error",
			 add_features, true, .kind = CLI_ARG_LIST, .words = feature_word),
	CLI_OPT_BOOL("supported_btf_features", OPT_SUPPORTED_FEATURES, EA, supported, true,
		     "print the features --btf_features honours, comma-separated"),
	CLI_OPT_STR("btf_encode_detached", OPT_DETACHED, EA, opts.detached, "FILE",
		    "write raw BTF to FILE, leave the ELF untouched", .kind = CLI_ARG_FILE),
	CLI_OPT_STR("btf_base", OPT_BASE, EA, opts.base, "FILE",
		    "encode split BTF on top of FILE's BTF (kernel modules)", .kind = CLI_ARG_FILE),
	CLI_OPT_STR("lang_exclude", OPT_LANG_EXCLUDE, EA, opts.lang_exclude, "LANGS",
		    "skip compile units in these languages (e.g. rust)", .cb = parse_langs),
	CLI_OPT_BOOL("version", OPT_VERSION, EA, version, true, "print the version"),
	CLI_OPT_BOOL("verbose", OPT_VERBOSE, EA, verbose, true, "log progress to stderr"),
	/* -h does not stop the parse: a wrong option after it is still refused. */
	CLI_OPT_BOOL("help", OPT_HELP, EA, help, true, "this help"),
	CLI_OPT_GROUP("pahole's older switches"),
	CLI_OPT_BITS_CLEAR("skip_encoding_btf_vars", OPT_SKIP_VARS, EA, opts.features, BTF_FEAT_VAR,
			   "do not encode VARs"),
	CLI_OPT_BITS("btf_gen_floats", OPT_GEN_FLOATS, EA, opts.features, BTF_FEAT_FLOAT, "encode FLOAT"),
	CLI_OPT_BITS("btf_gen_all", OPT_GEN_ALL, EA, opts.features, BTF_FEAT_FLOAT,
		     "encode every optional kind (FLOAT)"),
	CLI_OPT_BITS_CLEAR("skip_encoding_btf_enum64", OPT_SKIP_ENUM64, EA, opts.features, BTF_FEAT_ENUM64,
			   "do not encode ENUM64"),
	CLI_OPT_BITS_CLEAR("skip_encoding_btf_decl_tag", OPT_SKIP_DECL_TAG, EA, opts.features,
			   BTF_FEAT_DECL_TAG, "do not encode DECL_TAG"),
	CLI_OPT_BITS_CLEAR("skip_encoding_btf_type_tag", OPT_SKIP_TYPE_TAG, EA, opts.features,
			   BTF_FEAT_TYPE_TAG, "do not encode TYPE_TAG"),
	CLI_OPT_BITS("btf_gen_optimized", OPT_GEN_OPTIMIZED, EA, opts.features,
		     BTF_FEAT_OPTIMIZED_FUNC, "encode functions with optimized-out parameters",
		     .cb = newer_pahole),
	CLI_OPT_BITS("skip_encoding_btf_inconsistent_proto", OPT_SKIP_INCONSISTENT, EA, opts.features,
		     BTF_FEAT_CONSISTENT_FUNC, "skip functions whose prototypes differ between CUs",
		     .cb = newer_pahole),
	CLI_OPT_BITS("btf_encode_force", OPT_ENCODE_FORCE, EA, opts.features, BTF_FEAT_ENCODE_FORCE,
		     "ignore ELF symbols that cannot be matched"),
	CLI_OPT_BITS("encode_btf_global_vars", OPT_GLOBAL_VARS, EA, opts.features,
		     BTF_FEAT_GLOBAL_VAR, "encode all global variables",
		     .cb = newer_pahole),
	CLI_OPT_CALLBACK("reproducible_build", OPT_REPRODUCIBLE, no_argument, NULL,
			 "accepted; output is always reproducible", newer_pahole, 0),
	CLI_OPT_GROUP("frugal's own"),
	/* pahole has no such switch: one release's output is all it writes. */
	CLI_OPT_CALLBACK("pahole_compat", OPT_COMPAT, required_argument, "VERSION",
			 "write what pahole VERSION writes (1.24, 1.30, 1.32), whatever the "
			 "switches; --version answers it (default: $FRUGAL_PAHOLE_COMPAT, else "
			 "1.24's output for 1.24's switches only, else 1.32's)", parse_compat, 0, .words = compat_word),
	/* The cross-check of the pruned base (tests/btf/kernel612.sh). */
	CLI_OPT_BOOL("full_base", OPT_FULL_BASE, EA, opts.full_base, true,
		     "split BTF: dedup against the whole base, not the part the module can meet "
		     "(slower; the same output but where docs/btf-encode.md lists)"),
	/* Harmless in a BTF encode run; accepted so a kernel build may pass them. */
	CLI_OPT_GROUP("pahole's, accepted with no effect"),
	{ "suppress_aligned_attribute", OPT_IGNORED, no_argument, NULL, "accepted, no effect" },
	{ "suppress_force_paddings", OPT_IGNORED, no_argument, NULL, "accepted, no effect" },
	{ "suppress_packed", OPT_IGNORED, no_argument, NULL, "accepted, no effect" },
	{ "fixup_silly_bitfields", OPT_IGNORED, no_argument, NULL, "accepted, no effect" },
	{ "quiet", OPT_IGNORED, no_argument, NULL, "accepted, no effect" },
	CLI_OPT_END,
};

#undef EA

static void print_help(bool as_pahole)
{
	printf("usage: %s [options] FILE\n\n"
	       "Encode FILE's DWARF as BTF, into its .BTF section or a detached file.\n\n",
	       as_pahole ? "pahole -J" : "frugal btf encode");
	cli_opts__help(stdout, btf_encode_cli_opts);
}

/*
 * Join each --btf_features list to the others.  pahole reads a list that
 * starts with '+' as 'default' plus the rest (6.12's Makefile.btf passes
 * --btf_features=+reproducible_build).  --btf_features_strict (R's value
 * true) makes every list strict.
 */
static int add_features(void *ctx, const struct cli_opt *r, const char *list)
{
	struct btf_encode_args *a = ctx;
	size_t len = strlen(a->features);
	bool plus = list[0] == '+';

	a->opts.rules = compats[DEFAULT_COMPAT].rules;
	if (r->set)
		a->strict = true;

	if (len + strlen(list) + sizeof("default,") + 1 > sizeof(a->features))
		return cli_usage_err("--btf_features: list too long");
	if (len)
		a->features[len++] = ',';
	if (plus) {
		strcpy(a->features + len, "default,");
		len += strlen("default,");
		list++;
	}
	strcpy(a->features + len, list);
	a->have_features = true;
	return 0;
}

/* One name of a --btf_features list: its bits, 0 when unknown. */
static unsigned int feature_bits(const char *name)
{
	if (!strcmp(name, feature_sets[0]))
		return btf_feat__default();
	if (!strcmp(name, feature_sets[1]))
		return btf_feat__all();
	return btf_feat__from_name(name);
}

/*
 * pahole: when --btf_features is given, only the listed features are on;
 * the older switches no longer matter.  Unknown names are ignored unless
 * --btf_features_strict, so a newer kernel's list still works; a name
 * pahole knows but we do not honour is ignored even then, as pahole
 * ignores a feature its libbpf cannot encode (encode_feat.c).  Under
 * strict an unknown name fails as in pahole 1.32: exit 1 (not a usage
 * error's 2), the supported list in the message.  The list is read from a
 * copy: the caller logs it again once -V is in effect.
 */
static int apply_features(struct btf_encode_args *a)
{
	char list[sizeof(a->features)], *save = NULL, *name, known[512];
	unsigned int feats = 0, bit;

	strcpy(list, a->features);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		bit = feature_bits(name);
		if (!bit && a->strict && !btf_feat__unsupported(name)) {
			btf_feat__supported(known, sizeof(known));
			return cli_err("--btf_features_strict",
				       "unknown feature '%s'; supported: %s", name, known);
		}
		feats |= bit;
	}
	a->opts.features = feats;
	return 0;
}

/* With -V: the names ignored and how the newer features are followed. */
static void log_features(const struct btf_encode_args *a)
{
	char list[sizeof(a->features)], *save = NULL, *name;
	unsigned int feats = a->opts.features;

	strcpy(list, a->features);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (feature_bits(name))
			continue;
		if (btf_feat__unsupported(name))
			cli_log("btf: ignoring BTF feature '%s': %s\n", name,
				btf_feat__unsupported(name));
		else
			cli_log("btf: ignoring unknown BTF feature '%s'\n", name);
	}
	if (feats & (BTF_FEAT_OPTIMIZED_FUNC | BTF_FEAT_CONSISTENT_FUNC))
		cli_log("btf: optimized_func/consistent_func: FUNCs follow pahole %s's rules\n",
			compats[a->opts.rules].name);
	if (feats & BTF_FEAT_GLOBAL_VAR)
		cli_log("btf: global_var: VARs of all globals follow pahole %s's rule\n",
			compats[a->opts.rules].name);
}

/* -j[N]: alone, one worker per online CPU. */
static int parse_jobs(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_encode_args *a = ctx;
	unsigned long long n;
	long cpus;

	(void)r;
	if (!arg) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		a->opts.jobs = cpus > 0 ? (unsigned int)cpus : 1;
		return 0;
	}
	if (cli_parse_u64("-j", arg, 1, 1024, &n))
		return EXIT_USAGE;
	a->opts.jobs = (unsigned int)n;
	return 0;
}

/* --lang_exclude (kept by the row): known languages only. */
static int parse_langs(void *ctx, const struct cli_opt *r, const char *arg)
{
	char bad[64];

	(void)ctx, (void)r;
	if (btf_enc__check_langs(arg, bad, sizeof(bad)))
		return cli_usage_err("--lang_exclude: unknown language '%s'", bad);
	return 0;
}

/*
 * A kernel build runs $(PAHOLE) as one word (scripts/pahole-version.sh
 * checks it with command -v), so --pahole_compat cannot ride in it: the
 * environment can, make passes it on.  The option, when given, wins.
 */
#define COMPAT_ENV "FRUGAL_PAHOLE_COMPAT"

/* --pahole_compat=VERSION (R NULL: from COMPAT_ENV): one of compats[]. */
static int parse_compat(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_encode_args *a = ctx;
	size_t i;

	(void)r;
	for (i = 0; i < NR_COMPATS; i++) {
		if (!strcmp(arg, compats[i].name) || !strcmp(arg, compats[i].version)) {
			a->compat = compats[i].rules;
			a->have_compat = true;
			return 0;
		}
	}
	return cli_usage_err("%s: unknown version '%s' (1.24, 1.30 or 1.32)",
			     r ? "--pahole_compat" : COMPAT_ENV, arg);
}

/* --version's answer: the release asked for, else the default one. */
static const char *compat_version(const struct btf_encode_args *a)
{
	size_t i;

	for (i = 0; a->have_compat && i < NR_COMPATS; i++)
		if (compats[i].rules == a->compat)
			return compats[i].version;
	return compats[DEFAULT_COMPAT].version;
}

/* -h, --version and --supported_btf_features do not stop the parse: a wrong option after them is still refused. */
int btf_encode_args__parse(struct btf_encode_args *a, int argc, char **argv)
{
	const char *env;
	int next, err;

	memset(a, 0, sizeof(*a));
	a->opts.features = BTF_FEAT_LEGACY;
	a->opts.jobs = 1;
	env = getenv(COMPAT_ENV);
	if (env && *env && parse_compat(a, NULL, env))
		return EXIT_USAGE;
	err = cli_opts__parse(btf_encode_cli_opts, argc, argv, 0, NULL, a, &next);
	if (err)
		return err;
	if (a->version || a->help || a->supported)
		return 0;
	if (next != argc - 1)
		return cli_usage_err("expected exactly one FILE");
	a->opts.path = argv[next];
	if (a->have_features) {
		err = apply_features(a);
		if (err)
			return err;
	}
	if (a->have_compat)
		a->opts.rules = a->compat;
	return 0;
}

static int encode_main(int argc, char **argv, bool as_pahole)
{
	struct btf_encode_args a;
	char errbuf[512] = "";
	struct btf_enc_times times;
	int err;

	err = btf_encode_args__parse(&a, argc, argv);
	if (err)
		return err;
	if (a.verbose)
		cli_verbose = 1;
	if (a.help) {
		print_help(as_pahole);
		return EXIT_OK;
	}
	if (a.supported) {
		char list[512];

		btf_feat__supported(list, sizeof(list));
		puts(list);
		return EXIT_OK;
	}
	if (a.version) {
		if (as_pahole)
			puts(compat_version(&a));
		else
			printf("frugal %s (pahole -J compatible, %s)\n",
			       FRUGAL_VERSION, compat_version(&a));
		return EXIT_OK;
	}
	if (a.have_features)
		log_features(&a);
	cli_log("btf: rules of pahole %s%s\n", compats[a.opts.rules].name,
		a.opts.rules == BTF_RULES_PAHOLE_1_24 && !a.have_compat ? " (its switches only)" : "");
	cli_libbpf_logs();
	a.opts.errbuf = errbuf;
	a.opts.errlen = sizeof(errbuf);
	a.opts.times = &times;
	/*
	 * glibc raises its mmap threshold to the size of each large block
	 * freed (up to 32 MB), and each worker has an arena of its own.
	 * Fixed thresholds decide instead what comes from the arenas and
	 * what the arenas keep when freed.
	 *
	 * Blocks below 32 MB (libbpf's type and string data, dedup's tables,
	 * the encoder's scratch) come from the arenas, so a batch reuses
	 * what the one before it freed instead of mapping fresh pages that
	 * libbpf then zeroes.  6.12 vmlinux -j1: page faults 113,000 ->
	 * 20,000, system CPU 0.36 -> 0.13 s, peak RSS +3.6 MB.
	 *
	 * With workers, each arena keeps its own peak: the trim threshold
	 * stays at 1 MB so that a worker's freed top goes back at once.  -j2:
	 * faults 104,000 -> 80,000, system CPU 0.45 -> 0.25 s, wall 1.50 ->
	 * 1.37 s, peak RSS 66 -> 76 MB (with each unit's .debug_info given
	 * back as it is encoded, run_job()).
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, (a.opts.jobs == 1 ? 32 : 1) << 20);
	err = btf_enc__run(&a.opts);
	if (err)
		return cli_err(NULL, "%s", errbuf[0] ? errbuf : strerror(-err));
	cli_log("btf: CPU s: setup %.3f, DWARF to BTF %.3f, batch dedup %.3f, merge %.3f, "
		"finish %.3f, write %.3f\n", times.setup, times.encode, times.dedup,
		times.merge, times.finish, times.write);
	if (times.base)
		cli_log("btf: base BTF: %s\n", times.base);
	return EXIT_OK;
}

int btf_encode_main(int argc, char **argv)
{
	return encode_main(argc, argv, false);
}

/*
 * pahole's command line encodes with -J or a --btf_encode* option (and
 * answers --version and --supported_btf_features, which kernel builds
 * ask); without them it prints layouts, as pahole does.
 */
static bool pahole_encodes(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--version") || !strcmp(a, "--supported_btf_features") ||
		    !strncmp(a, "--btf_encode", 12) || (a[0] == '-' && a[1] != '-' && strchr(a, 'J')))
			return true;
		if (!strcmp(a, "--"))
			break;
	}
	return false;
}

int btf_pahole_main(int argc, char **argv)
{
	if (!pahole_encodes(argc, argv))
		return btf_show_pahole_main(argc, argv);
	return encode_main(argc, argv, true);
}
