// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf diff A B`: compare two BTF blobs by meaning, not by type id.
 * Both are rendered id-free (btf/view/canon.c) and matched as sorted multisets;
 * what is left is printed as only in A (-), only in B (+) or changed (~).
 * Exit status as diff(1): 0 same, 1 different, 2 trouble (usage, bad input).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

enum {
	OPT_KINDS = BTF_OPT_NEXT,
	OPT_FULL,
};

static int set_kinds(void *ctx, const struct cli_opt *r, const char *arg)
{
	struct btf_diff_opts *o = ctx;

	(void)r;
	if (btf_canon__parse_cats(arg, &o->kinds))
		return cli_usage_err("--kinds: unknown kind in '%s'", arg);
	return 0;
}

#define DO struct btf_diff_opts	/* the type every row binds into */

const struct cli_opt btf_diff_cli_opts[] = {
	BTF_OPT_BASES(DO, base,
		      "A and B are split BTF on base FILE (raw or ELF), e.g. vmlinux for modules",
		      "base of A alone (split BTF of two encoders, each on its own base)",
		      "base of B alone"),
	CLI_OPT_CALLBACK("kinds", OPT_KINDS, required_argument, "LIST",
			 "compare only these: int,float,struct,union,enum,fwd,typedef,anon,\n"
			 "func,var,datasec,decl_tag; or types, decls, all",
			 set_kinds, 0, .kind = CLI_ARG_LIST, .words = btf_canon__cats_word),
	CLI_OPT_BOOL("summary", 's', DO, summary, true,
		     "print counts per kind instead of the differences"),
	CLI_OPT_BOOL("full", OPT_FULL, DO, full, true,
		     "print the whole rendering of entries only in A or only in B"),
	CLI_OPT_BOOL("quiet", 'q', DO, quiet, true, "print nothing; exit status only"),
	CLI_OPT_BOOL("verbose", 'v', DO, verbose, true, "show libbpf's messages"),
	CLI_OPT_HELP(DO, help),
	CLI_OPT_END,
};

#undef DO

/* Counts per category and kind of difference, for --summary. */
struct diff_ctx {
	const struct btf_diff_opts *opts;
	long cnt[BTF_CANON_CAT_CNT][3];
	size_t ents[2][BTF_CANON_CAT_CNT];
};

static void print_help(void)
{
	fputs("usage: frugal btf diff [OPTIONS] A B\n\n"
	      "Compare two BTF blobs (raw BTF or an ELF's .BTF section) by meaning:\n"
	      "each named type, function, variable, datasec and decl tag is rendered\n"
	      "without type ids and the two sets are matched.  Lines start with\n"
	      "'-' (only in A), '+' (only in B) or '~' (changed, then its lines).\n"
	      "Exit status: 0 same, 1 different, 2 usage error or unreadable input.\n\n",
	      stdout);
	cli_opts__help(stdout, btf_diff_cli_opts);
}

int btf_diff_opts__parse(struct btf_diff_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->kinds = BTF_CANON_ALL;
	return btf_cmd__parse(btf_diff_cli_opts, o, &o->help, argc, argv, o->path, 2,
			      "diff takes two files, A and B");
}

/* Does line [P, P+LEN) occur in TEXT among the lines not yet USED? */
static int find_line(const char **lines, const size_t *lens, bool *used, size_t n,
		     const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!used[i] && lens[i] == len && !memcmp(lines[i], p, len))
			return (int)i;
	return -1;
}

