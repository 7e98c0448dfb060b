// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi OLD NEW` on two files: each side loaded (its .BTF, raw
 * BTF, or its DWARF encoded through btf/encode/encode.h), the symbols each
 * exports (or --symbols, --symvers), those in both compared (btf/abi/abi.c)
 * and --suppressions applied.  Nothing is printed but -v's logs: a failure
 * is named in the caller's struct abi_err.
 */
#include <dwarf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <bpf/btf.h>

#include "btf/abi/abi_base_int.h"
#include "btf/abi/abi_int.h"
#include "btf/abi/abi_lists_int.h"
#include "btf/abi/abi_syms_int.h"
#include "btf/abi/abi_units_int.h"
#include "btf/encode/encode.h"
#include "btf/view/view.h"
#include "cli/cli.h"
#include "lib/array.h"
#include "lib/elf_file.h"
#include "lib/hash.h"
#include "lib/io.h"

/*
 * A second FUNC of a name already indexed: vmlinux's BTF has two strncat,
 * the exported one and fortify's inline copy, of other prototypes.
 */
struct side_alt {
	uint32_t idx;		/* the name's entry in IDS */
	uint32_t id;
};

/* One side: its BTF, its FUNCs and VARs by name, the names it exports. */
struct side {
	const char *path;
	struct btf *base, *btf;
	char enc_dir[2][PATH_MAX];	/* base's, own BTF encoded from DWARF here */
	uint32_t *ids;		/* named FUNC and VAR ids, indexed by BYNAME */
	size_t nids, ids_cap;
	size_t nown;		/* IDS[0, NOWN) are the side's own, not its base's */
	struct idxmap byname;
	struct side_alt *alts;	/* FUNCs and VARs of a name met after the first */
	size_t nalts, alts_cap;
	char **names;		/* the symbols compared, sorted, unique */
	size_t nnames, names_cap;
	struct abi_elf elf;	/* NAMES' addresses and kinds, by index */
	uint32_t *pick;		/* NAMES' FUNC found by its address; 0: not */
};

struct name_ctx {
	const struct btf *btf;
	const uint32_t *ids;
};

static bool name_eq(void *vctx, uint32_t idx, const void *key)
{
	const struct name_ctx *ctx = vctx;
	const struct btf_type *t = btf__type_by_id(ctx->btf, ctx->ids[idx]);

	return !strcmp(btf__name_by_offset(ctx->btf, t->name_off), key);
}

static uint32_t first_id(const struct side *s)
{
	return s->base ? btf__type_cnt(s->base) : 1;
}

/* Index the named FUNCs and VARs of ids [FROM, TO); the first of a name wins. */
static int side__index_range(struct side *s, uint32_t from, uint32_t to)
{
	struct name_ctx ctx;
	const struct btf_type *t;
	const char *name;
	uint32_t id, idx;
	int r;

	for (id = from; id < to; id++) {
		t = btf__type_by_id(s->btf, id);
		name = btf__name_by_offset(s->btf, t->name_off);
		if ((!btf_is_func(t) && !btf_is_var(t)) || !name || !*name)
			continue;
		if (array__grow(&s->ids, &s->ids_cap, s->nids + 1, sizeof(*s->ids), 1024))
			return -ENOMEM;
		s->ids[s->nids] = id;
		ctx.btf = s->btf;
		ctx.ids = s->ids;
		idx = (uint32_t)s->nids;
		r = idxmap__find_or_add(&s->byname, hash_fnv1a_str(name), name_eq, &ctx, name, &idx);
		if (r < 0)
			return r;
		if (r == 0) {
			s->nids++;
			continue;
		}
		if (array__grow(&s->alts, &s->alts_cap, s->nalts + 1, sizeof(*s->alts), 64))
			return -ENOMEM;
		s->alts[s->nalts].idx = idx;
		s->alts[s->nalts++].id = id;
	}
	return 0;
}

