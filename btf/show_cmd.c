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
	OPT_NAME_LEN = 'N',
	OPT_CACHELINE = 'c',
	OPT_REORG = 'R',
	OPT_REORG_STEPS = 'S',
	OPT_PAHOLE_VERBOSE = 'V',
	OPT_ANON = 'a',
	OPT_HOLES = 'H',
	OPT_BIT_HOLES = 'B',
	OPT_HOLE_GE = 'z',
	OPT_EXCLUDE = 'x',
	OPT_PREFIX = 'y',
	OPT_SEPARATOR = 't',
	OPT_CONTAINS = 'i',
	OPT_RECURSIVE = 'd',
	OPT_POINTERS = 'f',
	OPT_DATA_MEMBERS = 'M',
	OPT_QUIET = 'q',
	OPT_REL_OFFSET = 'r',
	OPT_HEX = CLI_OPT_LONG,
	OPT_BASE,
	OPT_COMPAT,
	OPT_PADDING_GE,
	OPT_STRUCTS,
	OPT_UNIONS,
	OPT_PACKED,
	OPT_FLEX,
	OPT_EMB_FLEX,
	OPT_AS_STRUCTS,
	OPT_NO_ALIGNED,
	OPT_NO_PACKED,
	OPT_FIRST_OBJ,
	OPT_SILLY_BITFIELDS,
	OPT_FORCE_PADDINGS,
};

/* -i NAME and -f NAME: NAME as -C's, and what is shown of it (the row's value). */
static int parse_search(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_show_opts *o = ctx;

	o->classes = arg;
	o->search = r->set;
	return 0;
}