static size_t split_lines(const char *text, const char **lines, size_t *lens, size_t max)
{
	size_t n = 0;
	const char *p = text, *nl;

	while (n < max) {
		nl = strchr(p, '\n');
		lines[n] = p;
		lens[n++] = nl ? (size_t)(nl - p) : strlen(p);
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

static size_t count_lines(const char *text)
{
	size_t n = 1;

	for (; *text; text++)
		n += *text == '\n';
	return n;
}

/* The lines of A not in B ("- ") and of B not in A ("+ "), as multisets. */
static int print_changed(const char *ta, const char *tb)
{
	size_t na = count_lines(ta), nb = count_lines(tb), i, shown = 0;
	const char **la = calloc(na + nb, sizeof(*la));
	size_t *lens = calloc(na + nb, sizeof(*lens));
	bool *used_b = calloc(nb, sizeof(*used_b)), *used_a = calloc(na, sizeof(*used_a));
	int err = 0, k;

	if (!la || !lens || !used_a || !used_b) {
		err = -ENOMEM;
		goto out;
	}
	na = split_lines(ta, la, lens, na);
	nb = split_lines(tb, la + na, lens + na, nb);
	for (i = 0; i < na; i++) {
		k = find_line(la + na, lens + na, used_b, nb, la[i], lens[i]);
		if (k >= 0)
			used_a[i] = used_b[k] = true;
	}
	for (i = 0; i < na; i++)
		if (!used_a[i] && ++shown)
			printf("    - %.*s\n", (int)lens[i], la[i]);
	for (i = 0; i < nb; i++)
		if (!used_b[i] && ++shown)
			printf("    + %.*s\n", (int)lens[na + i], la[na + i]);
	if (!shown)
		printf("    (same lines in a different order)\n    - %s\n    + %s\n", ta, tb);
out:
	free(used_a);
	free(used_b);
	free(lens);
	free(la);
	return err;
}

static void print_full(char sign, const char *text)
{
	const char *p = text, *nl;

	for (;;) {
		nl = strchr(p, '\n');
		printf("    %c %.*s\n", sign, nl ? (int)(nl - p) : (int)strlen(p), p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

static int on_diff(enum btf_diff_kind kind, const struct btf_canon_ent *a,
		   const struct btf_canon_ent *b, void *vctx)
{
	struct diff_ctx *ctx = vctx;
	const struct btf_canon_ent *e = a ? a : b;

	ctx->cnt[e->cat][kind]++;
	if (ctx->opts->quiet || ctx->opts->summary)
		return 0;
	switch (kind) {
	case BTF_DIFF_ONLY_A:
		printf("- %s\n", a->key);
		if (ctx->opts->full)
			print_full('-', a->text);
		return 0;
	case BTF_DIFF_ONLY_B:
		printf("+ %s\n", b->key);
		if (ctx->opts->full)
			print_full('+', b->text);
		return 0;
	case BTF_DIFF_CHANGED:
		printf("~ %s\n", a->key);
		return print_changed(a->text, b->text);
	}
	return 0;
}

static void print_summary(const struct diff_ctx *ctx, const char *const *path)
{
	long tot[3] = {};
	int c, k;

	printf("A: %s\nB: %s\n", path[0], path[1]);
	printf("%-10s %8s %8s %8s %8s %8s\n", "kind", "A", "B", "only-A", "only-B", "changed");
	for (c = 0; c < BTF_CANON_CAT_CNT; c++) {
		if (!(ctx->opts->kinds & (1u << c)))
			continue;
		printf("%-10s %8zu %8zu %8ld %8ld %8ld\n", btf_canon__cat_name(c),
		       ctx->ents[0][c], ctx->ents[1][c], ctx->cnt[c][BTF_DIFF_ONLY_A],
		       ctx->cnt[c][BTF_DIFF_ONLY_B], ctx->cnt[c][BTF_DIFF_CHANGED]);
		for (k = 0; k < 3; k++)
			tot[k] += ctx->cnt[c][k];
	}
	printf("%-10s %8s %8s %8ld %8ld %8ld\n", "total", "", "", tot[0], tot[1], tot[2]);
}

static void count_ents(struct diff_ctx *ctx, int side, const struct btf_canon *c)
{
	size_t i, n = btf_canon__cnt(c);

	for (i = 0; i < n; i++)
		ctx->ents[side][btf_canon__ent(c, i)->cat]++;
}

int btf_diff_main(int argc, char **argv)
{
	struct btf_diff_opts o;
	struct diff_ctx ctx = { .opts = &o };
	struct btf *base[2] = {}, *btf[2] = {};
	struct btf_canon *canon[2] = {};
	long n;
	int i, ret;

	ret = btf_cmd__start(btf_diff_opts__parse(&o, argc, argv), &o.help, &o.verbose, print_help);
	if (ret >= 0)
		return ret;
	ret = EXIT_USAGE;
	for (i = 0; i < 2; i++) {
		if (btf_cmd__load(o.path[i], o.base[i], &base[i], &btf[i]))
			goto out;
		canon[i] = btf_canon__new(btf[i], o.kinds);
		if (!canon[i]) {
			cli_err(o.path[i], "rendering: %s", strerror(errno));
			goto out;
		}
		count_ents(&ctx, i, canon[i]);
	}
	n = btf_canon__diff(canon[0], canon[1], on_diff, &ctx);
	if (n < 0) {
		cli_err(NULL, "comparing: %s", strerror((int)-n));
		goto out;
	}
	if (o.summary && !o.quiet)
		print_summary(&ctx, o.path);
	else if (n && !o.quiet)
		printf("%ld difference%s\n", n, n == 1 ? "" : "s");
	ret = n ? 1 : EXIT_OK;
out:
	for (i = 0; i < 2; i++) {
		btf_canon__free(canon[i]);
		btf__free(btf[i]);
		btf__free(base[i]);
	}
	return ret;
}