/* By idx, then in the BTF's order (qsort is not stable: the id decides). */
static int cmp_alt(const void *a, const void *b)
{
	const struct side_alt *x = a, *y = b;

	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * By name: the side's own FUNCs and VARs first, so a module's function
 * wins over a base's function of the same name (a static one, say); then
 * the base's, for a symbol whose BTF the encoder left in the base.
 */
static int side__index(struct side *s)
{
	int r = side__index_range(s, first_id(s), btf__type_cnt(s->btf));

	s->nown = s->nids;
	if (!r && s->base)
		r = side__index_range(s, 1, first_id(s));
	if (!r && s->nalts)
		qsort(s->alts, s->nalts, sizeof(*s->alts), cmp_alt);
	return r;
}

static uint32_t side__find(const struct side *s, const char *name)
{
	struct name_ctx ctx = { s->btf, s->ids };
	uint32_t idx;

	if (idxmap__find(&s->byname, hash_fnv1a_str(name), name_eq, &ctx, name, &idx))
		return 0;
	return s->ids[idx];
}

#define SIDE_CANDIDATES 8
/* A side's pick when DWARF's function at the address is none of its FUNCs. */
#define SIDE_PICK_NONE UINT32_MAX

/* NAME's FUNCs or VARs on S, the first indexed first: how many, at most MAX. */
static size_t side__candidates(const struct side *s, const char *name, uint32_t *out, size_t max)
{
	struct name_ctx ctx = { s->btf, s->ids };
	size_t lo = 0, hi = s->nalts, mid, n = 0;
	uint32_t idx;

	if (idxmap__find(&s->byname, hash_fnv1a_str(name), name_eq, &ctx, name, &idx))
		return 0;
	out[n++] = s->ids[idx];
	while (lo < hi) {	/* ALTS is sorted by idx: the first of IDX's */
		mid = lo + (hi - lo) / 2;
		if (s->alts[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < s->nalts && s->alts[lo].idx == idx && n < max; lo++)
		out[n++] = s->alts[lo].id;
	return n;
}

/* A FUNC's or VAR's type as text: "int (struct sk_buff *, u32)", "struct net". */
static void symbol_sig(const struct btf *btf, uint32_t id, char *buf, size_t len)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *proto;
	const struct btf_param *p;
	char one[256];
	size_t pos;
	uint16_t i;

	if (!btf_is_func(t)) {
		abi__type_name(btf, t->type, buf, len);
		return;
	}
	proto = btf__type_by_id(btf, t->type);
	abi__type_name(btf, proto->type, buf, len);
	for (i = 0, p = btf_params(proto); i < btf_vlen(proto); i++, p++) {
		pos = strlen(buf);
		snprintf(buf + pos, len - pos, "%s%s", i ? ", " : " (",
			 abi__type_name(btf, p->type, one, sizeof(one)));
	}
	pos = strlen(buf);
	snprintf(buf + pos, len - pos, ")");
}

/* NAME's index in S's sorted names, or -1. */
static long side__name_idx(const struct side *s, const char *name)
{
	size_t lo = 0, hi = s->nnames, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(name, s->names[mid]);
		if (!c)
			return (long)mid;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return -1;
}

/* NAME's candidates on S; only the one its address tells, when DWARF told. */
static size_t side__picked(const struct side *s, const char *name, uint32_t *out, size_t max)
{
	long k = s->pick ? side__name_idx(s, name) : -1;

	if (k >= 0 && s->pick[k]) {
		out[0] = s->pick[k];
		return s->pick[k] != SIDE_PICK_NONE;
	}
	return side__candidates(s, name, out, max);
}

/*
 * The FUNCs or VARs to compare for NAME, in *A and *B (0: none).  When a
 * side has several of that name and its DWARF did not tell the exported
 * one by its address (side__pick_exported), the pair of the same type,
 * if any: which of them comes first in the BTF changes from build to
 * build, and the first against the first would report a change that is
 * not one.  True when a side's choice was such a guess.
 */
static bool pick_pair(const struct side *side, const char *name, uint32_t *a, uint32_t *b)
{
	uint32_t ca[SIDE_CANDIDATES], cb[SIDE_CANDIDATES];
	size_t na = side__picked(&side[0], name, ca, SIDE_CANDIDATES);
	size_t nb = side__picked(&side[1], name, cb, SIDE_CANDIDATES);
	char sa[1024], sb[1024];
	size_t i, j;

	*a = na ? ca[0] : 0;
	*b = nb ? cb[0] : 0;
	if (na + nb <= 2)
		return na > 1 || nb > 1;
	for (i = 0; i < na; i++) {
		symbol_sig(side[0].btf, ca[i], sa, sizeof(sa));
		for (j = 0; j < nb; j++) {
			symbol_sig(side[1].btf, cb[j], sb, sizeof(sb));
			if (!strcmp(sa, sb)) {
				*a = ca[i];
				*b = cb[j];
				return true;
			}
		}
	}
	return true;
}

static int side__add_name(struct side *s, const char *name, size_t len)
{
	char *copy = strndup(name, len);

	if (!copy || array__grow(&s->names, &s->names_cap, s->nnames + 1, sizeof(*s->names), 256)) {
		free(copy);
		return -ENOMEM;
	}
	s->names[s->nnames++] = copy;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void side__sort_names(struct side *s)
{
	size_t i, n = 0;

	if (!s->nnames)
		return;
	qsort(s->names, s->nnames, sizeof(*s->names), cmp_str);
	for (i = 0; i < s->nnames; i++) {
		if (n && !strcmp(s->names[n - 1], s->names[i]))
			free(s->names[i]);
		else
			s->names[n++] = s->names[i];
	}
	s->nnames = n;
}

static bool is_elf(const char *path)
{
	unsigned char magic[4] = {};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = io__read_full(fd, magic, sizeof(magic));
	close(fd);
	return n == 4 && !memcmp(magic, "\177ELF", 4);
}

#define KSYMTAB "__ksymtab_"

/*
 * The names exported by PATH, an ELF file: each symbol __ksymtab_NAME in
 * a __ksymtab section (vmlinux, a .ko: "__ksymtab", "__ksymtab_gpl"; a .o
 * before linking: "___ksymtab+NAME").  None is not an error: the caller
 * falls back to the BTF's functions.
 */
static int side__exported(struct side *s, char *why, size_t whylen)
{
	struct elf_file ef;
	struct elf_symtab st;
	const char *name, *sec;
	GElf_Shdr shdr;
	GElf_Sym sym;
	Elf32_Word shndx;
	Elf_Scn *scn;
	size_t i;
	int err;

	err = elf_file__open(&ef, s->path, why, whylen);
	if (err)
		return err;
	if (elf_file__symtab(&ef, &st))
		goto out;
	for (i = 0; i < st.count; i++) {
		name = elf_file__sym(&ef, &st, i, &sym, &shndx);
		if (!name || strncmp(name, KSYMTAB, strlen(KSYMTAB)) || !name[strlen(KSYMTAB)] ||
		    GELF_ST_TYPE(sym.st_info) == STT_SECTION)
			continue;
		scn = elf_getscn(ef.elf, shndx);
		if (!scn || !gelf_getshdr(scn, &shdr))
			continue;
		sec = elf_file__section_name(&ef, &shdr);
		if (!sec || (strncmp(sec, "__ksymtab", 9) && strncmp(sec, "___ksymtab", 10)))
			continue;
		name += strlen(KSYMTAB);
		err = side__add_name(s, name, strlen(name));
		if (err) {
			snprintf(why, whylen, "%s", strerror(-err));
			break;
		}
	}
out:
	elf_file__close(&ef);
	return err;
}

/* No export table: every function and global variable of the side's own BTF. */
static int side__all_funcs(struct side *s)
{
	const struct btf_type *t;
	const char *name;
	size_t i;
	int err;

	for (i = 0; i < s->nown; i++) {
		t = btf__type_by_id(s->btf, s->ids[i]);
		if (btf_is_var(t) && btf_var(t)->linkage != BTF_VAR_GLOBAL_ALLOCATED)
			continue;
		name = btf__name_by_offset(s->btf, t->name_off);
		err = side__add_name(s, name, strlen(name));
		if (err)
			return err;
	}
	return 0;
}

static int add_name_cb(void *ctx, const char *name, size_t len)
{
	return side__add_name(ctx, name, len);
}

/* --symbols FILE: a name a line (btf/abi/abi_lists_int.h). */
static int side__read_list(struct side *s, const char *path, struct abi_err *e)
{
	size_t len;
	char *buf;
	int err = abi_list__read_file(path, &buf, &len);

	if (err)
		return abi_fail(e, path, "%s", strerror(-err));
	err = abi_list__names(buf, len, add_name_cb, s);
	free(buf);
	if (err)
		return abi_fail(e, path, "%s", strerror(-err));
	side__sort_names(s);
	return 0;
}

/*
 * The name a Module.symvers gives the side's object: "vmlinux" for a file
 * named vmlinux* (Debian's vmlinux-6.1.0-27-cloud-amd64), else its name up
 * to the first '.' (tun.ko.xz: "tun").  A name no line has selects every line.
 */
static char *symvers_module(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	if (!strncmp(base, "vmlinux", 7))
		return strdup("vmlinux");
	dot = strchr(base, '.');
	return dot ? strndup(base, (size_t)(dot - base)) : strdup(base);
}

/* --symvers FILE: the side's names from a Module.symvers; *NO_CRCS: its CRCs are all 0. */
static int side__read_symvers(struct side *s, const char *path, bool *no_crcs,
			      struct abi_err *e)
{
	char *buf = NULL, *mod = symvers_module(s->path), why[256] = "";
	size_t len;
	int err = mod ? abi_list__read_file(path, &buf, &len) : -ENOMEM;

	if (!err)
		err = abi_list__symvers(buf, len, mod, add_name_cb, s, why, sizeof(why));
	if (!err)
		*no_crcs = abi_list__symvers_no_crcs(buf, len);
	free(buf);
	free(mod);
	if (err == -EINVAL && *why)
		return abi_fail(e, path, "%s", why);
	if (err)
		return abi_fail(e, path, "%s", strerror(-err));
	side__sort_names(s);
	return 0;
}

/* --suppressions FILE...: every file's rules into SP. */
static int read_suppressions(struct abi_supp *sp, const struct btf_abi_opts *o,
			     struct abi_err *e)
{
	char *buf, why[256];
	size_t len;
	unsigned int i;
	int err;

	for (i = 0; i < o->nsupp; i++) {
		err = abi_list__read_file(o->supp[i], &buf, &len);
		if (err)
			return abi_fail(e, o->supp[i], "%s", strerror(-err));
		why[0] = 0;
		err = abi_supp__parse(sp, buf, len, why, sizeof(why));
		free(buf);
		if (err == -EINVAL && *why)
			return abi_fail(e, o->supp[i], "%s", why);
		if (err)
			return abi_fail(e, o->supp[i], "%s", strerror(-err));
	}
	return 0;
}

/* Whether PATH, an ELF file, has a .BTF section and DWARF; false, false if not ELF. */
static void elf_has(const char *path, bool *btf, bool *dwarf)
{
	struct elf_file ef;
	GElf_Shdr shdr;
	char why[256];

	*btf = *dwarf = false;
	if (!is_elf(path) || elf_file__open(&ef, path, why, sizeof(why)))
		return;
	*btf = elf_file__section(&ef, ".BTF", &shdr) != NULL;
	*dwarf = elf_file__section(&ef, ".debug_info", &shdr) != NULL;
	elf_file__close(&ef);
}

/*
 * PATH, an ELF file with DWARF but no .BTF (a -dbg vmlinux, a .ko built
 * without BTF): encoded as `frugal btf encode` would, on BASE's BTF when
 * BASE is not NULL, into a file of a private directory DIR (the encoder
 * writes files; a module's encoding needs its base as a file too), then
 * loaded.  side__free() removes DIR.
 */
static int encode_dwarf(const char *path, const char *base, struct btf *base_btf, char *dir,
			struct btf **out, char *why, size_t whylen)
{
	const char *tmp = getenv("TMPDIR");
	struct btf_enc_opts eo = {};
	char file[PATH_MAX + 8];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int err;

	snprintf(dir, PATH_MAX, "%s/frugal-abi.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		err = -errno;
		snprintf(why, whylen, "encoding its DWARF: %s: %s", dir, strerror(errno));
		dir[0] = 0;
		return err;
	}
	snprintf(file, sizeof(file), "%s/btf", dir);
	eo.path = path;
	eo.detached = file;
	eo.base = base;
	/* Every global variable too: an exported one is compared (pahole's VARs are per-CPU). */
	eo.features = btf_feat__default() | BTF_FEAT_GLOBAL_VAR;
	eo.rules = BTF_RULES_PAHOLE_1_30;
	eo.jobs = cpus > 0 ? (unsigned int)cpus : 1;
	eo.errbuf = why;
	eo.errlen = whylen;
	err = btf_enc__run(&eo);
	if (!err)
		err = btf_load(file, base_btf, out, why, whylen);
	return err;
}

/* The name of the file holding the BTF encoded in DIR, else PATH itself. */
static const char *btf_file(const char *path, const char *dir, char *buf, size_t len)
{
	if (!*dir)
		return path;
	snprintf(buf, len, "%s/btf", dir);
	return buf;
}

/*
 * PATH, an ELF file cut short (a download that stopped): where its
 * headers say its section headers or a section's bytes end past its
 * size, that in WHY, and true.  Read raw: libelf and libbpf take such a
 * file and fail later with another story.
 */
static bool elf_truncated(const char *path, char *why, size_t whylen)
{
	unsigned char id[EI_NIDENT];
	GElf_Ehdr eh;
	GElf_Shdr sh;
	Elf *elf = NULL;
	uint64_t end = 0, shend;
	size_t i, n = 0;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool cut = false;

	if (fd < 0 || fstat(fd, &st) || io__read_full(fd, id, sizeof(id)) != sizeof(id))
		goto out;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &eh))
		goto out;
	shend = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize;
	if (eh.e_shoff && shend > (uint64_t)st.st_size) {
		end = shend;
		cut = true;
		goto out;
	}
	if (elf_getshdrnum(elf, &n))
		goto out;
	for (i = 1; i < n; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);

		if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_offset + sh.sh_size > (uint64_t)st.st_size && sh.sh_offset + sh.sh_size > end)
			end = sh.sh_offset + sh.sh_size;
	}
	cut = end > 0;
