// SPDX-License-Identifier: GPL-2.0
/*
 * Which base a module is encoded on, and when it is made: the encoder's
 * base policies (enum enc_base_policy), each a row of steps, beside the
 * pruning they use (encode_base.c).
 *
 *  - none: no --btf_base, BTF of its own;
 *  - whole: the whole base loaded before anything else (--full_base, and
 *    the retry when a pruned base turned out to lack a string); under
 *    pahole 1.32's rules deduplicated by libbpf 1.7 on it;
 *  - dwarf (pahole 1.24's and 1.30's rules): the base pruned to the
 *    names the module's DWARF holds, once that is open;
 *  - stand-in (1.32's): the module made on an empty base, then, at
 *    dedup (encode.c, enc_dedup), its base pruned to the strings of its
 *    BTF and libbpf 1.7 opened on it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/encode/dedup_lb_int.h"
#include "btf/encode/encode_int.h"
#include "lib/dwarf_scan.h"
#include "lib/elf_file.h"

/*
 * Split BTF under pahole 1.32's rules is deduplicated by libbpf 1.7, as
 * pahole 1.32 is (Makefile: "libbpf 1.7's dedup"): it folds a module's
 * copies of base types that the system's libbpf 1.1 keeps.  Its base is
 * ours (pruned or whole), parsed once more by that libbpf.  vmlinux keeps
 * the system's dedup: both give the same bytes on it, and
 * tests/btf/kernel*-pahole132.sh hold vmlinux to pahole 1.32's too.
 */
static int open_lb(struct enc_ctx *ctx)
{
	const void *raw;
	uint32_t size;

	raw = btf__raw_data(ctx->base, &size);
	ctx->lb = raw ? dedup_lb__new(raw, size) : NULL;
	if (ctx->lb)
		ctx->base_strs = ((const struct btf_header *)raw)->str_len;
	if (!ctx->lb)
		return enc_set_err(ctx->opts, -ENOMEM, "base BTF: libbpf %s cannot read it",
			       dedup_lb__version());
	return 0;
}

static int load_base(struct enc_basing *b, struct enc_ctx *ctx)
{
	const char *path = ctx->opts->base;
	long err;

	if (!path)
		return 0;
	(void)b;
	ctx->base = btf__parse(path, NULL);
	err = ctx->base ? 0 : -errno;
	if (err) {
		/* The file at fault is the base: name it first. */
		snprintf(ctx->opts->errbuf, ctx->opts->errlen, "%s: %s (--btf_base)",
			 path, access(path, R_OK) ? strerror(errno)
			 : err == -ENOENT ? "no .BTF section" : "not valid BTF");
		return -EINVAL;
	}
	return 0;
}

/*
 * A base of another machine is refused: its long, its pointers and its
 * pt_regs are that machine's, and split BTF made on it loads nowhere
 * (pahole 1.30 and 1.32 take it without a word).  An ELF base says its
 * machine.  Raw BTF (/sys/kernel/btf/vmlinux, a --btf_encode_detached
 * file) names none, and its pointer size is only known once all of it is
 * parsed, which the pruned bases exist to avoid: there only the byte order
 * its header is written in is compared, and an x86_64 raw base under an
 * aarch64 module (both 64-bit little-endian) goes through.  What cannot be
 * opened or read is left to the base's loading, which names it.
 */
static int check_base_machine(struct enc_ctx *ctx)
{
	const struct btf_enc_opts *o = ctx->opts;
	const GElf_Ehdr *mod = &ctx->ef.ehdr;
	char why[128], b1[24], b2[24];
	struct elf_file ef;
	uint8_t magic[2];
	ssize_t n;
	bool big;
	int fd;

	if (elf_file__open(&ef, o->base, why, sizeof(why)) == 0) {
		uint16_t m = ef.ehdr.e_machine;

		elf_file__close(&ef);
		if (m == mod->e_machine)
			return 0;
		snprintf(o->errbuf, o->errlen, "%s: base is for %s, %s is for %s (--btf_base)",
			 o->base, elf_machine__name(m, b1, sizeof(b1)), o->path,
			 elf_machine__name(mod->e_machine, b2, sizeof(b2)));
		return -EINVAL;
	}
	fd = open(o->base, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = pread(fd, magic, sizeof(magic), 0);
	close(fd);
	if (n != sizeof(magic))
		return 0;
	if ((magic[0] << 8 | magic[1]) == BTF_MAGIC)
		big = true;
	else if ((magic[1] << 8 | magic[0]) == BTF_MAGIC)
		big = false;
	else
		return 0;
	if (big == (mod->e_ident[EI_DATA] == ELFDATA2MSB))
		return 0;
	snprintf(o->errbuf, o->errlen, "%s: base is %s-endian BTF, %s is %s-endian %s (--btf_base)",
		 o->base, big ? "big" : "little", o->path, big ? "little" : "big",
		 elf_machine__name(mod->e_machine, b2, sizeof(b2)));
	return -EINVAL;
}

/* Section NAME's bytes in the (relocated) mapping; NULL, 0 when absent. */
static const uint8_t *sec_bytes(const struct enc_ctx *ctx, const char *name, size_t *len)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_file__section(&ctx->ef, name, &shdr);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	*len = d && d->d_buf ? d->d_size : 0;
	return *len ? d->d_buf : NULL;
}

