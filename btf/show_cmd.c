// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf show [-C NAMES] [FILE]`: pahole's layout view (holes,
 * padding, cachelines) of BTF, byte for byte as pahole prints it, and what
 * frugal does when invoked as pahole without -J.  The text is
 * btf/view/layout.c's; this file reads the command line, loads the BTF
 * and picks the types.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

#define SYS_VMLINUX "/sys/kernel/btf/vmlinux"

enum {
	OPT_CLASS = 'C',
	OPT_EXPAND = 'E',
	OPT_FORMAT = 'F',
	OPT_SIZES = 's',
	OPT_NR_MEMBERS = 'n',
	OPT_CACHELINE = 'c',
	OPT_REORG = 'R',
	OPT_REORG_STEPS = 'S',
	OPT_PAHOLE_VERBOSE = 'V',
	OPT_HEX = CLI_OPT_LONG,
	OPT_BASE,
	OPT_COMPAT,
};

/* --pahole_compat: whose layout rules (1.31 changed the alignment inference). */
static int parse_compat(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_show_opts *o = ctx;

	if (arg[0] == 'v')
		arg++;
	if (!strcmp(arg, "1.24") || !strcmp(arg, "1.30"))
		o->pahole = 130;
	else if (!strcmp(arg, "1.32"))
		o->pahole = 132;
	else
		return cli_usage_err("%s: unknown version '%s' (1.30 or 1.32)",
				     r ? "--pahole_compat" : "FRUGAL_PAHOLE_COMPAT", arg);
	return 0;
}

/* pahole's -V: its verbose covers both, the moves and libbpf's messages */
static int set_pahole_verbose(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_show_opts *o = ctx;

	(void)r, (void)arg;
	o->reorg_moves = true;
	o->verbose = true;
	return 0;
}

static int parse_format(void *ctx, const struct cli_opt *r, const char *arg)
{
	(void)ctx, (void)r;
	if (strcmp(arg, "btf"))
		return cli_usage_err("-F: format '%s' is not read here (only btf)", arg);
	return 0;
}

const struct cli_opt btf_show_cli_opts[] = {
	CLI_OPT_STR("class_name", OPT_CLASS, struct btf_show_opts, classes, "NAMES",
		    "the types to show, comma-separated (default: every struct and union)"),
	CLI_OPT_BOOL("expand_types", OPT_EXPAND, struct btf_show_opts, expand, true,
		     "write the members' types out"),
	CLI_OPT_BOOL("hex", OPT_HEX, struct btf_show_opts, hex, true, "offsets and sizes in hex"),
	CLI_OPT_BOOL("sizes", OPT_SIZES, struct btf_show_opts, sizes, true,
		     "one line per type: name, size, holes"),
	CLI_OPT_BOOL("nr_members", OPT_NR_MEMBERS, struct btf_show_opts, nr_members, true,
		     "one line per type: name, members"),
	CLI_OPT_BOOL("reorganize", OPT_REORG, struct btf_show_opts, reorg, true,
		     "the -C structs with members moved into holes, as pahole packs them"),
	CLI_OPT_BOOL("show_reorg_steps", OPT_REORG_STEPS, struct btf_show_opts, reorg_steps, true,
		     "with -R: each move, and the struct after it"),
	CLI_OPT_CALLBACK("pahole_verbose", OPT_PAHOLE_VERBOSE, no_argument, NULL,
			 "pahole's -V: with -R, each move named; libbpf's messages", set_pahole_verbose,
			 0),
	CLI_OPT_UINT("cacheline_size", OPT_CACHELINE, struct btf_show_opts, cacheline, 1, 65535,
		     "N", "bytes per cacheline (default: the CPU's)"),
	CLI_OPT_STR("btf_base", OPT_BASE, struct btf_show_opts, base, "FILE",
		    "base BTF of a module's split BTF", .kind = CLI_ARG_FILE),
	CLI_OPT_CALLBACK("format_path", OPT_FORMAT, required_argument, "FORMAT",
			 "where the types come from: btf (the only one)", parse_format, 0),
	CLI_OPT_CALLBACK("pahole_compat", OPT_COMPAT, required_argument, "VERSION",
			 "print as pahole VERSION does: 1.30 or 1.32 (default: $FRUGAL_PAHOLE_COMPAT,\n"
			 "else 1.32)", parse_compat, 0),
	CLI_OPT_BOOL("verbose", 'v', struct btf_show_opts, verbose, true, "show libbpf's messages"),
	CLI_OPT_HELP(struct btf_show_opts, help),
	CLI_OPT_END,
};