out:
	if (cut)
		snprintf(why, whylen, "truncated ELF file: %lld bytes, its headers say %llu",
			 (long long)st.st_size, (unsigned long long)end);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return cut;
}

/* PATH compressed whole (a .ko.xz, .ko.zst, .ko.gz): the compressor's name, else NULL. */
static const char *compressed_by(const char *path)
{
	static const struct { const char *magic; size_t len; const char *tool; } kinds[] = {
		{ "\xfd" "7zXZ", 6, "xz" }, { "\x28\xb5\x2f\xfd", 4, "zstd" },
		{ "\x1f\x8b", 2, "gzip" },
	};
	unsigned char magic[6] = {};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t got;
	size_t i;

	if (fd < 0)
		return NULL;
	got = io__read_full(fd, magic, sizeof(magic));
	close(fd);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (got >= (ssize_t)kinds[i].len && !memcmp(magic, kinds[i].magic, kinds[i].len))
			return kinds[i].tool;
	return NULL;
}

/* PATH's BTF: its .BTF section, or raw BTF, or else its DWARF encoded (-v says so). */
static int load_or_encode(const char *path, const char *base, struct btf *base_btf, char *dir,
			  struct btf **out, struct abi_err *e)
{
	const char *tool = compressed_by(path);
	bool btf, dwarf;
	char why[256];
	int err;