/* The base's raw BTF, mapped: an ELF's .BTF section, or a raw file. */
struct base_map {
	struct elf_file ef;
	void *map;
	size_t len;
};

/* 0, or -ENOTSUP (load_base() then reads it, and names what is wrong). */
static int map_base(const char *path, struct base_map *m, const void **raw, size_t *size)
{
	char why[128];
	struct stat st;
	int fd;

	if (elf_file__open(&m->ef, path, why, sizeof(why)) == 0) {
		GElf_Shdr shdr;
		Elf_Scn *scn = elf_file__section(&m->ef, ".BTF", &shdr);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

		*raw = d ? d->d_buf : NULL;
		*size = d ? d->d_size : 0;
		return *raw ? 0 : -ENOTSUP;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOTSUP;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		m->map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m->map == MAP_FAILED)
			m->map = NULL;
		else
			m->len = st.st_size;
	}
	close(fd);
	*raw = m->map;
	*size = m->len;
	return m->map ? 0 : -ENOTSUP;
}

static void unmap_base(struct base_map *m)
{
	elf_file__close(&m->ef);
	if (m->map)
		munmap(m->map, m->len);
}

/* The strings the encoder makes: DATASECs' section names, the kfunc tags. */
static const char **name_extras(const struct enc_ctx *ctx, size_t *n)
{
	const char **extra = calloc(ctx->nsecs + 3, sizeof(*extra));
	size_t i;

	*n = 0;
	if (!extra)
		return NULL;
	extra[(*n)++] = ".data..percpu";
	extra[(*n)++] = "bpf_kfunc";
	extra[(*n)++] = "bpf_fastcall";
	for (i = 0; i < ctx->nsecs; i++)
		extra[(*n)++] = ctx->secs[i].name;
	return extra;
}

/*
 * The names a module's base is pruned to (encode_base.c), before it is
 * encoded: every string its DWARF holds (a superset of the names its BTF
 * will have, read with lib/dwarf_scan) and name_extras().  Not where
 * libdwfl relocates the DWARF (the mapping is not relocated): b->pruned
 * then stays NULL, and prune_base() loads the whole base.
 */
static int dwarf_names(struct enc_basing *b, struct enc_ctx *ctx)
{
	struct dwarf_scan_secs dw = { 0 };
	const char **extra;
	size_t n;
	int err;

	if (ctx->is_rel && !ctx->ef.priv)
		return 0;
	dw.info = sec_bytes(ctx, ".debug_info", &dw.info_len);
	dw.abbrev = sec_bytes(ctx, ".debug_abbrev", &dw.abbrev_len);
	dw.str = sec_bytes(ctx, ".debug_str", &dw.str_len);
	dw.line_str = sec_bytes(ctx, ".debug_line_str", &dw.line_str_len);
	dw.str_offsets = sec_bytes(ctx, ".debug_str_offsets", &dw.str_offsets_len);
	extra = name_extras(ctx, &n);
	if (!extra)
		return -ENOMEM;
	err = enc_base__names(&dw, extra, n, &b->pruned);
	free(extra);
	/* The strings are read again by the encoder when it needs them. */
	elf_file__drop_clean(&ctx->ef);
	if (err == -ENOMEM)
		return enc_set_err(ctx->opts, err, "cannot prune the base BTF: %s", strerror(-err));
	return 0;
}

/*
 * The same names under pahole 1.32's rules, after the module is encoded
 * on the stand-in: exactly the strings of its BTF (STRS, LEN bytes) and
 * name_extras().  No walk of its DWARF for them, and fewer names.
 */
int enc_basing__names(struct enc_basing *b, struct enc_ctx *ctx, const char *strs, uint32_t len)
{
	const char **extra;
	size_t n;
	int err;

	extra = name_extras(ctx, &n);
	if (!extra)
		return -ENOMEM;
	err = enc_base__names_strs(strs, len, extra, n, &b->pruned);
	free(extra);
	if (err == -ENOMEM)
		return enc_set_err(ctx->opts, err, "cannot prune the base BTF: %s", strerror(-err));
	return 0;
}

