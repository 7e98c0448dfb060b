// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf encode` and the `pahole` drop-in: parse pahole's command line
 * (the subset a kernel build uses, same meanings) and run the encoder.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "btf/btf.h"
#include "btf/btf_int.h"
#include "btf/encode.h"
#include "cli/cli.h"

/*
 * The pahole release whose output we reproduce, answered to --version.  A
 * kernel build picks its flags by this number; the default encoding is
 * checked against pahole 1.24 on real kernels, so that is what we claim.
 * A newer kernel's --btf_features list (optimized_func, consistent_func,
 * global_var ...) is accepted and implemented all the same.
 */
#define PAHOLE_COMPAT_VERSION "v1.24"

enum {
	OPT_JOBS = 'j',
	OPT_ENCODE = 'J',
	OPT_VERBOSE = 'V',
	OPT_HELP = 'h',
	OPT_FEATURES = 0x100,
	OPT_FEATURES_STRICT,
	OPT_DETACHED,
	OPT_BASE,
	OPT_LANG_EXCLUDE,
	OPT_VERSION,
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
	OPT_IGNORED,
};

struct opt_help {
	struct option opt;
	const char *arg;
	const char *help;
};

static const struct opt_help opt_table[] = {
	{ { "btf_encode", no_argument, NULL, OPT_ENCODE }, NULL,
	  "-J: encode BTF (the only mode; accepted for pahole compatibility)" },
	{ { "jobs", optional_argument, NULL, OPT_JOBS }, "N",
	  "-j[N]: N worker threads (default: online CPUs)" },
	{ { "btf_features", required_argument, NULL, OPT_FEATURES }, "LIST",
	  "features to encode: 'default', 'all' or a comma list (see docs)" },
	{ { "btf_features_strict", required_argument, NULL, OPT_FEATURES_STRICT }, "LIST",
	  "like --btf_features, but an unknown feature is an error" },
	{ { "btf_encode_detached", required_argument, NULL, OPT_DETACHED }, "FILE",
	  "write raw BTF to FILE, leave the ELF untouched" },
	{ { "btf_base", required_argument, NULL, OPT_BASE }, "FILE",
	  "encode split BTF on top of FILE's BTF (kernel modules)" },
	{ { "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE }, "LANGS",
	  "skip compile units in these languages (e.g. rust)" },
	{ { "version", no_argument, NULL, OPT_VERSION }, NULL,
	  "print the version" },
	{ { "verbose", no_argument, NULL, OPT_VERBOSE }, NULL,
	  "-V: log progress to stderr" },
	{ { "help", no_argument, NULL, OPT_HELP }, NULL, "-h: this help" },
	/* pahole's older per-feature switches, mapped onto the feature bits. */
	{ { "skip_encoding_btf_vars", no_argument, NULL, OPT_SKIP_VARS }, NULL,
	  "do not encode VARs" },
	{ { "btf_gen_floats", no_argument, NULL, OPT_GEN_FLOATS }, NULL,
	  "encode FLOAT" },
	{ { "btf_gen_all", no_argument, NULL, OPT_GEN_ALL }, NULL,
	  "encode every optional kind (FLOAT)" },
	{ { "skip_encoding_btf_enum64", no_argument, NULL, OPT_SKIP_ENUM64 }, NULL,
	  "do not encode ENUM64" },
	{ { "skip_encoding_btf_decl_tag", no_argument, NULL, OPT_SKIP_DECL_TAG }, NULL,
	  "do not encode DECL_TAG" },
	{ { "skip_encoding_btf_type_tag", no_argument, NULL, OPT_SKIP_TYPE_TAG }, NULL,
	  "do not encode TYPE_TAG" },
	{ { "btf_gen_optimized", no_argument, NULL, OPT_GEN_OPTIMIZED }, NULL,
	  "encode functions with optimized-out parameters" },
	{ { "skip_encoding_btf_inconsistent_proto", no_argument, NULL, OPT_SKIP_INCONSISTENT },
	  NULL, "skip functions whose prototypes differ between CUs" },
	{ { "btf_encode_force", no_argument, NULL, OPT_ENCODE_FORCE }, NULL,
	  "ignore ELF symbols that cannot be matched" },
	{ { "encode_btf_global_vars", no_argument, NULL, OPT_GLOBAL_VARS }, NULL,
	  "encode all global variables" },
	/* Harmless in a BTF encode run; accepted so a kernel build may pass them. */
	{ { "reproducible_build", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted; output is always reproducible" },
	{ { "suppress_aligned_attribute", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted, no effect" },
	{ { "suppress_force_paddings", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted, no effect" },
	{ { "suppress_packed", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted, no effect" },
	{ { "fixup_silly_bitfields", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted, no effect" },
	{ { "quiet", no_argument, NULL, OPT_IGNORED }, NULL,
	  "accepted, no effect" },
	{ { NULL, 0, NULL, 0 }, NULL, NULL },
};

static void print_help(bool as_pahole)
{
	const struct opt_help *o;
	char buf[64];

	printf("usage: %s [options] FILE\n\n"
	       "Encode FILE's DWARF as BTF, into its .BTF section or a detached file.\n\n",
	       as_pahole ? "pahole -J" : "frugal btf encode");
	for (o = opt_table; o->opt.name; o++) {
		snprintf(buf, sizeof(buf), "--%s%s%s", o->opt.name,
			 o->arg ? "=" : "", o->arg ? o->arg : "");
		printf("  %-42s %s\n", buf, o->help);
	}
}

static int append_features(struct btf_encode_args *a, const char *list)
{
	size_t len = strlen(a->features);

	if (len + strlen(list) + 2 > sizeof(a->features))
		return cli_usage_err("--btf_features: list too long");
	if (len)
		a->features[len++] = ',';
	strcpy(a->features + len, list);
	a->have_features = true;
	return 0;
}

/* One name of a --btf_features list: its bits, 0 when unknown. */
static unsigned int feature_bits(const char *name)
{
	if (!strcmp(name, "default"))
		return btf_feat__default();
	if (!strcmp(name, "all"))
		return btf_feat__all();
	return btf_feat__from_name(name);
}

/*
 * pahole: when --btf_features is given, only the listed features are on;
 * the older switches no longer matter.  Unknown names are ignored unless
 * --btf_features_strict, so a newer kernel's list still works.  The list
 * is read from a copy: the caller logs it again once -V is in effect.
 */
static int apply_features(struct btf_encode_args *a)
{
	char list[sizeof(a->features)], *save = NULL, *name;
	unsigned int feats = 0, bit;

	strcpy(list, a->features);
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		bit = feature_bits(name);
		if (!bit && a->strict)
			return cli_usage_err("--btf_features: unknown feature '%s'", name);
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
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save))
		if (!feature_bits(name))
			cli_log("btf: ignoring unknown BTF feature '%s'\n", name);
	if (feats & (BTF_FEAT_OPTIMIZED_FUNC | BTF_FEAT_CONSISTENT_FUNC))
		cli_log("btf: optimized_func/consistent_func: FUNCs follow pahole 1.27's rules\n");
	if (feats & BTF_FEAT_GLOBAL_VAR)
		cli_log("btf: global_var: VARs of all globals follow pahole 1.28's rule "
			"(not for ET_REL files)\n");
}

static int parse_jobs(struct btf_encode_args *a, const char *arg)
{
	unsigned long long n;
	long cpus;

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

static int parse_langs(struct btf_encode_args *a, const char *arg)
{
	char bad[64];

	if (btf_enc__check_langs(arg, bad, sizeof(bad)))
		return cli_usage_err("--lang_exclude: unknown language '%s'", bad);
	a->opts.lang_exclude = arg;
	return 0;
}

static int parse_one(struct btf_encode_args *a, int c, const char *arg)
{
	unsigned int *f = &a->opts.features;

	switch (c) {
	case OPT_ENCODE: case OPT_IGNORED: break;
	case OPT_JOBS: return parse_jobs(a, arg);
	case OPT_FEATURES_STRICT: a->strict = true; /* fall through */
	case OPT_FEATURES: return append_features(a, arg);
	case OPT_DETACHED: a->opts.detached = arg; break;
	case OPT_BASE: a->opts.base = arg; break;
	case OPT_LANG_EXCLUDE: return parse_langs(a, arg);
	case OPT_VERSION: a->version = true; break;
	case OPT_VERBOSE: a->verbose = true; break;
	case OPT_HELP: a->help = true; break;
	case OPT_SKIP_VARS: *f &= ~BTF_FEAT_VAR; break;
	case OPT_GEN_FLOATS: case OPT_GEN_ALL: *f |= BTF_FEAT_FLOAT; break;
	case OPT_SKIP_ENUM64: *f &= ~BTF_FEAT_ENUM64; break;
	case OPT_SKIP_DECL_TAG: *f &= ~BTF_FEAT_DECL_TAG; break;
	case OPT_SKIP_TYPE_TAG: *f &= ~BTF_FEAT_TYPE_TAG; break;
	case OPT_GEN_OPTIMIZED: *f |= BTF_FEAT_OPTIMIZED_FUNC; break;
	case OPT_SKIP_INCONSISTENT: *f |= BTF_FEAT_CONSISTENT_FUNC; break;
	case OPT_ENCODE_FORCE: *f |= BTF_FEAT_ENCODE_FORCE; break;
	case OPT_GLOBAL_VARS: *f |= BTF_FEAT_GLOBAL_VAR; break;
	default: return cli_usage_err("unknown option");
	}
	return 0;
}

int btf_encode_args__parse(struct btf_encode_args *a, int argc, char **argv)
{
	struct option longopts[sizeof(opt_table) / sizeof(opt_table[0])];
	size_t i;
	int c, at, err;

	memset(a, 0, sizeof(*a));
	a->opts.features = BTF_FEAT_LEGACY;
	a->opts.jobs = 1;
	for (i = 0; i < sizeof(opt_table) / sizeof(opt_table[0]); i++)
		longopts[i] = opt_table[i].opt;
	opterr = 0;
	optind = 0;	/* glibc: a full reset, also of a group left half-read */
	for (at = 1; (c = getopt_long(argc, argv, ":Jj::Vh", longopts, NULL)) != -1;
	     at = optind) {
		if (c == '?' || c == ':')
			return btf_cmd__bad_option(argc, argv, at, c);
		err = parse_one(a, c, optarg);
		if (err)
			return err;
	}
	if (a->version || a->help)
		return 0;
	if (optind != argc - 1)
		return cli_usage_err("expected exactly one FILE");
	a->opts.path = argv[optind];
	if (a->have_features)
		return apply_features(a);
	return 0;
}

/* libbpf's own messages are logs: shown with -V only. */
static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (!cli_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int btf_encode_main(int argc, char **argv, bool as_pahole)
{
	struct btf_encode_args a;
	char errbuf[512] = "";
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
	if (a.version) {
		if (as_pahole)
			puts(PAHOLE_COMPAT_VERSION);
		else
			printf("frugal %s (pahole -J compatible, %s)\n",
			       FRUGAL_VERSION, PAHOLE_COMPAT_VERSION);
		return EXIT_OK;
	}
	if (a.have_features)
		log_features(&a);
	libbpf_set_print(libbpf_print);
	a.opts.errbuf = errbuf;
	a.opts.errlen = sizeof(errbuf);
	err = btf_enc__run(&a.opts);
	if (err)
		return cli_err(NULL, "%s", errbuf[0] ? errbuf : strerror(-err));
	return EXIT_OK;
}