	if (tool)
		return abi_fail(e, path, "%s-compressed: decompress it first (%s -d), btf abi reads "
				"ELF files and raw BTF", tool, tool);
	if (is_elf(path) && elf_truncated(path, why, sizeof(why)))
		return abi_fail(e, path, "%s", why);
	elf_has(path, &btf, &dwarf);
	if (dwarf && !btf) {
		cli_log("frugal btf abi: %s: no .BTF, its DWARF encoded here\n", path);
		err = encode_dwarf(path, base, base_btf, dir, out, why, sizeof(why));
	} else {
		err = btf_load(path, base_btf, out, why, sizeof(why));
		if (err == -ENOENT && is_elf(path))
			snprintf(why, sizeof(why), "ELF file has neither a .BTF section nor DWARF");
	}
	return err ? abi_fail(e, path, "%s", why) : 0;
}

static int side__load(struct side *s, const char *base, struct abi_err *e)
{
	char why[256], basefile[PATH_MAX + 8];
	int err;

	if (base && load_or_encode(base, NULL, NULL, s->enc_dir[0], &s->base, e))
		return -1;
	if (base && abi_base__check_release(s->path, base, why, sizeof(why)))
		return abi_fail(e, s->path, "%s", why);
	if (load_or_encode(s->path, base ? btf_file(base, s->enc_dir[0], basefile, sizeof(basefile)) : NULL,
			   s->base, s->enc_dir[1], &s->btf, e))
		return -1;
	if (base && abi_base__check_split(s->btf, s->base, why, sizeof(why)))
		return abi_fail(e, s->path, "split BTF built on another base than %s (%s)", base,
				why);
	err = side__index(s);
	if (err)
		return abi_fail(e, s->path, "indexing: %s", strerror(-err));
	return 0;
}

