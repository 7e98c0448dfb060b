// SPDX-License-Identifier: GPL-2.0
/* `frugal btf stat FILE`: how many types of each kind, and how big it all is. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

#define KIND_CNT (BTF_KIND_ENUM64 + 1)

static const char *const kind_names[KIND_CNT] = {
	[BTF_KIND_UNKN] = "UNKN",	[BTF_KIND_INT] = "INT",
	[BTF_KIND_PTR] = "PTR",		[BTF_KIND_ARRAY] = "ARRAY",
	[BTF_KIND_STRUCT] = "STRUCT",	[BTF_KIND_UNION] = "UNION",
	[BTF_KIND_ENUM] = "ENUM",	[BTF_KIND_FWD] = "FWD",
	[BTF_KIND_TYPEDEF] = "TYPEDEF",	[BTF_KIND_VOLATILE] = "VOLATILE",
	[BTF_KIND_CONST] = "CONST",	[BTF_KIND_RESTRICT] = "RESTRICT",
	[BTF_KIND_FUNC] = "FUNC",	[BTF_KIND_FUNC_PROTO] = "FUNC_PROTO",
	[BTF_KIND_VAR] = "VAR",		[BTF_KIND_DATASEC] = "DATASEC",
	[BTF_KIND_FLOAT] = "FLOAT",	[BTF_KIND_DECL_TAG] = "DECL_TAG",
	[BTF_KIND_TYPE_TAG] = "TYPE_TAG", [BTF_KIND_ENUM64] = "ENUM64",
};

/* Bytes of type T's record in the type section: the header plus what follows. */
static size_t type_rec_size(const struct btf_type *t)
{
	size_t n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return sizeof(*t) + sizeof(__u32);
	case BTF_KIND_ARRAY:
		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return sizeof(*t) + n * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(*t) + n * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(*t) + n * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(*t) + n * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return sizeof(*t) + n * sizeof(struct btf_var_secinfo);
	default:
		return sizeof(*t);
	}
}

static void print_stat(const char *path, const struct btf *btf)
{
	const struct btf *base = btf__base_btf(btf);
	__u32 start = base ? btf__type_cnt(base) : 1, cnt = btf__type_cnt(btf), id, raw_size;
	const struct btf_header *hdr = btf__raw_data(btf, &raw_size);
	size_t kcnt[KIND_CNT] = {}, kbytes[KIND_CNT] = {}, named = 0;
	const struct btf_type *t;
	int k;

	for (id = start; id < cnt; id++) {
		t = btf__type_by_id(btf, id);
		k = btf_kind(t);
		if (k >= KIND_CNT)
			k = BTF_KIND_UNKN;
		kcnt[k]++;
		kbytes[k] += type_rec_size(t);
		named += t->name_off != 0;
	}
	printf("file:    %s%s\n", path, base ? " (split BTF)" : "");
	if (base)
		printf("ids:     %u..%u (base has %u types)\n", start, cnt - 1, start - 1);
	printf("types:   %u (%zu named)\n", cnt - start, named);
	printf("%-12s %8s %10s\n", "kind", "count", "bytes");
	for (k = 1; k < KIND_CNT; k++)
		if (kcnt[k])
			printf("%-12s %8zu %10zu\n", kind_names[k], kcnt[k], kbytes[k]);
	if (kcnt[BTF_KIND_UNKN])
		printf("%-12s %8zu %10zu\n", "unknown", kcnt[0], kbytes[0]);
	printf("header:  %u bytes\n", hdr->hdr_len);
	printf("types:   %u bytes\n", hdr->type_len);
	printf("strings: %u bytes\n", hdr->str_len);
	printf("total:   %u bytes\n", raw_size);
}

/* The id-free rendering that `btf diff` compares, entry by entry. */
static int print_dump(const struct btf *btf)
{
	struct btf_canon *c = btf_canon__new(btf, BTF_CANON_ALL);
	size_t i, n;

	if (!c)
		return -errno;
	n = btf_canon__cnt(c);
	for (i = 0; i < n; i++)
		printf("%s\n", btf_canon__ent(c, i)->text);
	btf_canon__free(c);
	return 0;
}

enum {
	OPT_BASE = CLI_OPT_LONG,
	OPT_DUMP,
};

const struct cli_opt btf_stat_cli_opts[] = {
	CLI_OPT_STR("base", OPT_BASE, struct btf_stat_opts, base, "FILE",
		    "base BTF (raw or ELF) of split BTF", .kind = CLI_ARG_FILE),
	CLI_OPT_BOOL("dump", OPT_DUMP, struct btf_stat_opts, dump, true,
		     "print the id-free rendering 'btf diff' compares"),
	CLI_OPT_BOOL("verbose", 'v', struct btf_stat_opts, verbose, true, "show libbpf's messages"),
	CLI_OPT_HELP(struct btf_stat_opts, help),
	CLI_OPT_END,
};

static void print_help(void)
{
	fputs("usage: frugal btf stat [--base BASE] FILE\n\n"
	      "Count the types of FILE (raw BTF or an ELF's .BTF section) per kind,\n"
	      "with the bytes each kind takes, and the sizes of the type and string\n"
	      "sections.  With --base, FILE is split BTF on BASE and only its own\n"
	      "types are counted.\n\n", stdout);
	cli_opts__help(stdout, btf_stat_cli_opts);
}

int btf_stat_opts__parse(struct btf_stat_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	return btf_cmd__parse(btf_stat_cli_opts, o, &o->help, argc, argv, &o->path, 1,
			      "stat takes one file");
}

int btf_stat_main(int argc, char **argv)
{
	struct btf *base = NULL, *btf = NULL;
	struct btf_stat_opts o;
	int err, ret;

	ret = btf_cmd__start(btf_stat_opts__parse(&o, argc, argv), &o.help, &o.verbose, print_help);
	if (ret >= 0)
		return ret;
	ret = EXIT_RUNTIME;
	if (btf_cmd__load(o.path, o.base, &base, &btf))
		goto out;
	if (o.dump) {
		err = print_dump(btf);
		if (err) {
			cli_err(o.path, "rendering: %s", strerror(-err));
			goto out;
		}
	} else {
		print_stat(o.path, btf);
	}
	ret = EXIT_OK;
out:
	btf__free(btf);
	btf__free(base);
	return ret;
}