static void print_help(void)
{
	fputs("usage: frugal btf show [-C NAMES [-R [-S | -V]]] [--hex] [-E] [FILE | NAME]\n\n"
	      "Show structs and unions as pahole does: each member's offset and size,\n"
	      "the holes and padding between them, cacheline boundaries, and the\n"
	      "alignment and packing the offsets imply.  FILE is raw BTF or an ELF\n"
	      "with a .BTF section (default: " SYS_VMLINUX "; a module's file\n"
	      "there is read on it).  A NAME that is not a file is taken for -C NAME.\n"
	      "With -R, each struct named is shown as pahole -R reorganizes it: members\n"
	      "moved into the holes of others, and the bytes and cachelines it saves.\n"
	      "Invoked as pahole without -J, frugal runs this command.\n\n", stdout);
	cli_opts__help(stdout, btf_show_cli_opts);
}

int btf_show_opts__parse(struct btf_show_opts *o, int argc, char **argv)
{
	const char *env = getenv("FRUGAL_PAHOLE_COMPAT");
	int next, err;

	memset(o, 0, sizeof(*o));
	o->pahole = 132;
	if (env && *env && parse_compat(o, NULL, env))
		return EXIT_USAGE;
	err = cli_opts__parse(btf_show_cli_opts, argc, argv, 0, NULL, o, &next);
	if (err || o->help)
		return err;
	if (argc - next > 1)
		return cli_usage_err("show takes one file");
	if (argc - next == 1)
		o->path = argv[next];
	if (o->sizes && o->nr_members)
		return cli_usage_err("--sizes and --nr_members: one or the other");
	return 0;
}

/*
 * FILE, or where pahole looks: no FILE is the running kernel's BTF, a
 * word that is no file is a type's name on it, a module's BTF in sysfs
 * is split on vmlinux's.
 */
static void resolve_input(struct btf_show_opts *o)
{
	if (o->path && access(o->path, F_OK) && !o->classes && !strchr(o->path, '/')) {
		o->classes = o->path;
		o->path = NULL;
	}
	if (!o->path)
		o->path = SYS_VMLINUX;
	if (!o->base && !strncmp(o->path, "/sys/kernel/btf/", 16) && strcmp(o->path, SYS_VMLINUX))
		o->base = SYS_VMLINUX;
}

/* One type, as the chosen formatter prints it. */
static int show_one(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		    uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf__name_by_offset(btf, t->name_off);

	if (o->sizes)
		return printf("%s\t%u\t%u\n", name, t->size, btf_layout__nr_holes(l, id)) < 0 ? -EIO : 0;
	if (o->nr_members)
		return printf("%s\t%u\n", name, btf_is_composite(t) ? btf_vlen(t) : 0) < 0 ? -EIO : 0;
	return btf_layout__print(l, id, stdout);
}

/* Struct ID reorganized into FP (NULL: only checked); one that does not end is named. */
static int reorg_one(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		     uint32_t id, FILE *fp)
{
	int err = btf_layout__reorg(l, id, o->reorg_steps ? BTF_REORG_STEPS :
				       o->reorg_moves ? BTF_REORG_MOVES : BTF_REORG_QUIET, fp);

	if (err == -ELOOP)
		return cli_err(o->path, "'%s': its reorganization does not end (pahole's runs on)",
			       btf__name_by_offset(btf, btf__type_by_id(btf, id)->name_off));
	return err;
}

/*
 * -C NAMES, each once, in the order given.  As frugal: every name is
 * found before anything is printed.  As pahole: printed until the first
 * name it lacks, which is then named, and the exit is 0.  With -R, each
 * struct reorganized; pahole prints nothing for another kind, frugal
 * refuses it.
 */
