// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi OLD_DIR NEW_DIR`: two trees, each a vmlinux (or
 * vmlinux-VERSION, as an unpacked -dbg package has it) and modules (*.ko)
 * anywhere below it.  The vmlinux pair is compared, then each module pair
 * of the same path (below lib/modules/VERSION/ if they are there, else
 * below the tree), each module read on its own tree's vmlinux as base; a module in one tree only has all its exports
 * added or removed.  Each comparison is the one of two files
 * (abi__compare_files, abi_side.c), and its report is moved into one
 * whose symbols and types carry their object's name ("tun:
 * tun_get_socket"), so that a type is described once per object and the
 * totals and the exit status cover every object.  abi__compare(), the
 * stage's entry, starts here: two trees, or else two files.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/abi/abi_int.h"
#include "lib/array.h"
#include "lib/iodir.h"

struct tree {
	const char *root;
	char *vmlinux;		/* relative to ROOT; NULL: none met */
	int vdepth;		/* its depth: the shallowest vmlinux is the tree's */
	char **ko;		/* relative paths, sorted */
	size_t nko, ko_cap;
	const char *symvers;	/* --symvers-a/-b, or ROOT/Module.symvers if there */
	char symvers_buf[PATH_MAX];
	char *bad;		/* the first file we cannot read (a compressed module) */
	int err;		/* -errno from the callback */
};