/*
 * The side's own symbol names: exported, or else all its functions (not
 * with EXPORTS_ONLY: a tree's module that exports nothing has no symbol).
 */
static int side__names(struct side *s, bool exports_only, struct abi_err *e)
{
	char why[256] = "";
	int err = 0;

	if (is_elf(s->path))
		err = side__exported(s, why, sizeof(why));
	if (err)
		return abi_fail(e, s->path, "%s", why);
	if (!s->nnames && !exports_only)
		err = side__all_funcs(s);
	if (err)
		return abi_fail(e, s->path, "%s", strerror(-err));
	side__sort_names(s);
	return 0;
}

/* FUNC ID's parameters' names, as abi_elf__params() gives a DWARF function's. */
static void func_param_names(const struct btf *btf, uint32_t id, char *buf, size_t len)
{
	const struct btf_type *proto = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	const struct btf_param *p = btf_params(proto);
	const char *name;
	size_t pos = 0;
	uint16_t i;

	buf[0] = 0;
	for (i = 0; i < btf_vlen(proto) && pos < len; i++, p++) {
		name = btf__name_by_offset(btf, p->name_off);
		if (!p->type && !p->name_off)
			name = "...";
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", i ? "," : "",
					name && *name ? name : "?");
	}
}

/*
 * The side's names' addresses and kinds (abi_syms.c); and, when its file
 * is linked and has DWARF, for each name of several FUNCs on either side
 * (OTHER), the one whose parameters are those of the DWARF function at
 * the name's address: the exported one, not a static one of the same name
 * in another unit.  None of them (the BTF kept fortify's strcat, not the
 * exported one): SIDE_PICK_NONE, not compared.
 */
static int side__facts(struct side *s, const struct side *other, struct abi_err *e)
{
	uint32_t cand[SIDE_CANDIDATES];
	uint64_t *addr = NULL;
	size_t *which = NULL, nw = 0, i, nc, c, hit, nhit;
	char **sigs = NULL, why[256] = "", one[1024];
	int err;

	if (!is_elf(s->path))
		return 0;
	err = abi_elf__read(&s->elf, s->path, s->names, s->nnames, why, sizeof(why));
	if (err)
		return abi_fail(e, s->path, "%s", why);
	if (!s->elf.linked || !s->elf.dwarf)
		return 0;
	s->pick = calloc(s->nnames ? s->nnames : 1, sizeof(*s->pick));
	addr = calloc(s->nnames ? s->nnames : 1, sizeof(*addr));
	which = calloc(s->nnames ? s->nnames : 1, sizeof(*which));
	if (!s->pick || !addr || !which) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nnames; i++)
		if (s->elf.kind[i] == ABI_KIND_FUNC && s->elf.addr[i] &&
		    (side__candidates(s, s->names[i], cand, 2) > 1 ||
		     (other->btf && side__candidates(other, s->names[i], cand, 2) > 1))) {
			addr[nw] = s->elf.addr[i];
			which[nw++] = i;
		}
	sigs = calloc(nw ? nw : 1, sizeof(*sigs));
	err = !sigs ? -ENOMEM : nw ? abi_elf__params(s->path, addr, nw, sigs) : 0;
	for (i = 0; !err && i < nw; i++) {
		if (!sigs[i])
			continue;
		nc = side__candidates(s, s->names[which[i]], cand, SIDE_CANDIDATES);
		for (c = nhit = hit = 0; c < nc; c++) {
			func_param_names(s->btf, cand[c], one, sizeof(one));
			if (!strcmp(one, sigs[i])) {
				hit = c;
				nhit++;
			}
		}
		if (nhit == 1)
			s->pick[which[i]] = cand[hit];
		else if (!nhit)
			s->pick[which[i]] = SIDE_PICK_NONE;
		cli_log("frugal btf abi: %s: %s at %#llx: %s\n", s->path, s->names[which[i]],
			(unsigned long long)addr[i], nhit == 1 ? "its FUNC found by its parameters" :
			nhit ? "several FUNCs of its parameters" : "no FUNC of its parameters");
	}
