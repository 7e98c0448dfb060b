// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi OLD NEW`, the command: its options, the check between
 * them, and the errors printed.  The comparison and its report are the
 * abi stage's (btf/abi/abi.h).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "btf/abi/abi.h"
#include "btf/btf_int.h"
#include "cli/cli.h"

enum {
	OPT_SYMBOLS = BTF_OPT_NEXT,
	OPT_SYMVERS,
	OPT_SYMVERS_A,
	OPT_SYMVERS_B,
	OPT_SUPP,
	OPT_JSON,
};

static int set_symvers(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_abi_opts *o = ctx;

	(void)r;
	o->symvers[0] = o->symvers[1] = arg;
	return 0;
}

static int add_supp(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_abi_opts *o = ctx;

	(void)r;
	if (o->nsupp == ABI_SUPP_FILES)
		return cli_usage_err("--suppressions: at most %d files", ABI_SUPP_FILES);
	o->supp[o->nsupp++] = arg;
	return 0;
}

#define AO struct btf_abi_opts

const struct cli_opt btf_abi_cli_opts[] = {
	BTF_OPT_BASES(AO, base, "OLD and NEW are split BTF (modules) on base FILE, e.g. vmlinux",
		      "base of OLD alone", "base of NEW alone"),
	CLI_OPT_STR("symbols", OPT_SYMBOLS, AO, symbols, "FILE",
		    "compare the symbols named in FILE (one a line, '#' comments)\n"
		    "instead of the exported ones",
		    .kind = CLI_ARG_FILE),
	CLI_OPT_CALLBACK("symvers", OPT_SYMVERS, required_argument, "FILE",
			 "compare the symbols a Module.symvers lists for OLD and NEW\n"
			 "(those of the module named as the file, else all)",
			 set_symvers, 0, .kind = CLI_ARG_FILE),
	CLI_OPT_STR("symvers-a", OPT_SYMVERS_A, AO, symvers[0], "FILE",
		    "Module.symvers of OLD alone", .kind = CLI_ARG_FILE),
	CLI_OPT_STR("symvers-b", OPT_SYMVERS_B, AO, symvers[1], "FILE",
		    "Module.symvers of NEW alone", .kind = CLI_ARG_FILE),
	CLI_OPT_CALLBACK("suppressions", OPT_SUPP, required_argument, "FILE",
			 "ignore the symbols and types FILE names (repeatable;\n"
			 "libabigail's [suppress_function], [suppress_variable],\n"
			 "[suppress_type] with name or name_regexp)",
			 add_supp, 0, .kind = CLI_ARG_FILE),
	CLI_OPT_BOOL("json", OPT_JSON, AO, json, true, "print one JSON object"),
	CLI_OPT_BOOL("verbose", 'v', AO, verbose, true, "show libbpf's messages"),
	CLI_OPT_HELP(AO, help),
	CLI_OPT_END,
};

#undef AO

int btf_abi_opts__parse(struct btf_abi_opts *o, int argc, char **argv)
{
	int err;

	memset(o, 0, sizeof(*o));
	err = btf_cmd__parse(btf_abi_cli_opts, o, &o->help, argc, argv, o->path, 2,
			     "abi takes two files, OLD and NEW");
	if (err || o->help)
		return err;
	if (o->symbols && (o->symvers[0] || o->symvers[1]))
		return cli_usage_err("--symbols and --symvers: one list of symbols, not both");
	return 0;
}

static void usage_help(void)
{
	fputs("usage: frugal btf abi [OPTIONS] OLD NEW\n\n"
	      "Compare the ABI of the exported symbols of OLD and NEW: each kernel, module\n"
	      "(split BTF, with --base) or raw BTF, or two directories each of a vmlinux\n"
	      "and modules (*.ko) below it, every pair compared in one report; an ELF\n"
	      "file with DWARF and no .BTF\n"
	      "is encoded first.  The symbols are those in the ELF's\n"
	      "__ksymtab sections, those a Module.symvers lists (--symvers), those named\n"
	      "by --symbols, or else every function and variable of the BTF.  First\n"
	      "by cause: each type changed of its own once, with how many symbols reach\n"
	      "it, the first few and the path from one; then each symbol added, removed\n"
	      "or changed, a changed one with the path to each change; then each\n"
	      "changed type once, with the symbols that reach it.\n"
	      "--suppressions drops known changes (docs/btf.md has the format).\n"
	      "Exit status, a bitmask as abidiff's: 0 same, 1 error, 2 usage,\n"
	      "4 the ABI changed, 8 an incompatible change (12: both).\n\n", stdout);
	cli_opts__help(stdout, btf_abi_cli_opts);
}

/* Two trees or two files: which is the engine's; both or neither is the command line's. */
static int check_dirs(const struct btf_abi_opts *o)
{
	bool dir[2] = { abi__is_dir(o->path[0]), abi__is_dir(o->path[1]) };
	int k;

	if (!dir[0] && !dir[1])
		return 0;
	for (k = 0; k < 2; k++)
		if (!dir[k])
			return cli_usage_err("%s: a file, against the directory %s: give two files "
					     "or two directories (trees)", o->path[k], o->path[!k]);
	if (o->base[0] || o->base[1])
		return cli_usage_err("--base is for files: a tree's modules are read on its vmlinux");
	return 0;
}

int btf_abi_main(int argc, char **argv)
{
	struct btf_abi_opts o;
	struct abi_err err = { .why = "" };
	struct abi *abi;
	int ret;

	ret = btf_cmd__start(btf_abi_opts__parse(&o, argc, argv), &o.help, &o.verbose, usage_help);
	if (ret >= 0)
		return ret;
	cli_cmd_name = "btf abi";
	ret = check_dirs(&o);
	if (ret)
		return ret;
	if (abi__compare(&o, &abi, &err)) {
		if (err.why[0])
			cli_err(err.what[0] ? err.what : NULL, "%s", err.why);
		return EXIT_RUNTIME;
	}
	if (abi__warning(abi))
		cli_err(o.path[1], "warning: %s", abi__warning(abi));
	if (o.json)
		abi__print_json(abi, o.path[0], o.path[1]);
	else
		abi__print_text(abi);
	ret = abi__exit_status(abi);
	abi__delete(abi);
	return ret;
}