static int parse_separator(void *ctx, const struct cli_opt *r, const char *arg)
{
	(void)r;
	((struct btf_show_opts *)ctx)->separator = arg[0];
	return 0;
}

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
	CLI_OPT_BOOL("class_name_len", OPT_NAME_LEN, struct btf_show_opts, name_len, true,
		     "one line per type: name, the name's length"),
	CLI_OPT_CALLBACK("separator", OPT_SEPARATOR, required_argument, "SEP",
			 "the separator of those lines' fields (default: a tab)", parse_separator, 0),
	CLI_OPT_CALLBACK("contains", OPT_CONTAINS, required_argument, "NAME",
			 "the structs and unions with a member of type NAME", parse_search,
			 BTF_SHOW_CONTAINERS),
	CLI_OPT_BOOL("recursive", OPT_RECURSIVE, struct btf_show_opts, recursive, true,
		     "with -i: and, indented, the members' types that hold one"),
	CLI_OPT_CALLBACK("find_pointers_to", OPT_POINTERS, required_argument, "NAME",
			 "\"struct: member\" for each member that points to NAME", parse_search,
			 BTF_SHOW_POINTERS_TO),
	CLI_OPT_BOOL("quiet", OPT_QUIET, struct btf_show_opts, quiet, true,
		     "members only: no offsets, holes or statistics"),
	CLI_OPT_BOOL("rel_offset", OPT_REL_OFFSET, struct btf_show_opts, rel_offset, true,
		     "a member's offset within its own struct, not the outermost one"),
	CLI_OPT_BOOL("suppress_aligned_attribute", OPT_NO_ALIGNED, struct btf_show_opts,
		     no_aligned, true, "no __attribute__((__aligned__(N))) inferred"),
	CLI_OPT_BOOL("suppress_packed", OPT_NO_PACKED, struct btf_show_opts, no_packed, true,
		     "no __attribute__((__packed__)) inferred"),
	CLI_OPT_GROUP("Which types (with no -C, or searched by -i and -f; pahole's filters)"),
	CLI_OPT_BOOL("anon_include", OPT_ANON, struct btf_show_opts, anon, true,
		     "unnamed structs and unions too (those a typedef names)"),
	CLI_OPT_BOOL("structs", OPT_STRUCTS, struct btf_show_opts, structs, true, "structs only"),
	CLI_OPT_BOOL("unions", OPT_UNIONS, struct btf_show_opts, unions, true, "unions only"),
	CLI_OPT_BOOL("packed", OPT_PACKED, struct btf_show_opts, packed, true,
		     "structs pahole infers packed only"),
	CLI_OPT_UINT("holes", OPT_HOLES, struct btf_show_opts, holes, 0, 255, "N",
		     "structs with at least N holes"),
	CLI_OPT_UINT("bit_holes", OPT_BIT_HOLES, struct btf_show_opts, bit_holes, 0, 255, "N",
		     "structs with at least N bit holes"),
	CLI_OPT_UINT("hole_size_ge", OPT_HOLE_GE, struct btf_show_opts, hole_ge, 0, 65535, "N",
		     "the names of structs with a hole of at least N bytes"),
	CLI_OPT_UINT("padding_ge", OPT_PADDING_GE, struct btf_show_opts, padding_ge, 0, 65535, "N",
		     "structs with at least N bytes of padding at the end"),
	CLI_OPT_BOOL("with_flexible_array", OPT_FLEX, struct btf_show_opts, flex, true,
		     "structs that end in a flexible array (and every union, as pahole)"),
	CLI_OPT_BOOL("with_embedded_flexible_array", OPT_EMB_FLEX, struct btf_show_opts, emb_flex,
		     true, "structs with a member that ends in one (and every union)"),
	CLI_OPT_STR("exclude", OPT_EXCLUDE, struct btf_show_opts, exclude, "PREFIX",
		    "not the types whose name starts with PREFIX"),
	CLI_OPT_STR("prefix_filter", OPT_PREFIX, struct btf_show_opts, prefix, "PREFIX",
		    "only the types whose name starts with PREFIX"),
	CLI_OPT_GROUP("Input and output"),
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
	CLI_OPT_GROUP("Taken as pahole takes them; on BTF they change nothing"),
	CLI_OPT_BOOL("show_only_data_members", OPT_DATA_MEMBERS, struct btf_show_opts, noop, true,
		     "(BTF holds data members only)"),
	CLI_OPT_BOOL("classes_as_structs", OPT_AS_STRUCTS, struct btf_show_opts, noop, true,
		     "(BTF has no C++ classes)"),
	CLI_OPT_BOOL("first_obj_only", OPT_FIRST_OBJ, struct btf_show_opts, noop, true,
		     "(one BTF is one object)"),
	CLI_OPT_BOOL("fixup_silly_bitfields", OPT_SILLY_BITFIELDS, struct btf_show_opts, noop, true,
		     "(a DWARF loader's fixup)"),
	CLI_OPT_BOOL("suppress_force_paddings", OPT_FORCE_PADDINGS, struct btf_show_opts, noop, true,
		     "(pahole writes them from DWARF's alignments only)"),
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
	o->separator = '\t';
	if (env && *env && parse_compat(o, NULL, env))
		return EXIT_USAGE;
	err = cli_opts__parse(btf_show_cli_opts, argc, argv, 0, NULL, o, &next);
	if (err || o->help)
		return err;
	if (argc - next > 1)
		return cli_usage_err("show takes one file");
	if (argc - next == 1)
		o->path = argv[next];
	if (o->emb_flex)	/* as pahole: it asks structs only */
		o->structs = true;
	if (o->sizes + o->nr_members + o->name_len > 1)
		return cli_usage_err("--sizes, --nr_members, --class_name_len: one of them");
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

/*
 * One type, as the chosen formatter prints it; NAME, pahole's name for it
 * (NULL for an unnamed one, which the line formatters print as glibc
 * prints a null string), TYPEDEF the typedef that names an unnamed one.
 */
static int show_one(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		    uint32_t id, uint32_t tdef)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf_view__str(btf, t->name_off);
	const char *shown = name ? name : "(null)";
	int sep = o->separator, n;

	if (o->sizes)
		n = printf("%s%c%u%c%u\n", shown, sep, t->size, sep, btf_layout__nr_holes(l, id));
	else if (o->nr_members)
		n = printf("%s%c%u\n", shown, sep, btf_is_composite(t) ? btf_vlen(t) : 0);
	else if (o->name_len)
		n = printf("%s%c%zu\n", shown, sep, strlen(shown));
	else if (o->hole_ge)
		n = printf("%s\n", shown);
	else if (!name && tdef)
		return btf_layout__print_as(l, id, "typedef",
					    btf_view__str(btf, btf__type_by_id(btf, tdef)->name_off),
					    stdout);
	else
		return btf_layout__print(l, id, stdout);
	return n < 0 ? -EIO : 0;
}

/* NAME, or the name of the typedef of unnamed ID (as pahole's prefix filters read it). */
static const char *name_or_typedef(const struct btf *btf, struct btf_layout *l, uint32_t id,
				   const char *name)
{
	uint32_t tdef;

	if (name)
		return name;
	tdef = btf_layout__typedef_of(l, id);
	return tdef ? btf_view__str(btf, btf__type_by_id(btf, tdef)->name_off) : NULL;
}