out:
	for (i = 0; sigs && i < nw; i++)
		free(sigs[i]);
	free(sigs);
	free(addr);
	free(which);
	return err ? abi_fail(e, s->path, "reading its DWARF: %s", strerror(-err)) : 0;
}

static void side__free(struct side *s)
{
	char file[PATH_MAX + 8];
	size_t i;

	for (i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->ids);
	free(s->alts);
	free(s->pick);
	abi_elf__free(&s->elf);
	idxmap__free(&s->byname);
	btf__free(s->btf);
	btf__free(s->base);
	for (i = 0; i < 2; i++) {
		if (!s->enc_dir[i][0])
			continue;
		snprintf(file, sizeof(file), "%s/btf", s->enc_dir[i]);
		unlink(file);
		rmdir(s->enc_dir[i]);
	}
}

static int add_sym(struct abi *abi, const char *name, enum abi_sym_status st)
{
	struct abi_sym *s;

	if (array__grow(&abi->syms, &abi->syms_cap, abi->nsyms + 1, sizeof(*abi->syms), 256))
		return -ENOMEM;
	s = &abi->syms[abi->nsyms];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return -ENOMEM;
	s->status = st;
	s->incompat = st == ABI_SYM_REMOVED;
	abi->nsyms++;
	return 0;
}

/* NAME's kind by S's ELF file (ABI_KIND_UNKNOWN: none tells). */
static enum abi_kind side__kind(const struct side *s, const char *name)
{
	long k = s->elf.kind ? side__name_idx(s, name) : -1;

	return k < 0 ? ABI_KIND_UNKNOWN : (enum abi_kind)s->elf.kind[k];
}

/*
 * The DWARF model's state (btf/abi/abi_units_int.h): both sides' exporting
 * units, the names they define in one table, and a flag per name for the
 * symbol walked.
 */
struct gate {
	struct abi_units u[2];
	struct abi_tnames tn;
	uint8_t *defined;
};

static void gate__free(struct gate *g)
{
	abi_units__free(&g->u[0]);
	abi_units__free(&g->u[1]);
	abi_tnames__free(&g->tn);
	free(g->defined);
}

/* Under the DWARF model (abi->units_model), each side's exporting units: 0 or -errno. */
static int gate__read(struct gate *g, const struct abi *abi, const struct side *side)
{
	size_t i;
	int err = 0;

	for (i = 0; abi->units_model && !err && i < 2; i++)
		err = abi_units__read(&g->u[i], side[i].path, side[i].names, side[i].elf.addr,
				      side[i].nnames, &g->tn);
	return err;
}

/*
 * Once every symbol is compared, each node's type name among what the
 * units define (abi->gate_node): 0 or -ENOMEM.  Nothing without the model.
 */
static int gate__nodes(struct gate *g, struct abi *abi)
{
	const struct btf_type *t;
	size_t i;
	long k;

	if (!abi->units_model)
		return 0;
	g->defined = calloc(g->tn.n ? g->tn.n : 1, 1);
	abi->gate_node = g->defined ? malloc((abi->nn ? abi->nn : 1) * sizeof(*abi->gate_node)) : NULL;
	if (!abi->gate_node)
		return -ENOMEM;
	for (i = 0; i < abi->nn; i++) {
		t = abi->nodes[i].is_sym ? NULL : btf__type_by_id(abi->btf[0], abi->nodes[i].id[0]);
		k = t && t->name_off ? abi_tnames__find(&g->tn, abi->nodes[i].name) : -1;
		abi->gate_node[i] = !t || !t->name_off ? ABI_GATE_ANON : k < 0 ? ABI_GATE_NONE : (int32_t)k;
	}
	return 0;
}

/* VT's named type in BTF (0: none; also for void). */
static uint32_t leaf_id(const struct btf *btf, const struct abi_var_type *vt)
{
	const char *sp = strchr(vt->leaf, ' ');
	int32_t id = 0;

	switch (vt->leaf_tag) {
	case DW_TAG_structure_type:
		id = btf__find_by_name_kind(btf, sp + 1, BTF_KIND_STRUCT);
		break;
	case DW_TAG_union_type:
		id = btf__find_by_name_kind(btf, sp + 1, BTF_KIND_UNION);
		break;
	case DW_TAG_enumeration_type:
		id = btf__find_by_name_kind(btf, sp + 1, BTF_KIND_ENUM);
		if (id <= 0)
			id = btf__find_by_name_kind(btf, sp + 1, BTF_KIND_ENUM64);
		break;
	case DW_TAG_typedef:
		id = btf__find_by_name_kind(btf, vt->leaf, BTF_KIND_TYPEDEF);
		break;
	case DW_TAG_base_type:
		id = btf__find_by_name_kind(btf, vt->leaf, BTF_KIND_INT);
		if (id <= 0)
			id = btf__find_by_name_kind(btf, vt->leaf, BTF_KIND_FLOAT);
		break;
	}
	return id > 0 ? (uint32_t)id : 0;
}

/*
 * Under the DWARF model, NAME, a variable without a VAR in a side's BTF
 * (6.1's BTF has only the per-CPU ones; __tracepoint_* and __SCK__* are
 * not): compared by the type each side's DWARF gives it, what wraps it
 * told as text, the named type it ends at found in that side's BTF and
 * walked.  *DONE: so compared (symbol SI's node made).  0 or -errno.
 */