bool abi__is_dir(const char *path)
{
	struct stat st;

	return path && !stat(path, &st) && S_ISDIR(st.st_mode);
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/*
 * A kernel: "vmlinux", or "vmlinux-VERSION" as an unpacked -dbg package
 * has it (usr/lib/debug/boot/vmlinux-6.1.0-47-cloud-amd64).
 */
static bool is_vmlinux(const char *name)
{
	return !strcmp(name, "vmlinux") ||
	       (!strncmp(name, "vmlinux-", 8) && name[8] && !ends_with(name, ".xz") &&
		!ends_with(name, ".zst") && !ends_with(name, ".gz"));
}

/*
 * What pairs a module with the other tree's: its path below
 * lib/modules/VERSION/ when it has one (an unpacked package: the two
 * VERSIONs differ), else its whole path in the tree.
 */
static const char *ko_key(const char *rel)
{
	const char *p = rel, *at;

	while ((at = strstr(p, "lib/modules/"))) {
		if (at == rel || at[-1] == '/') {
			at = strchr(at + strlen("lib/modules/"), '/');
			return at ? at + 1 : rel;
		}
		p = at + 1;
	}
	return rel;
}

static int tree_cb(const struct iodir_walk_entry *e, void *ctx)
{
	struct tree *t = ctx;
	const char *rel = e->path + strlen(t->root);
	struct stat st;
	char *copy;

	while (*rel == '/')
		rel++;
	if (e->err)
		return IODIR_WALK_CONTINUE;
	/* A link to a file counts (a cache's vmlinux often is one); to a directory, not walked. */
	if (e->type != DT_REG &&
	    (e->type != DT_LNK || fstatat(e->dirfd, e->name, &st, 0) || !S_ISREG(st.st_mode)))
		return IODIR_WALK_CONTINUE;
	if (is_vmlinux(e->name)) {
		if (t->vmlinux && t->vdepth <= e->depth)
			return IODIR_WALK_CONTINUE;
		free(t->vmlinux);
		t->vdepth = e->depth;
		t->vmlinux = strdup(rel);
		if (!t->vmlinux)
			goto cleanup;
		return IODIR_WALK_CONTINUE;
	}
	/* Decompressing is not done here: name the file rather than skip it. */
	if ((ends_with(e->name, ".ko.xz") || ends_with(e->name, ".ko.zst") ||
	     ends_with(e->name, ".ko.gz")) && !t->bad) {
		t->bad = strdup(e->path);
		if (!t->bad)
			goto cleanup;
		return IODIR_WALK_CONTINUE;
	}
	if (!ends_with(e->name, ".ko"))
		return IODIR_WALK_CONTINUE;
	if (array__grow(&t->ko, &t->ko_cap, t->nko + 1, sizeof(*t->ko), 256))
		goto cleanup;
	copy = strdup(rel);
	if (!copy)
		goto cleanup;
	t->ko[t->nko++] = copy;
	return IODIR_WALK_CONTINUE;
cleanup:	/* only out of memory comes here */
	t->err = -ENOMEM;
	return IODIR_WALK_STOP;
}

static int cmp_key(const void *a, const void *b)
{
	return strcmp(ko_key(*(char *const *)a), ko_key(*(char *const *)b));
}

static void tree__free(struct tree *t)
{
	size_t i;

	for (i = 0; i < t->nko; i++)
		free(t->ko[i]);
	free(t->ko);
	free(t->vmlinux);
	free(t->bad);
}

static int tree__read(struct tree *t, const char *root, struct abi_err *e)
{
	int err;

	t->root = root;
	err = iodir__walk(AT_FDCWD, root, IODIR_WALK_MAX_DEPTH, tree_cb, t);
	if (!err)
		err = t->err;
	if (err)
		return abi_fail(e, root, "%s", strerror(-err));
	if (t->bad)
		return abi_fail(e, t->bad, "compressed module: decompress the tree first "
				"(xz -d, zstd -d), btf abi reads *.ko");
	if (!t->vmlinux)
		return abi_fail(e, root, "no vmlinux below it (a tree is a vmlinux and its modules)");
	qsort(t->ko, t->nko, sizeof(*t->ko), cmp_key);
	return 0;
}

/* "net/tun.ko" -> "tun" (module names are unique in a kernel). */
static char *object_name(const char *rel)
{
	const char *slash = strrchr(rel, '/');
	const char *b = slash ? slash + 1 : rel;
	size_t n = strlen(b);

	if (is_vmlinux(b))
		return strdup("vmlinux");	/* vmlinux-VERSION: one name for both trees */
	if (n > 3 && !strcmp(b + n - 3, ".ko"))
		n -= 3;
	return strndup(b, n);
}

static int prefixed(char **s, const char *obj)
{
	char *p;

	if (!*s)
		return 0;
	if (asprintf(&p, "%s: %s", obj, *s) < 0)
		return -ENOMEM;
	free(*s);
	*s = p;
	return 0;
}

static int32_t shift(int32_t i, size_t by)
{
	return i < 0 ? i : (int32_t)(i + by);
}

/*
 * Move SRC's symbols, changed types and changes into DST, names prefixed
 * with OBJ; SRC is freed.  The edges stay behind: the paths are text by
 * now, which type follows which is known (abi__find_causes), and the
 * report does not walk the graph.  So do the types that did not change:
 * the report never reads them, and kept (with their names) from each of
 * the 277 objects of Debian's 6.1.0-54 -> 55 trees they took the peak RSS
 * from 68 MB to 147 MB.  NEW_IDX: each SRC node's index in DST.
 */
static int merge(struct abi *dst, struct abi *src, const char *obj)
{
	size_t i, k, choff = dst->nch, soff = dst->nsyms;
	uint32_t *new_idx = malloc((src->nn ? src->nn : 1) * sizeof(*new_idx));
	int err = 0;

	if (!new_idx ||
	    array__grow(&dst->nodes, &dst->nodes_cap, dst->nn + src->nn, sizeof(*dst->nodes), 256) ||
	    array__grow(&dst->ch, &dst->ch_cap, dst->nch + src->nch, sizeof(*dst->ch), 256) ||
	    array__grow(&dst->syms, &dst->syms_cap, dst->nsyms + src->nsyms, sizeof(*dst->syms), 256)) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (i = 0, k = dst->nn; i < src->nn; i++)
		new_idx[i] = src->nodes[i].is_sym || src->nodes[i].nchanges ? (uint32_t)k++ : UINT32_MAX;
	for (i = 0; !err && i < src->nn; i++) {
		struct abi_node *n = &dst->nodes[dst->nn];

		if (new_idx[i] == UINT32_MAX)
			continue;
		*n = src->nodes[i];
		n->ch_head = shift(n->ch_head, choff);
		n->ch_tail = shift(n->ch_tail, choff);
		n->ed_head = -1;
		n->via = -1;
		/* What a changed type follows changed too (its size): it is kept. */
		n->follows = n->follows < 0 ? -1 : (int32_t)new_idx[n->follows];
		n->path_sym += (uint32_t)soff;
		for (k = 0; k < n->nsyms; k++)
			n->syms[k] += (uint32_t)soff;
		if (!err && n->name && n->bare == 0)
			n->bare = (uint16_t)(strlen(obj) + 2);	/* past "obj: " */
		if (!err)
			err = prefixed(&n->name, obj);
		src->nodes[i].name = NULL;
		src->nodes[i].syms = NULL;
		src->nodes[i].path = NULL;
		dst->nn++;
	}
	for (i = 0; i < src->nch; i++) {
		dst->ch[dst->nch] = src->ch[i];
		dst->ch[dst->nch].next = shift(src->ch[i].next, choff);
		src->ch[i].text = NULL;
		dst->nch++;
	}
	for (i = 0; i < src->nsyms; i++) {
		struct abi_sym *s = &dst->syms[dst->nsyms];

		*s = src->syms[i];
		s->node = s->compared ? new_idx[s->node] : 0;
		if (!err)
			err = prefixed(&s->name, obj);
		src->syms[i].name = NULL;
		src->syms[i].paths = NULL;
		src->syms[i].npaths = 0;
		dst->nsyms++;
	}
	dst->supp_given |= src->supp_given;
	dst->supp_syms += src->supp_syms;
	dst->supp_types += src->supp_types;
	dst->no_crcs[0] |= src->no_crcs[0];
	dst->no_crcs[1] |= src->no_crcs[1];
	dst->units_model |= src->units_model;
	dst->units_syms += src->units_syms;
	dst->units_found += src->units_found;
cleanup:
	free(new_idx);
	abi__free(src);
	memset(src, 0, sizeof(*src));
	src->pairs = (struct idxmap)IDXMAP_INIT;
	return err;
}

/* One object: A and B relative paths in the trees (NULL: not in that tree). */
static int compare_object(const struct btf_abi_opts *o, const struct tree *t, const char *a,
			  const char *b, bool module, struct abi *all, struct abi_err *e)
{
	struct abi one = { .pairs = IDXMAP_INIT };
	char path[2][PATH_MAX], base[2][PATH_MAX];
	const char *p[2] = { NULL, NULL }, *bs[2] = { NULL, NULL }, *rel[2] = { a, b };
	char *obj = object_name(a ? a : b);
	struct btf_abi_opts oo = *o;
	int i, err = -1;

	/* A tree's Module.symvers names the vmlinux's exports: a -dbg vmlinux has no __ksymtab. */
	oo.exports_only = module;
	for (i = 0; i < 2; i++)
		oo.symvers[i] = module || !rel[i] ? NULL : t[i].symvers;

	if (!obj)
		goto cleanup;
	for (i = 0; i < 2; i++) {
		if (!rel[i])
			continue;
		snprintf(path[i], sizeof(path[i]), "%s/%s", t[i].root, rel[i]);
		p[i] = path[i];
		if (module) {
			snprintf(base[i], sizeof(base[i]), "%s/%s", t[i].root, t[i].vmlinux);
			bs[i] = base[i];
		}
	}
	if (abi__compare_files(&oo, p, bs, &one, e))
		goto cleanup;
	err = merge(all, &one, obj);
	if (err)
		abi_fail(e, p[0] ? p[0] : p[1], "%s", strerror(-err));
cleanup:
	abi__free(&one);
	free(obj);
	return err;
}

/* The caller checked that both are directories, and no --base. */
int abi_tree__compare(const struct btf_abi_opts *o, struct abi *all, struct abi_err *e)
{
	struct tree t[2] = {};
	size_t i = 0, j = 0;
	int c, k, err = -1;

	for (k = 0; k < 2; k++) {
		if (tree__read(&t[k], o->path[k], e))
			goto cleanup;
		t[k].symvers = o->symvers[k];
		snprintf(t[k].symvers_buf, sizeof(t[k].symvers_buf), "%s/Module.symvers", o->path[k]);
		if (!t[k].symvers && !access(t[k].symvers_buf, R_OK))
			t[k].symvers = t[k].symvers_buf;
	}
	if (compare_object(o, t, t[0].vmlinux, t[1].vmlinux, false, all, e))
		goto cleanup;
	while (i < t[0].nko || j < t[1].nko) {
		if (i == t[0].nko)
			c = 1;
		else if (j == t[1].nko)
			c = -1;
		else
			c = strcmp(ko_key(t[0].ko[i]), ko_key(t[1].ko[j]));
		if (compare_object(o, t, c <= 0 ? t[0].ko[i] : NULL, c >= 0 ? t[1].ko[j] : NULL,
				   true, all, e))
			goto cleanup;
		i += c <= 0;
		j += c >= 0;
	}
	err = 0;
cleanup:
	for (k = 0; k < 2; k++)
		tree__free(&t[k]);
	return err;
}

int abi__compare(const struct btf_abi_opts *o, struct abi **out, struct abi_err *e)
{
	struct abi *abi = calloc(1, sizeof(*abi));
	int err;

	*out = NULL;
	if (!abi)
		return abi_fail(e, o->path[0], "%s", strerror(ENOMEM));
	abi->pairs = (struct idxmap)IDXMAP_INIT;
	if (abi__is_dir(o->path[0]) || abi__is_dir(o->path[1]))
		err = abi_tree__compare(o, abi, e);
	else
		err = abi__compare_files(o, o->path, o->base, abi, e);
	if (!err && abi__causes(abi))
		err = abi_fail(e, o->path[0], "%s", strerror(ENOMEM));
	if (err) {
		abi__delete(abi);
		return err;
	}
	*out = abi;
	return 0;
}