/* pahole's class__filter(), in its order (inferring packing has effects it keeps). */
static bool wanted(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		   uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = btf_view__str(btf, t->name_off), *n;
	struct btf_layout_facts f;

	if ((o->unions && !btf_is_union(t)) || (o->structs && !btf_is_struct(t)))
		return false;
	if (o->packed && !btf_layout__packed(l, id))
		return false;
	if (!name && !o->anon)
		return false;
	if (o->exclude) {
		n = name_or_typedef(btf, l, id, name);
		if (n && !strncmp(o->exclude, n, strlen(o->exclude)))
			return false;
	}
	if (o->prefix) {
		n = name_or_typedef(btf, l, id, name);
		if (n && strncmp(o->prefix, n, strlen(o->prefix)))
			return false;
	}
	if (btf_layout__facts(l, id, &f))
		return false;
	/*
	 * 1.30 takes every union --unions asks for; 1.32 puts a union through
	 * the filters (one for a flexible array too: no union has one).
	 */
	if (o->pahole >= 132) {
		if (o->flex && !f.flex)
			return false;
	} else if (o->unions) {
		return true;
	}
	if (!btf_is_struct(t))
		return !(o->structs || o->holes || o->bit_holes || o->hole_ge || o->padding_ge);
	if (f.nr_holes < o->holes || f.padding < o->padding_ge || f.nr_bit_holes < o->bit_holes ||
	    (o->hole_ge && (!f.nr_holes || f.max_hole < o->hole_ge)))
		return false;
	return (!o->flex || f.flex) && (!o->emb_flex || f.emb_flex);
}

/* The structs and unions pahole walks, and which of them were printed (its dedup). */
struct walk {
	uint32_t *ids, *group, n;
	uint8_t *seen;			/* by group */
};

static void walk__free(struct walk *w)
{
	free(w->ids);
	free(w->group);
	free(w->seen);
}

static int walk__init(struct walk *w, struct btf_layout *l, const struct btf *btf)
{
	int err = btf_layout__walk(l, &w->ids, &w->group, &w->n);

	w->seen = NULL;
	if (err)
		return err;
	w->seen = calloc(btf__type_cnt(btf), 1);
	return w->seen ? 0 : -ENOMEM;
}

/* Printed already? Marks group G printed (UINT32_MAX: unnamed, never). */
static bool walk__seen(struct walk *w, uint32_t g)
{
	if (g == UINT32_MAX)
		return false;
	if (w->seen[g])
		return true;
	w->seen[g] = 1;
	return false;
}

/* pahole's containers of TARGET in struct or union ID, INDENT deep (-d: recursively). */
static void print_containers(const struct btf_show_opts *o, const struct btf *btf, struct walk *w,
			     uint32_t id, uint32_t group, uint32_t target, int indent)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	uint32_t i, n = 0;

	for (i = 0; i < btf_vlen(t); i++)
		n += m[i].type == target;
	if (!n || (!indent && walk__seen(w, group)))
		return;
	printf("%*s%s\n", indent * 2, "", btf_view__str(btf, t->name_off) ?: "(null)");
	if (!o->recursive)
		return;
	for (i = 0; i < btf_vlen(t); i++) {
		const struct btf_type *mt = btf__type_by_id(btf, m[i].type);

		if (m[i].type && (btf_is_composite(mt) || btf_is_fwd(mt)))
			print_containers(o, btf, w, m[i].type, UINT32_MAX, target, indent + 1);
	}
}

/* pahole's "struct: member" for each member of a walked type that points to TARGET. */
static void print_pointers_to(const struct btf *btf, struct walk *w, uint32_t id, uint32_t group,
			      uint32_t target)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *mt;
	const struct btf_member *m = btf_members(t);
	bool looked = false;
	uint32_t i;

	for (i = 0; i < btf_vlen(t); i++) {
		mt = btf__type_by_id(btf, m[i].type);
		if (!m[i].type || !btf_is_ptr(mt) || mt->type != target)
			continue;
		if (!looked && walk__seen(w, group))
			return;
		looked = true;
		printf("%s: %s\n", btf_view__str(btf, t->name_off) ?: "(null)",
		       btf_view__str(btf, m[i].name_off) ?: "(null)");
	}
}