static int var_by_dwarf(struct abi *abi, const struct side *side, const struct gate *g,
			const char *name, size_t si, bool *done)
{
	const struct abi_var_type *vt[2];
	uint32_t id[2], node;
	size_t i;
	long k;
	int err;

	*done = false;
	for (i = 0; i < 2; i++) {
		k = side__name_idx(&side[i], name);
		vt[i] = k >= 0 && g->u[i].var ? &g->u[i].var[k] : NULL;
		if (!vt[i] || !vt[i]->chain)
			return 0;
		id[i] = leaf_id(side[i].btf, vt[i]);
		if (!id[i] && vt[i]->leaf_tag)
			return 0;
	}
	err = abi__symbol_node(abi, id[0], id[1], &node);
	if (err)
		return err;
	abi->syms[si].compared = true;
	abi->syms[si].node = node;
	*done = true;
	if (strcmp(vt[0]->chain, vt[1]->chain) || strcmp(vt[0]->leaf, vt[1]->leaf))
		return abi__add_type_change(abi, node, "type: %s%s -> %s%s", vt[0]->chain, vt[0]->leaf,
					    vt[1]->chain, vt[1]->leaf);
	return abi__compare_types(abi, node, "type");
}

/*
 * NAME, in A's list (IN_A) and in B's: a symbol, compared when both have
 * its BTF, or (G: the DWARF model) a variable both sides' DWARF types.
 */
static int add_name(struct abi *abi, const struct side *side, const struct gate *g,
		    const char *name, bool in_a, bool in_b)
{
	struct abi_sym *s;
	uint32_t a, b, node;
	bool guessed = pick_pair(side, name, &a, &b), done = false;
	int err;

	err = add_sym(abi, name, !in_a ? ABI_SYM_ADDED : !in_b ? ABI_SYM_REMOVED : ABI_SYM_SAME);
	if (err || !in_a || !in_b)
		return err;
	s = &abi->syms[abi->nsyms - 1];
	if (!a || !b) {
		s->kind = (uint8_t)side__kind(&side[1], name);
		if (!s->kind)
			s->kind = (uint8_t)side__kind(&side[0], name);
		if (g && abi->units_model && s->kind != ABI_KIND_FUNC)
			err = var_by_dwarf(abi, side, g, name, abi->nsyms - 1, &done);
		abi->syms[abi->nsyms - 1].uncompared = !done;
		return err;
	}
	s->guessed = guessed;
	err = abi__symbol_node(abi, a, b, &node);
	if (err)
		return err;
	abi->syms[abi->nsyms - 1].compared = true;
	abi->syms[abi->nsyms - 1].node = node;
	return abi__compare_symbol(abi, node);
}

/* The union of both sorted lists, merged. */
static int build_syms(struct abi *abi, const struct side *side, const struct gate *g)
{
	size_t i = 0, j = 0;
	int c, err = 0;

	while (!err && (i < side[0].nnames || j < side[1].nnames)) {
		if (i == side[0].nnames)
			c = 1;
		else if (j == side[1].nnames)
			c = -1;
		else
			c = strcmp(side[0].names[i], side[1].names[j]);
		if (c <= 0)
			err = add_name(abi, side, g, side[0].names[i], true, c == 0);
		else
			err = add_name(abi, side, g, side[1].names[j], false, true);
		i += c <= 0;
		j += c >= 0;
	}
	return err;
}

/* --symbols: the list's names, present on a side when its BTF has them. */
static int build_listed(struct abi *abi, const struct side *side, const struct side *list)
{
	size_t i;
	int err = 0;
	bool a, b;

	for (i = 0; !err && i < list->nnames; i++) {
		a = side__find(&side[0], list->names[i]);
		b = side__find(&side[1], list->names[i]);
		if (a || b)
			err = add_name(abi, side, NULL, list->names[i], a, b);
	}
	return err;
}

/* Mark (ON) or clear the names that SYM's units define on either side; false: none found. */
static bool gate__mark(struct gate *g, const struct side *side, const char *sym, uint8_t on)
{
	const struct abi_unit *un;
	bool found = false;
	size_t i, d;
	long k;

	for (i = 0; i < 2; i++) {
		k = side__name_idx(&side[i], sym);
		if (k < 0 || !g->u[i].unit_of || g->u[i].unit_of[k] < 0)
			continue;
		un = &g->u[i].units[g->u[i].unit_of[k]];
		for (d = 0; d < un->ndefs; d++)
			g->defined[un->defs[d]] = on;
		found = true;
	}
	return found;
}