static int show_named(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		      bool as_pahole)
{
	char *list = strdup(o->classes), *save = NULL, *name;
	uint32_t *ids = NULL, n = 0, i;
	int err = 0;

	if (!list)
		return -ENOMEM;
	ids = calloc(strlen(o->classes) / 2 + 1, sizeof(*ids));
	if (!ids) {
		free(list);
		return -ENOMEM;
	}
	for (name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		ids[n] = btf_layout__find(l, name);
		if (!ids[n]) {
			if (!as_pahole) {
				err = cli_err(o->path, "type '%s' not found", name);
				goto out;
			}
			break;
		}
		if (o->reorg && !as_pahole) {
			err = reorg_one(o, l, btf, ids[n], NULL);
			if (err == -EINVAL)
				err = cli_err(o->path, "'%s' is not a struct: -R reorganizes structs", name);
			if (err)
				goto out;
		}
		n++;
	}
	for (i = 0; i < n && !err; i++) {
		if (o->reorg) {
			err = reorg_one(o, l, btf, ids[i], stdout);
			if (err == -EINVAL)	/* pahole -R prints nothing for a union, a typedef, an enum */
				err = 0;
			continue;
		}
		err = show_one(o, l, btf, ids[i]);
		if (!err && !o->sizes && !o->nr_members)
			putchar('\n');
	}
	if (!err && name)
		fprintf(stderr, "pahole: type '%s' not found\n", name);
out:
	free(ids);
	free(list);
	return err;
}

static int show_all(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf)
{
	uint32_t *ids, n, i;
	int err = btf_layout__all(l, &ids, &n);

	for (i = 0; !err && i < n; i++)
		err = show_one(o, l, btf, ids[i]);
	free(ids);
	return err;
}

static int show_main(int argc, char **argv, bool as_pahole)
{
	struct btf *base = NULL, *btf = NULL;
	struct btf_layout *l = NULL;
	struct btf_show_opts o;
	long line;
	int err, ret;

	ret = btf_cmd__start(btf_show_opts__parse(&o, argc, argv), &o.help, &o.verbose, print_help);
	if (ret >= 0)
		return ret;
	ret = EXIT_RUNTIME;
	resolve_input(&o);
	/*
	 * pahole ignores -R without -C (only its -C path reorganizes), -S
	 * without -R, and --sizes with -R -C: as frugal, each is a mistake.
	 */
	if (!as_pahole && (o.reorg || o.reorg_steps)) {
		if (!o.reorg || !o.classes || o.sizes || o.nr_members) {
			ret = cli_usage_err(!o.reorg ? "-S shows the steps of -R" :
					    !o.classes ? "-R: name the structs to reorganize with -C" :
					    "-R prints structs, not --sizes or --nr_members");
			goto out;
		}
	}
	if (btf_cmd__load(o.path, o.base, &base, &btf))
		goto out;
	/* pahole's cacheline: the CPU's first-level data cache line, else 64 */
	line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	l = btf_layout__new(btf, &(struct btf_layout_conf){
		.cacheline_size = o.cacheline ? o.cacheline : line > 0 ? (unsigned int)line : 64,
		.pahole = o.pahole, .hex = o.hex, .expand_types = o.expand });
	if (!l) {
		cli_err(o.path, "%s", strerror(errno));
		goto out;
	}
	err = o.classes ? show_named(&o, l, btf, as_pahole) : show_all(&o, l, btf);
	if (err > 0)		/* already reported */
		goto out;
	if (err) {
		cli_err(o.path, "%s", strerror(-err));
		goto out;
	}
	if (fflush(stdout)) {
		cli_err(NULL, "writing: %s", strerror(errno));
		goto out;
	}
	ret = EXIT_OK;
out:
	btf_layout__free(l);
	btf__free(btf);
	btf__free(base);
	return ret;
}

int btf_show_main(int argc, char **argv)
{
	return show_main(argc, argv, false);
}

int btf_show_pahole_main(int argc, char **argv)
{
	return show_main(argc, argv, true);
}