/*
 * ctx.base: the base pruned to b->pruned's names, in place of the
 * stand-in if there is one.  The whole base is never loaded, only mapped;
 * without names, or where pruning cannot be done, load_base() loads it.
 */
static int prune_base(struct enc_basing *b, struct enc_ctx *ctx)
{
	struct base_map bm = { .ef = { .fd = -1 } };
	const void *raw;
	size_t size;
	int err = 0;

	if (b->pruned) {
		err = map_base(ctx->opts->base, &bm, &raw, &size);
		/* With the stand-in, libbpf 1.7 deduplicates: prune by members too. */
		if (!err)
			err = enc_base__prune(b->pruned, raw, size, b->standin != NULL);
		unmap_base(&bm);
	}
	if (err) {
		enc_base__free(b->pruned);
		b->pruned = NULL;
	}
	if (err == -ENOMEM)
		return enc_set_err(ctx->opts, err, "cannot prune the base BTF: %s", strerror(-err));
	if (b->standin) {
		btf__free(b->standin);	/* what was made on it is gone */
		b->standin = ctx->base = NULL;
	}
	if (b->pruned)
		ctx->base = enc_base__btf(b->pruned);
	return b->pruned ? 0 : load_base(b, ctx);
}

/*
 * A module under pahole 1.32's rules is encoded on a stand-in base, an
 * empty BTF: every string its own, every id its own from 1.  Its base is
 * pruned to its strings before dedup (encode.c, enc_dedup), where libbpf
 * 1.7 looks its strings up in that base and moves its ids to follow it.
 */
static int make_standin(struct enc_basing *b, struct enc_ctx *ctx)
{
	const void *raw;
	uint32_t size;

	b->standin = btf__new_empty();
	raw = b->standin ? btf__raw_data(b->standin, &size) : NULL;
	if (!raw)
		return enc_set_err(ctx->opts, -ENOMEM, "out of memory");
	ctx->base = b->standin;
	ctx->base_strs = ((const struct btf_header *)raw)->str_len;
	return 0;
}

/* Whole, under pahole 1.32's rules: libbpf 1.7's dedup on it. */
static int whole_lb(struct enc_basing *b, struct enc_ctx *ctx)
{
	(void)b;
	return ctx->opts->rules >= BTF_RULES_PAHOLE_1_32 ? open_lb(ctx) : 0;
}

static int prune_by_dwarf(struct enc_basing *b, struct enc_ctx *ctx)
{
	int err = dwarf_names(b, ctx);

	return err ? err : prune_base(b, ctx);
}

typedef int (*basing_fn)(struct enc_basing *b, struct enc_ctx *ctx);

/* Each policy's steps: before the input is opened, and once it is. */
static const struct {
	basing_fn before, after;
} policies[] = {
	[ENC_BASE_NONE]		= { NULL, NULL },
	[ENC_BASE_WHOLE]	= { load_base, whole_lb },
	[ENC_BASE_DWARF]	= { NULL, prune_by_dwarf },
	[ENC_BASE_STANDIN]	= { NULL, make_standin },
};

enum enc_base_policy enc_base__policy(const struct btf_enc_opts *o, bool whole)
{
	if (!o->base)
		return ENC_BASE_NONE;
	if (whole)
		return ENC_BASE_WHOLE;
	return o->rules >= BTF_RULES_PAHOLE_1_32 ? ENC_BASE_STANDIN : ENC_BASE_DWARF;
}

int enc_basing__before(struct enc_basing *b, struct enc_ctx *ctx)
{
	basing_fn fn = policies[b->policy].before;

	return fn ? fn(b, ctx) : 0;
}

int enc_basing__after(struct enc_basing *b, struct enc_ctx *ctx)
{
	basing_fn fn = policies[b->policy].after;
	int err;

	/* The input's machine is known now: a base of another is refused first. */
	err = b->policy != ENC_BASE_NONE ? check_base_machine(ctx) : 0;
	return err ? err : fn ? fn(b, ctx) : 0;
}

int enc_basing__prune(struct enc_basing *b, struct enc_ctx *ctx)
{
	int err = prune_base(b, ctx);

	return err ? err : open_lb(ctx);
}

void enc_basing__free(struct enc_basing *b, struct enc_ctx *ctx)
{
	if (b->pruned)
		enc_base__free(b->pruned);	/* ctx.base is its */
	else
		btf__free(ctx->base);		/* the whole base, or the stand-in */
	b->pruned = NULL;
	b->standin = ctx->base = NULL;
}