static int find_paths(struct abi *abi, const struct side *side, struct gate *g)
{
	uint32_t *queue = malloc((abi->nn ? abi->nn : 1) * sizeof(*queue));
	struct abi_sym *s;
	size_t i;
	int err = queue ? gate__nodes(g, abi) : -ENOMEM;

	abi__mark_tainted(abi);
	for (i = 0; !err && i < abi->nsyms; i++) {
		s = &abi->syms[i];
		if (!s->compared || s->suppressed)
			continue;
		abi->gate_defined = NULL;
		if (abi->units_model) {
			abi->units_syms++;
			if (gate__mark(g, side, s->name, 1)) {
				abi->units_found++;
				abi->gate_defined = g->defined;
			}
		}
		if (abi->nodes[s->node].tainted)
			err = abi__symbol_paths(abi, (uint32_t)i, queue);
		if (abi->gate_defined)
			gate__mark(g, side, s->name, 0);
	}
	abi->gate_defined = NULL;
	free(abi->gate_node);
	abi->gate_node = NULL;
	free(queue);
	if (!err)
		abi__find_causes(abi);
	return err;
}

/* NAME is a function on the side that has it; neither: either kind of rule. */
static bool sym_suppressed(const struct side *side, const struct abi_supp *sp, const char *name)
{
	uint32_t id = side__find(&side[1], name);
	const struct btf *btf = side[1].btf;

	if (!id) {
		id = side__find(&side[0], name);
		btf = side[0].btf;
	}
	if (!id)
		return abi_supp__symbol(sp, name, true) || abi_supp__symbol(sp, name, false);
	return abi_supp__symbol(sp, name, btf_is_func(btf__type_by_id(btf, id)));
}

/*
 * Before the paths: a suppressed symbol is the same (so it sets no exit
 * bit and joins no type's list of symbols), a suppressed type has no
 * changes of its own (so a symbol reaching only it is unchanged).
 */
static void apply_suppressions(struct abi *abi, const struct side *side,
			       const struct abi_supp *sp)
{
	struct abi_node *n;
	size_t i;

	for (i = 0; i < abi->nsyms; i++) {
		if (!sym_suppressed(side, sp, abi->syms[i].name))
			continue;
		abi->syms[i].suppressed = true;
		abi->syms[i].status = ABI_SYM_SAME;
		abi->syms[i].incompat = false;
		abi->supp_syms++;
	}
	for (i = 0; i < abi->nn; i++) {
		n = &abi->nodes[i];
		if (n->is_sym || !n->nchanges || !abi_supp__type(sp, n->name))
			continue;
		n->nchanges = 0;
		n->ch_head = n->ch_tail = -1;
		n->incompat = false;
		abi->supp_types++;
	}
}

/* Two modules of other names ("tun" against "tap"): compared, with a warning. */
static void check_names(struct abi *abi, const char *const path[2])
{
	char name[2][64];

	abi_base__module_name(path[0], name[0], sizeof(name[0]));
	abi_base__module_name(path[1], name[1], sizeof(name[1]));
	if (*name[0] && *name[1] && strcmp(name[0], name[1]))
		snprintf(abi->warning, sizeof(abi->warning),
			 "module '%s', compared with module '%s' (%s): not the same module",
			 name[1], name[0], path[0]);
}

int abi__compare_files(const struct btf_abi_opts *o, const char *const path[2],
		       const char *const base[2], struct abi *abi, struct abi_err *e)
{
	struct side side[2] = {}, list = {};
	struct gate gate = { .tn = { .map = IDXMAP_INIT } };
	struct abi_supp supp = {};
	int err, i, ret = -1;

	for (i = 0; i < 2; i++) {
		side[i].path = path[i];
		if (path[i] && side__load(&side[i], base[i], e))
			goto out;
	}
	if (path[0] && path[1])
		check_names(abi, path);
	if (read_suppressions(&supp, o, e))
		goto out;
	if (o->symbols && side__read_list(&list, o->symbols, e))
		goto out;
	for (i = 0; !o->symbols && i < 2; i++) {
		if (!path[i])
			continue;
		if (o->symvers[i] ? side__read_symvers(&side[i], o->symvers[i], &abi->no_crcs[i], e)
				  : side__names(&side[i], o->exports_only, e))
			goto out;
	}
	for (i = 0; !o->symbols && i < 2; i++)
		if (path[i] && side__facts(&side[i], &side[!i], e))
			goto out;
	abi->btf[0] = side[0].btf;
	abi->btf[1] = side[1].btf;
	/* The DWARF model with DWARF on both sides (linked files: a -dbg vmlinux). */
	abi->units_model = !o->symbols && path[0] && path[1];
	for (i = 0; i < 2; i++)
		abi->units_model &= side[i].elf.linked && side[i].elf.dwarf;
	err = gate__read(&gate, abi, side);
	if (err) {
		abi_fail(e, path[0], "reading its DWARF's units: %s", strerror(-err));
		goto out;
	}
	err = o->symbols ? build_listed(abi, side, &list) : build_syms(abi, side, &gate);
	abi->supp_given = o->nsupp > 0;
	if (!err && supp.nrules)
		apply_suppressions(abi, side, &supp);
	if (!err)
		err = find_paths(abi, side, &gate);
	if (err) {
		abi_fail(e, path[0] ? path[0] : path[1], "comparing: %s", strerror(-err));
		goto out;
	}
	ret = 0;
out:
	/* The report keeps no pointer into the BTFs: it is text made here. */
	abi->btf[0] = abi->btf[1] = NULL;
	abi_supp__free(&supp);
	gate__free(&gate);
	side__free(&list);
	for (i = 0; i < 2; i++)
		side__free(&side[i]);
	return ret;
}
