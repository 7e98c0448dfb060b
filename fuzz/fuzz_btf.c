// SPDX-License-Identifier: GPL-2.0
/*
 * BTF loading and `frugal btf diff` over arbitrary bytes.  The input is
 * written to a memfd and named by its /proc/self/fd path, so it goes
 * through the same btf_load() as a file on the command line (raw BTF, or
 * an ELF's .BTF section).  When it loads:
 *  - two renderings of the same bytes are equal, for every category mask
 *    tried, and a canon diffed against itself has no difference;
 *  - each entry has a key and a text, and its category is in the mask;
 *  - `frugal btf diff -q FILE FILE` exits 0 (2 when it cannot render);
 *  - `btf show`'s layouts of every struct and union end (check_layout()).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

static int memfd = -1;
static char path[64];

static int count_diff(enum btf_diff_kind kind, const struct btf_canon_ent *a,
		      const struct btf_canon_ent *b, void *ctx)
{
	(void)kind, (void)a, (void)b, (void)ctx;
	return 0;
}

static void check_canon(const struct btf_canon *c, unsigned int mask)
{
	const struct btf_canon_ent *e;
	size_t i;

	for (i = 0; i < btf_canon__cnt(c); i++) {
		e = btf_canon__ent(c, i);
		if (!e->key || !e->text || e->cat >= BTF_CANON_CAT_CNT || !(mask & (1u << e->cat)))
			abort();
	}
}

/* 0, or the error rendering failed with (on both). */
static int check_self(struct btf *a, struct btf *b, unsigned int mask)
{
	struct btf_canon *ca, *cb;

	ca = btf_canon__new(a, mask);
	cb = btf_canon__new(b, mask);
	/* Rendering may fail only for want of memory or a monstrous entry, on both. */
	if (!ca || !cb) {
		if (ca || cb || (errno != ENOMEM && errno != E2BIG))
			abort();
		return -errno;
	}
	check_canon(ca, mask);
	if (btf_canon__cnt(ca) != btf_canon__cnt(cb))
		abort();
	if (btf_canon__diff(ca, cb, count_diff, NULL) != 0 ||
	    btf_canon__diff(ca, ca, count_diff, NULL) != 0)
		abort();
	btf_canon__free(cb);
	btf_canon__free(ca);
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	cli_libbpf_logs();
	memfd = memfd_create("btf", 0);
	if (memfd < 0)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

/*
 * pahole's layout view of every struct and union, plain and -E, and of
 * each kind's first type by -C's lookup: it ends (a BTF whose types hold
 * themselves is refused with ELOOP, not printed for ever) and prints into
 * a sink; the reorganized copy of the first struct too.
 */
static void check_layout(const struct btf *btf)
{
	static FILE *sink;
	uint32_t *ids, *group, n, i, e;

	if (!sink)
		sink = fopen("/dev/null", "w");
	for (e = 0; e < 2; e++) {
		struct btf_layout *l = btf_layout__new(btf, &(struct btf_layout_conf){
			.pahole = e ? 130 : 132, .expand_types = e, .hex = e });

		if (!l) {
			if (errno != ELOOP && errno != ENOMEM)
				abort();
			return;
		}
		if (!btf_layout__walk(l, &ids, &group, &n)) {
			for (i = 0; i < n; i++)
				btf_layout__print(l, ids[i], sink);
			free(ids);
			free(group);
		}
		btf_layout__free(l);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "diff", "-q", path, path, NULL };
	struct btf *a, *b;
	char why[256] = "";
	int err;

	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	err = btf_load(path, NULL, &a, why, sizeof(why));
	if (err) {
		if (!why[0] || a)
			abort();
		return 0;
	}
	if (btf_load(path, NULL, &b, why, sizeof(why)))
		abort();
	check_layout(a);
	err = check_self(a, b, BTF_CANON_ALL);
	check_self(a, b, BTF_CANON_TYPES);
	check_self(a, b, 1u << BTF_CANON_ANON | 1u << BTF_CANON_FUNC);
	btf__free(b);
	btf__free(a);
	/* The command says "same" (0), or "trouble" (2) when it cannot render. */
	if (btf_diff_main(4, argv) != (err ? 2 : 0))
		abort();
	return 0;
}