/* -i or -f for the type TARGET: the named walked types the filters keep. */
static int search(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		  struct walk *w, uint32_t target)
{
	uint32_t i;

	for (i = 0; i < w->n; i++) {
		if (w->group[i] == UINT32_MAX || !wanted(o, l, btf, w->ids[i]))
			continue;
		if (o->search == BTF_SHOW_CONTAINERS)
			print_containers(o, btf, w, w->ids[i], w->group[i], target, 0);
		else
			print_pointers_to(btf, w, w->ids[i], w->group[i], target);
	}
	return 0;
}

/* Struct ID reorganized into FP (NULL: only checked); one that does not end is named. */
static int reorg_one(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf,
		     uint32_t id, FILE *fp)
{
	int err = btf_layout__reorg(l, id, o->reorg_steps ? BTF_REORG_STEPS :
				       o->reorg_moves ? BTF_REORG_MOVES : BTF_REORG_QUIET, fp);

	if (err == -ELOOP)
		return cli_err(o->path, "'%s': its reorganization does not end (pahole's runs on)",
			       btf_view__str(btf, btf__type_by_id(btf, id)->name_off) ?: "(null)");
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
	/* pahole's -C path: -R first, then the searches, then the layouts */
	if (o->search && !o->reorg) {
		struct walk w;

		err = walk__init(&w, l, btf);
		for (i = 0; i < n && !err; i++)
			err = search(o, l, btf, &w, ids[i]);
		walk__free(&w);
	}
	for (i = 0; i < n && !err && (o->reorg || !o->search); i++) {
		if (o->reorg) {
			err = reorg_one(o, l, btf, ids[i], stdout);
			if (err == -EINVAL)	/* pahole -R prints nothing for a union, a typedef, an enum */
				err = 0;
			continue;
		}
		err = show_one(o, l, btf, ids[i], 0);
		if (!err && !o->sizes && !o->nr_members && !o->name_len)
			putchar('\n');
	}
	if (!err && name)
		fprintf(stderr, "pahole: type '%s' not found\n", name);
out:
	free(ids);
	free(list);
	return err;
}

/*
 * With no -C: the structs and unions the filters keep, in pahole's order,
 * each named one once; an unnamed one only when a typedef names it
 * (pahole prints the others inside what holds them).
 */
static int show_all(const struct btf_show_opts *o, struct btf_layout *l, const struct btf *btf)
{
	struct walk w;
	uint32_t i, tdef;
	int err = walk__init(&w, l, btf);

	for (i = 0; !err && i < w.n; i++) {
		if (!wanted(o, l, btf, w.ids[i]))
			continue;
		tdef = 0;
		if (w.group[i] != UINT32_MAX) {
			if (walk__seen(&w, w.group[i]))
				continue;
		} else if (!o->sizes && !o->nr_members && !o->name_len && !o->hole_ge) {
			tdef = btf_layout__typedef_of(l, w.ids[i]);
			if (!tdef)
				continue;
		}
		err = show_one(o, l, btf, w.ids[i], tdef);
	}
	walk__free(&w);
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
	 * without -R, and the one-line formats and searches with -R -C: as
	 * frugal, each is a mistake.
	 */
	if (!as_pahole && (o.reorg || o.reorg_steps)) {
		if (!o.reorg || !o.classes || o.sizes || o.nr_members || o.name_len || o.hole_ge ||
		    o.search) {
			ret = cli_usage_err(!o.reorg ? "-S shows the steps of -R" :
					    !o.classes ? "-R: name the structs to reorganize with -C" :
					    "-R prints the structs reorganized: not with -s, -n, -N, -z, -i or -f");
			goto out;
		}
	}
	if (btf_cmd__load(o.path, o.base, &base, &btf))
		goto out;
	/* pahole's cacheline: the CPU's first-level data cache line, else 64 */
	line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
	l = btf_layout__new(btf, &(struct btf_layout_conf){
		.cacheline_size = o.cacheline ? o.cacheline : line > 0 ? (unsigned int)line : 64,
		.pahole = o.pahole, .hex = o.hex, .expand_types = o.expand, .quiet = o.quiet,
		.rel_offset = o.rel_offset, .suppress_aligned = o.no_aligned,
		.suppress_packed = o.no_packed });
	if (!l) {
		if (errno == ELOOP)
			cli_err(o.path, "type [%u] holds itself (no C type does): not shown",
				btf_layout__loop(btf));
		else
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
