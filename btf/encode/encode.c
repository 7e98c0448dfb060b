// SPDX-License-Identifier: GPL-2.0
/*
 * The encoder driver.  Peak memory is what this is about, so the pre-dedup
 * BTF never holds all compile units at once:
 *
 *  - the ELF is read through mmap and the DWARF pages of a batch are given
 *    back (MADV_DONTNEED) once the batch is encoded;
 *  - CUs are encoded in batches of about BATCH_BYTES of .debug_info; each
 *    batch is deduplicated on its own (in a worker thread with its own
 *    Dwarf handle for -jN), then appended to the result, which is itself
 *    deduplicated whenever it has doubled since the last time;
 *  - batch boundaries depend only on the input and results are merged in
 *    batch order, so the output is byte-identical for every -j.
 *
 * pahole's "first CU wins" rule for FUNCs of one name holds across batches:
 * a later batch's FUNC of a name already present is pointed at the earlier
 * one's prototype, so dedup folds the two into the first.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "btf/encode/dedup_lb_int.h"
#include "btf/encode/encode_int.h"
#include "btf/encode/encode_write_int.h"
#include "btf/encode/type_bytes_int.h"
#include "cli/cli.h"
#include "lib/array.h"
#include "lib/dwarf_die.h"
#include "lib/dwarf_scan.h"
#include "lib/io.h"

#define BATCH_BYTES (6u << 20)
/* Split BTF: drop the file's clean pages after this much .debug_info. */
#define SPLIT_DROP_BYTES (1u << 20)
#define MERGE_MIN_TYPES 100000


struct cu_ref {
	Dwarf_Off die;		/* offset of the CU DIE */
	Dwarf_Off start, end;	/* unit bytes in .debug_info */
};

/*
 * One worker's view of the DWARF: its own Dwarf handle (for setup and the
 * rare values lib/dwarf_die leaves to libdw) and its own DIE cursor over
 * the sections that handle reads (relocated, or inflated, as libdw has
 * them).
 */
struct dwarf_src {
	Dwarf *dbg;
	Dwfl *dwfl;
	struct dwarf_scan_secs secs;
	struct dwarf_unit unit;
	uint64_t pcpu_addr;	/* .data..percpu address as DWARF sees it */
	const char *info;	/* .debug_info in the mapped file, or NULL */
	size_t info_len;
	char *rel_info;		/* .debug_info relocated in memory (ET_REL), or NULL */
	size_t rel_len;
	struct enc_fsig *fsig;	/* its batches' verdicts, per function symbol */
};

struct job {
	size_t first, last;	/* CUs [first, last) */
	struct enc_batch b;
	int err;
	bool done;
	double t_encode, t_dedup;	/* its worker's CPU seconds */
};

struct encoder {
	struct enc_ctx ctx;
	struct cu_ref *cus;
	size_t ncus;
	struct job *jobs;
	size_t njobs;
	/* thread pool */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	size_t next_job, merged;
	bool stop;
	/* the merged result */
	struct btf *acc;
	uint32_t *func_id;	/* per ctx.funcs: its FUNC in acc, or 0 */
	uint8_t *func_at;	/* per ctx.funcs, under pahole 1.32's rules: 0 no
				 * FUNC yet, else FUNC_AT_SYM or FUNC_WEAK */
	uint32_t *recent;	/* with func_at: FUNCs since the last dedup */
	size_t nrecent, recent_cap;
	struct enc_fsig *fsig;	/* per ctx.funcs: every batch's verdict so far */
	struct enc_var *vars;
	size_t nvars, vars_cap;
	size_t since_dedup, dedup_size;
	size_t folded;		/* FUNCs folded into an earlier batch's */
	size_t dropped;		/* FUNCs of inconsistent saved functions */
	struct enc_basing basing;	/* its base, by policy (encode_base_policy.c) */
};

/* btf_enc__run's "again, on the whole base" (never an errno). */
#define ENC_AGAIN 1

/* The calling thread's CPU seconds (opts->times). */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int enc_set_err(const struct btf_enc_opts *o, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->errbuf && o->errlen && !o->errbuf[0]) {
		n = snprintf(o->errbuf, o->errlen, "%s: ", o->path);
		if (n >= 0 && (size_t)n < o->errlen) {
			va_start(ap, fmt);
			vsnprintf(o->errbuf + n, o->errlen - n, fmt, ap);
			va_end(ap);
		}
	}
	return err;
}

/* --- DWARF access --- */

static const Dwfl_Callbacks offline_cb = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/* ET_REL: libdwfl applies the relocations to the DWARF sections. */
static int src_open_rel(struct dwarf_src *s, const struct enc_ctx *ctx)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	GElf_Shdr shdr;
	Elf_Scn *scn = NULL;
	Elf *elf;
	size_t shstrndx;
	int fd;

	s->dwfl = dwfl_begin(&offline_cb);
	if (!s->dwfl)
		return -ENOMEM;
	fd = dup(ctx->ef.fd);
	if (fd < 0)
		return -errno;
	mod = dwfl_report_offline(s->dwfl, "", ctx->opts->path, fd);
	if (!mod || dwfl_report_end(s->dwfl, NULL, NULL))
		return -EINVAL;
	s->dbg = dwfl_module_getdwarf(mod, &bias);
	elf = dwfl_module_getelf(mod, &bias);
	if (!s->dbg || !elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENODATA;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		n = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (n && !strcmp(n, ".data..percpu"))
			s->pcpu_addr = shdr.sh_addr + bias;
	}
	return 0;
}

/*
 * Every worker reads the one mapping of ctx->ef: a second mapping of the
 * same file would count its pages in RSS twice.  dwarf_begin_elf() reads
 * the section table and data pointers now, so the handles it makes for
 * each worker (here, before any thread starts) share the Elf read-only.
 */
static int src_open_mapped(struct dwarf_src *s, const struct enc_ctx *ctx)
{
	GElf_Shdr shdr;
	Elf_Scn *scn;
	char *raw;
	size_t rawlen;

	s->pcpu_addr = ctx->pcpu_addr;
	s->dbg = dwarf_begin_elf(ctx->ef.elf, DWARF_C_READ, NULL);
	if (!s->dbg)
		return -ENODATA;
	/* Where .debug_info lies in the mapping, to give its pages back. */
	raw = elf_rawfile(ctx->ef.elf, &rawlen);
	scn = elf_file__section(&ctx->ef, ".debug_info", &shdr);
	if (raw && scn && !ctx->ef.priv && !(shdr.sh_flags & SHF_COMPRESSED) &&
	    shdr.sh_type == SHT_PROGBITS && elf_range_ok(shdr.sh_offset, shdr.sh_size, rawlen)) {
		s->info = raw + shdr.sh_offset;
		s->info_len = shdr.sh_size;
	}
	/* Relocated in place in the copy-on-write mapping (not inflated to heap). */
	if (raw && scn && ctx->is_rel && ctx->ef.priv) {
		Elf_Data *d = elf_getdata(scn, NULL);

		if (d && d->d_buf && (char *)d->d_buf >= raw &&
		    d->d_size <= rawlen - ((char *)d->d_buf - raw)) {
			s->rel_info = d->d_buf;
			s->rel_len = d->d_size;
		}
	}
	return 0;
}

/* The sections the cursor reads, as S's Dwarf handle has them. */
static int src_secs(struct dwarf_src *s)
{
	static const struct {
		const char *name;
		size_t data, len;
	} secs[] = {
#define SEC(n, f) { n, offsetof(struct dwarf_scan_secs, f), offsetof(struct dwarf_scan_secs, f##_len) }
		SEC(".debug_info", info), SEC(".debug_abbrev", abbrev), SEC(".debug_str", str),
		SEC(".debug_line_str", line_str), SEC(".debug_str_offsets", str_offsets),
		SEC(".debug_addr", addr), SEC(".debug_loc", loc), SEC(".debug_loclists", loclists),
#undef SEC
	};
	Elf *elf = dwarf_getelf(s->dbg);
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t shstrndx, i;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENODATA;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *n;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(elf, shstrndx, shdr.sh_name)) || strncmp(n, ".debug_", 7))
			continue;
		for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
			char *base = (char *)&s->secs;

			if (strcmp(n, secs[i].name) || *(const uint8_t **)(base + secs[i].data))
				continue;
			/* libdw inflates what it reads; anything still compressed is not read. */
			d = (shdr.sh_flags & SHF_COMPRESSED) ? NULL : elf_getdata(scn, NULL);
			if (d && d->d_buf && d->d_size) {
				*(const uint8_t **)(base + secs[i].data) = d->d_buf;
				*(size_t *)(base + secs[i].len) = d->d_size;
			}
		}
	}
	dwarf_unit__init(&s->unit, &s->secs);
	return s->secs.info && s->secs.abbrev ? 0 : -ENODATA;
}

static int src_open(struct dwarf_src *s, const struct enc_ctx *ctx)
{
	int err;

	memset(s, 0, sizeof(*s));
	err = ctx->is_rel && !ctx->ef.priv ? src_open_rel(s, ctx) : src_open_mapped(s, ctx);
	return err ? err : src_secs(s);
}

static void src_close(struct dwarf_src *s)
{
	dwarf_unit__fini(&s->unit);
	if (s->dwfl)
		dwfl_end(s->dwfl);
	else if (s->dbg)
		dwarf_end(s->dbg);
	free(s->fsig);
	memset(s, 0, sizeof(*s));
}

/* The batch's .debug_info bytes are no longer needed: drop their pages. */
static void src_release(const struct dwarf_src *s, Dwarf_Off start, Dwarf_Off end)
{
	uintptr_t pg = sysconf(_SC_PAGESIZE), lo, hi;

	if (!s->info || end > s->info_len)
		return;
	lo = ((uintptr_t)s->info + start + pg - 1) & ~(pg - 1);
	hi = ((uintptr_t)s->info + end) & ~(pg - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

/*
 * Whether every unit's DIEs refer only within the unit: no reference by
 * .debug_info offset (DW_FORM_ref_addr), to a supplementary file or a type
 * unit, no partial or imported units (dwz).  Read from the abbreviations,
 * which say every form a unit uses.
 */
static bool unit_local(const struct encoder *e, Dwarf *dbg)
{
	unsigned int name, form;
	size_t i, k, len;
	Dwarf_Off off;
	Dwarf_Abbrev *ab;
	Dwarf_Die cu;

	for (i = 0; i < e->ncus; i++) {
		if (!dwarf_offdie(dbg, e->cus[i].die, &cu))
			return false;
		/* The table ends in (Dwarf_Abbrev *)-1 (libdw's DWARF_END_ABBREV). */
		for (off = 0; (ab = dwarf_getabbrev(&cu, off, &len)) != (Dwarf_Abbrev *)-1l;
		     off += len) {
			if (!ab || !len || dwarf_getabbrevtag(ab) == DW_TAG_partial_unit ||
			    dwarf_getabbrevtag(ab) == DW_TAG_imported_unit)
				return false;
			/*
			 * Up to the list's end: libdw 0.188's dwarf_getattrcnt()
			 * counts one too many after a DW_FORM_implicit_const.
			 */
			for (k = 0; !dwarf_getabbrevattr(ab, k, &name, &form, NULL); k++)
				if (form == DW_FORM_ref_addr || form == DW_FORM_ref_sig8 ||
				    form == DW_FORM_GNU_ref_alt || form == DW_FORM_ref_sup4 ||
				    form == DW_FORM_ref_sup8)
					return false;
		}
	}
	return true;
}

/*
 * A handle to encode with.  Its relocated .debug_info is retired as it goes
 * only if the DIEs refer within their unit (checked on this handle, which
 * reads every unit's abbreviations anyway: on a second one, they cost
 * 12 MB more at mlx5_core.ko's peak).
 */
static int src_open_enc(struct dwarf_src *s, const struct encoder *e)
{
	int err = src_open(s, &e->ctx);

	if (!err && s->rel_info && !unit_local(e, s->dbg))
		s->rel_info = NULL;
	return err;
}

/*
 * A unit of relocated .debug_info is encoded: its pages go (they are
 * anonymous memory, 20 MB in a large module).  Read again, they would
 * show the file's bytes, without the relocations, so they are made
 * unreadable too: a reader that came back would fault, never read wrong
 * values.  No reader does: the encoder's cursor (lib/dwarf_die) reads one
 * unit at a time, libdw read every unit's header up front (src_prime()),
 * and DIEs refer only within their unit (src_open_enc() checks).
 */
static void src_retire(const struct dwarf_src *s, Dwarf_Off start, Dwarf_Off end)
{
	uintptr_t pg = sysconf(_SC_PAGESIZE), lo, hi;

	if (!s->rel_info || end > s->rel_len)
		return;
	lo = ((uintptr_t)s->rel_info + start + pg - 1) & ~(pg - 1);
	hi = ((uintptr_t)s->rel_info + end) & ~(pg - 1);
	if (hi > lo && !madvise((void *)lo, hi - lo, MADV_DONTNEED))
		mprotect((void *)lo, hi - lo, PROT_NONE);
}

/* --- CUs and batches --- */

static const struct {
	const char *name;
	int lang;
} langs[] = {
	{ "c89", DW_LANG_C89 }, { "c", DW_LANG_C }, { "c99", DW_LANG_C99 },
	{ "c11", DW_LANG_C11 }, { "c_plus_plus", DW_LANG_C_plus_plus },
	{ "c_plus_plus_03", DW_LANG_C_plus_plus_03 },
	{ "c_plus_plus_11", DW_LANG_C_plus_plus_11 },
	{ "c_plus_plus_14", DW_LANG_C_plus_plus_14 }, { "rust", DW_LANG_Rust },
	{ "go", DW_LANG_Go }, { "ada83", DW_LANG_Ada83 }, { "ada95", DW_LANG_Ada95 },
	{ "fortran77", DW_LANG_Fortran77 }, { "fortran90", DW_LANG_Fortran90 },
	{ "fortran95", DW_LANG_Fortran95 }, { "objc", DW_LANG_ObjC },
	{ "d", DW_LANG_D }, { "mips_assembler", DW_LANG_Mips_Assembler },
};

static int lang_code(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(langs) / sizeof(langs[0]); i++)
		if (!strcasecmp(langs[i].name, name))
			return langs[i].lang;
	return -1;
}

int btf_enc__check_langs(const char *list, char *bad, size_t len)
{
	char buf[256], *save = NULL, *name;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", list) >= sizeof(buf)) {
		snprintf(bad, len, "(list too long)");
		return -EINVAL;
	}
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		if (lang_code(name) < 0) {
			snprintf(bad, len, "%s", name);
			return -EINVAL;
		}
	}
	return 0;
}

static int parse_langs(struct enc_ctx *ctx, const char *list)
{
	char buf[256], *save = NULL, *name;
	int lang;

	if ((size_t)snprintf(buf, sizeof(buf), "%s", list) >= sizeof(buf))
		return enc_set_err(ctx->opts, -EINVAL, "--lang_exclude: list too long");
	for (name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		lang = lang_code(name);
		if (lang < 0)
			return enc_set_err(ctx->opts, -EINVAL, "--lang_exclude: unknown language '%s'", name);
		if (ctx->nlang_excl == (int)(sizeof(ctx->lang_excl) / sizeof(ctx->lang_excl[0])))
			return enc_set_err(ctx->opts, -EINVAL, "--lang_exclude: too many languages");
		ctx->lang_excl[ctx->nlang_excl++] = lang;
	}
	return 0;
}

/* libdw's dwarf_srclang: DW_AT_language, -1 without one. */
static int srclang(const struct dwarf_unit *u, const struct dwarf_die *cu)
{
	struct dwarf_attr a;
	uint64_t v;

	if (dwarf_die__attr_integrate(u, cu, DW_AT_language, &a) <= 0 ||
	    dwarf_attr__udata(u, &a, &v))
		return -1;
	return (int)v;
}

static bool lang_excluded(const struct enc_ctx *ctx, const struct dwarf_unit *u,
			  const struct dwarf_die *cu)
{
	int lang = ctx->nlang_excl ? srclang(u, cu) : -1, i;

	for (i = 0; i < ctx->nlang_excl; i++)
		if (ctx->lang_excl[i] == lang)
			return true;
	return false;
}

/*
 * Reading each unit header faults in the pages around it (fault-around),
 * so the pages read so far are given back every few MB: listing the units
 * must not map all of .debug_info at once.
 */
static int list_cus(struct encoder *e, const struct dwarf_src *src)
{
	Dwarf *dbg = src->dbg;
	Dwarf_Off off = 0, next, released = 0;
	size_t hsize, cap = 0;
	int r;

	while ((r = dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL)) == 0) {
		if (array__grow(&e->cus, &cap, e->ncus + 1, sizeof(*e->cus), 1024))
			return -ENOMEM;
		e->cus[e->ncus++] = (struct cu_ref){ off + hsize, off, next };
		off = next;
		if (off - released >= BATCH_BYTES) {
			src_release(src, released, off);
			released = off;
		}
	}
	if (r < 0)
		return enc_set_err(e->ctx.opts, -EINVAL, "bad DWARF unit header at 0x%llx: %s",
			       (unsigned long long)off, dwarf_errmsg(-1));
	if (!e->ncus)
		return enc_set_err(e->ctx.opts, -ENODATA, "no DWARF compile units");
	return 0;
}

/* Batches by .debug_info bytes: independent of -j, so is the output. */
static int plan_jobs(struct encoder *e)
{
	size_t i, first = 0;
	Dwarf_Off bytes = 0;

	e->jobs = calloc(e->ncus, sizeof(*e->jobs));
	if (!e->jobs)
		return -ENOMEM;
	for (i = 0; i < e->ncus; i++) {
		bytes += e->cus[i].end - e->cus[i].start;
		/*
		 * Split BTF is one batch: libbpf 1.1 cannot append split BTF,
		 * and a module's dedup depends on which CUs meet in it, libbpf
		 * 1.7's too (as one batch, 6.12's smc.ko and 7.3's xfs.ko keep
		 * the unreferenced copy of struct rcuwait that pahole's output
		 * has; in batches they do not).
		 */
		if ((bytes >= BATCH_BYTES && !e->ctx.base) || i + 1 == e->ncus) {
			e->jobs[e->njobs].first = first;
			e->jobs[e->njobs++].last = i + 1;
			first = i + 1;
			bytes = 0;
		}
	}
	return 0;
}

static void str_cache_free(struct str_cache *c)
{
	idxmap__free(&c->map);
	free(c->ents);
	memset(c, 0, sizeof(*c));
}

static void batch_free(struct enc_batch *b)
{
	str_cache_free(&b->str_ptr);
	str_cache_free(&b->str_inl);
	free(b->da_maps);
	btf__free(b->btf);
	free(b->func_done);
	free(b->fsigs);
	free(b->vars);
	free(b->ents);
	idxmap__free(&b->ent_map);
	free(b->members);
	free(b->subs);
	free(b->gvars);
	memset(b, 0, sizeof(*b));
}

static void batch_scratch_free(struct enc_batch *b)
{
	str_cache_free(&b->str_ptr);
	str_cache_free(&b->str_inl);
	free(b->da_maps);
	b->da_maps = NULL;
	free(b->func_done);
	free(b->ents);
	idxmap__free(&b->ent_map);
	free(b->members);
	free(b->subs);
	free(b->gvars);
	b->members = NULL;
	b->members_cap = 0;
	b->func_done = NULL;
	b->ents = NULL;
	b->subs = NULL;
	b->gvars = NULL;
	b->ents_cap = b->subs_cap = b->gvars_cap = 0;
}

/*
 * libdw creates its record of a unit by reading every unit header before
 * it, the first time a unit is asked for.  The encoder reads DIEs with
 * lib/dwarf_die and asks libdw only for rare values, so such a first
 * request can come at any unit: it would fault in (with fault-around, 64
 * KB each) the pages of every header before it, 32 MB of vmlinux at -j1,
 * and a worker would fault back pages another worker gave back.  So each
 * handle reads all the headers once, up front, and the pages go back.
 */
static void src_prime(struct dwarf_src *s, const struct encoder *e)
{
	Dwarf_Off released = 0;
	Dwarf_Die die;
	size_t i;

	if (!s->dbg)
		return;
	/* In steps, giving pages back as it goes, as list_cus() does. */
	for (i = 0; i < e->ncus; i += 32) {
		dwarf_offdie(s->dbg, e->cus[i].die, &die);
		if (e->cus[i].start - released >= BATCH_BYTES) {
			src_release(s, released, e->cus[i].start);
			released = e->cus[i].start;
		}
	}
	if (e->ncus)
		dwarf_offdie(s->dbg, e->cus[e->ncus - 1].die, &die);
	src_release(s, 0, s->info_len);
}

/*
 * Where the split strings of BTF (libbpf 1.1's, on a base of BASE_STRS
 * bytes of strings) lie, and their length: libbpf keeps them in one piece
 * but says their length only in a raw copy, so it is found by asking for
 * offsets (it answers NULL past the end).
 */
static const char *split_strs(const struct btf *btf, uint32_t base_strs, uint32_t *len)
{
	uint32_t lo = 0, hi = UINT32_MAX - base_strs, mid;
	const char *s = btf__str_by_offset(btf, base_strs);

	if (!s) {
		*len = 0;
		return NULL;
	}
	/* lo is inside, hi past the end */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (btf__str_by_offset(btf, base_strs + mid))
			lo = mid;
		else
			hi = mid;
	}
	*len = hi;
	return s;
}

/*
 * *BTF deduplicated: by the system's libbpf, or through libbpf 1.7
 * (encode_base_policy.c).  That round trip goes through one memory file: the split
 * types and strings are written to it as libbpf 1.1 holds them (no raw
 * copy), *BTF freed before libbpf 1.7 reads them (dedup_lb__run: a chunk
 * of types at a time), and the result comes back through it (libbpf 1.1
 * declares btf__new_split() but exports it only from 1.3 on, so it parses
 * the file).  So one copy of a module's types before dedup lives at a
 * time.  A module made on the stand-in base (ENC_BASE_STANDIN) gets its real
 * base here, between the two: pruned to the strings *BTF holds, which
 * are read before it goes.  On failure *BTF may be NULL.
 */
static int enc_dedup(struct encoder *e, struct btf **btf)
{
	struct enc_ctx *ctx = &e->ctx;
	uint32_t first, n, types = 0, strs_len, from_strs = ctx->base_strs;
	const struct btf_type *t0, *tl;
	const char *strs;
	char path[32];
	int fd, err;

	if (!ctx->lb && !e->basing.standin)
		return btf__dedup(*btf, NULL);
	first = btf__type_cnt(ctx->base);
	n = btf__type_cnt(*btf);
	t0 = n > first ? btf__type_by_id(*btf, first) : NULL;
	tl = n > first ? btf__type_by_id(*btf, n - 1) : NULL;
	if (t0)
		types = (uint32_t)((const char *)tl + btf_type_bytes(tl) - (const char *)t0);
	strs = split_strs(*btf, ctx->base_strs, &strs_len);
	fd = memfd_create("btf", MFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = io__write_full(fd, t0, types);
	if (!err)
		err = io__write_full(fd, strs, strs_len);
	if (!err && e->basing.standin)
		err = enc_basing__names(&e->basing, ctx, strs, strs_len);
	if (!err) {
		btf__free(*btf);
		*btf = NULL;
	}
	if (!err && e->basing.standin)
		err = enc_basing__prune(&e->basing, ctx);
	if (!err)
		err = dedup_lb__run(ctx->lb, fd, types, strs_len, from_strs, first);
	if (!err) {
		cli_log("btf: libbpf %s dedup: %u bytes of types and %u of strings in, %lld of "
			"BTF out\n", dedup_lb__version(), types, strs_len,
			(long long)lseek(fd, 0, SEEK_END));
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		*btf = btf__parse_raw_split(path, ctx->base);
		err = libbpf_get_error(*btf);
		if (err)
			*btf = NULL;
	}
	close(fd);
	return err;
}

static int run_job(struct encoder *e, struct job *j, struct dwarf_src *s)
{
	struct enc_batch *b = &j->b;
	Dwarf_Off dropped = 0;
	double t0 = thread_cpu(), t1;
	struct dwarf_die cu;
	size_t i;
	int err;

	b->ctx = &e->ctx;
	b->pcpu_addr = s->pcpu_addr;
	b->btf = e->ctx.base ? btf__new_empty_split(e->ctx.base) : btf__new_empty();
	b->func_done = calloc(e->ctx.nfuncs + 1, 1);
	if (!b->btf || !b->func_done)
		return -ENOMEM;
	if (e->fsig && !s->fsig && !(s->fsig = calloc(e->ctx.nfuncs + 1, sizeof(*s->fsig))))
		return -ENOMEM;
	b->fsig = e->fsig ? s->fsig : NULL;
	for (i = j->first; i < j->last; i++) {
		err = dwarf_unit__open(&s->unit, e->cus[i].start);
		if (!err)
			err = dwarf_unit__cudie(&s->unit, &cu);
		if (err)
			return enc_batch__err(b, err, "bad compile unit at 0x%llx",
					      (unsigned long long)e->cus[i].start);
		if (dwarf_die__tag(&cu) != DW_TAG_compile_unit ||
		    lang_excluded(&e->ctx, &s->unit, &cu))
			continue;
		err = dcu__encode(b, &s->unit, s->dbg);
		if (err)
			return err;
		src_retire(s, e->cus[i].start, e->cus[i].end);
		/*
		 * A unit's pages are read again by nothing of the batch: each
		 * goes back once encoded (with two workers, up to 12 MB of
		 * .debug_info less at the peak), the pages it shares with the
		 * next unit at the end of the batch.
		 */
		src_release(s, e->cus[i].start, e->cus[i].end);
		/* A module is one batch: give its clean pages back as it goes. */
		if (e->ctx.base && e->cus[i].end - dropped >= SPLIT_DROP_BYTES) {
			elf_file__drop_clean(&e->ctx.ef);
			dropped = e->cus[i].end;
		}
	}
	src_release(s, e->cus[j->first].start, e->cus[j->last - 1].end);
	/* The verdicts go with the batch; the array is clean for the next. */
	for (i = 0; i < b->nfsigs; i++) {
		b->fsigs[i].s = s->fsig[b->fsigs[i].idx];
		memset(&s->fsig[b->fsigs[i].idx], 0, sizeof(*s->fsig));
	}
	b->fsig = NULL;
	batch_scratch_free(b);
	/*
	 * A module is one batch: nothing reads its DWARF again, and its
	 * dedup is the encoder's peak.  So every page of the file goes back
	 * first, the relocated sections' too (7.3's xfs.ko: 6 MB).
	 */
	if (e->ctx.base)
		elf_file__drop_all(&e->ctx.ef);
	t1 = thread_cpu();
	j->t_encode = t1 - t0;
	err = enc_dedup(e, &b->btf);
	j->t_dedup = thread_cpu() - t1;
	if (err)
		return enc_batch__err(b, err, "BTF dedup failed: %s", strerror(-err));
	return 0;
}

/* --- merging batches, in order --- */

/*
 * A function's FUNC of its weak definition, then of its strong one
 * (index_funcs): the weak one's FUNC, and every FUNC of it folded into it
 * since the last dedup, point at the weak prototype, and must point at
 * the strong one.  They are among e->recent (the FUNCs since the last
 * dedup: dedup left one FUNC of each function before them), told by
 * prototype and name.
 */
struct strong_switch {
	uint32_t old, now, name;
};

static void apply_switches(struct encoder *e, const struct strong_switch *sw, size_t n)
{
	struct btf_type *t;
	size_t i, k;

	for (i = 0; i < e->nrecent; i++) {
		t = (struct btf_type *)btf__type_by_id(e->acc, e->recent[i]);
		for (k = 0; k < n; k++)
			if (t->type == sw[k].old && t->name_off == sw[k].name)
				t->type = sw[k].now;
	}
}

/*
 * Each function's FUNC in acc: the first one met, later ones folded into
 * it.  Under pahole 1.32's rules the prototype is the definition's at the
 * symbol's address (the strong one, not a weak stub: dcu__emit_func marks
 * it with FUNC_MARK_AT_SYM, cleared here): a marked FUNC met after an
 * unmarked one takes its place, and the unmarked one is folded into it.
 * func_at keeps which kind won across acc_dedup's re-indexing, when every
 * mark is gone.
 */
static int index_funcs(struct encoder *e, uint32_t from)
{
	uint32_t id, n = btf__type_cnt(e->acc);
	struct strong_switch *sw = NULL;
	size_t nsw = 0, sw_cap = 0;
	const struct btf_type *t;
	struct btf_type *m;
	bool at_sym;
	int idx, err = 0;

	if (e->ctx.base && from < btf__type_cnt(e->ctx.base))
		from = btf__type_cnt(e->ctx.base);
	for (id = from; id < n; id++) {
		t = btf__type_by_id(e->acc, id);
		if (!btf_is_func(t))
			continue;
		m = (struct btf_type *)t;
		/* A FUNC's linkage is its vlen (the info word's low 16 bits). */
		at_sym = btf_vlen(t) == FUNC_MARK_AT_SYM && e->func_at;
		if (at_sym)
			m->info = (m->info & ~0xffffu) | BTF_FUNC_STATIC;
		idx = enc_ctx__func_of(&e->ctx, btf__name_by_offset(e->acc, t->name_off));
		if (idx < 0)
			continue;
		if (e->func_at && id >= e->dedup_size) {
			if (array__grow(&e->recent, &e->recent_cap, e->nrecent + 1,
					sizeof(*e->recent), 1024))
				err = -ENOMEM;
			else
				e->recent[e->nrecent++] = id;
		}
		if (!e->func_id[idx]) {
			e->func_id[idx] = id;
			if (e->func_at && !e->func_at[idx])
				e->func_at[idx] = at_sym ? FUNC_AT_SYM : FUNC_WEAK;
		} else if (id != e->func_id[idx] && at_sym && e->func_at[idx] == FUNC_WEAK) {
			/* The strong definition after a weak one's FUNC. */
			if (array__grow(&sw, &sw_cap, nsw + 1, sizeof(*sw), 16)) {
				err = -ENOMEM;
			} else {
				m = (struct btf_type *)btf__type_by_id(e->acc, e->func_id[idx]);
				sw[nsw++] = (struct strong_switch){ m->type, t->type, t->name_off };
				m->type = t->type;
			}
			e->func_id[idx] = id;
			e->func_at[idx] = FUNC_AT_SYM;
			e->folded++;
		} else if (id != e->func_id[idx]) {
			/* A later CU's FUNC of a known name: make dedup fold it. */
			m->type = btf__type_by_id(e->acc, e->func_id[idx])->type;
			e->folded++;
		}
	}
	if (nsw) {
		apply_switches(e, sw, nsw);
		/* The weak FUNCs now equal the strong: a dedup must follow,
		 * even after the first batch alone (run()'s last acc_dedup). */
		e->since_dedup++;
	}
	free(sw);
	return err;
}

/* The batches' verdicts on saved functions, in batch order: the first
 * definition's prototype is the one every later one must match. */
static void merge_fsigs(struct encoder *e, const struct enc_batch *b)
{
	size_t i;

	for (i = 0; i < b->nfsigs; i++) {
		const struct enc_fsig *s = &b->fsigs[i].s;
		struct enc_fsig *d = &e->fsig[b->fsigs[i].idx];

		if (!(d->flags & FSIG_SEEN)) {
			*d = *s;
			continue;
		}
		d->flags |= s->flags & FSIG_DROP;
		if (d->sig != s->sig)
			d->flags |= FSIG_MISMATCH;
	}
}

/*
 * pahole leaves out a saved function (consistent_func, optimized_func)
 * whose definitions disagree or that has a parameter in an unexpected
 * register.  Its FUNC was emitted by the first definition's batch: it
 * goes, with the prototypes folded FUNCs left unused (one rebuild).
 */
static int drop_funcs(struct encoder *e)
{
	uint32_t id, n = btf__type_cnt(e->acc), start = 1;
	bool protos = e->folded && !e->ctx.base;
	const struct btf_type *t;
	uint8_t *drop = NULL;
	size_t ndrop = 0;
	int idx, err;

	if (e->fsig) {
		if (e->ctx.base)
			start = btf__type_cnt(e->ctx.base);
		drop = calloc(n, 1);
		if (!drop)
			return -ENOMEM;
		for (id = start; id < n; id++) {
			t = btf__type_by_id(e->acc, id);
			if (!btf_is_func(t))
				continue;
			idx = enc_ctx__func_of(&e->ctx, btf__name_by_offset(e->acc, t->name_off));
			if (idx >= 0 && (e->fsig[idx].flags & FSIG_DROP)) {
				drop[id] = 1;
				ndrop++;
			}
		}
	}
	e->dropped = ndrop;
	err = ndrop || protos ? enc_gc(&e->acc, e->ctx.base, ndrop ? drop : NULL, protos) : 0;
	free(drop);
	return err;
}

static int acc_dedup(struct encoder *e)
{
	int err = enc_dedup(e, &e->acc);

	if (err)
		return err;
	memset(e->func_id, 0, (e->ctx.nfuncs + 1) * sizeof(*e->func_id));
	e->since_dedup = 0;
	e->dedup_size = btf__type_cnt(e->acc);
	e->nrecent = 0;
	return index_funcs(e, 1);
}

static int merge_job(struct encoder *e, struct job *j)
{
	struct enc_batch *b = &j->b;
	uint32_t start;
	int err;

	/* Room for twice what is needed at the first batch: few, large reallocs
	 * (from 1024, doubling, peak RSS was 2.8 MB higher on a vmlinux). */
	if (array__grow(&e->vars, &e->vars_cap, e->nvars + b->nvars, sizeof(*e->vars),
			2 * (e->nvars + b->nvars)))
		return -ENOMEM;
	if (b->nvars)
		memcpy(e->vars + e->nvars, b->vars, b->nvars * sizeof(*b->vars));
	e->nvars += b->nvars;
	merge_fsigs(e, b);
	if (!e->acc) {
		/* The first batch becomes the result. */
		e->acc = b->btf;
		b->btf = NULL;
		err = index_funcs(e, 1);
		e->dedup_size = btf__type_cnt(e->acc);
		return err;
	}
	start = btf__type_cnt(e->acc);
	err = btf__add_btf(e->acc, b->btf);
	if (err < 0)
		return err;
	err = index_funcs(e, start);
	if (err)
		return err;
	e->since_dedup += btf__type_cnt(e->acc) - start;
	if (e->since_dedup >= MERGE_MIN_TYPES && e->since_dedup >= e->dedup_size)
		return acc_dedup(e);
	return 0;
}

static int cmp_secinfo(const void *a, const void *b)
{
	const struct btf_var_secinfo *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->type < y->type ? -1 : x->type > y->type;
}

/* The DATASEC of one section over its VARs, sorted by offset. */
static int add_one_datasec(struct encoder *e, const char *name, struct btf_var_secinfo *si,
			   size_t k)
{
	size_t i;
	int err;

	qsort(si, k, sizeof(*si), cmp_secinfo);
	/* pahole sizes the DATASEC to the end of its last variable. */
	err = btf__add_datasec(e->acc, name, k ? si[k - 1].offset + si[k - 1].size : 0);
	for (i = 0; err >= 0 && i < k; i++)
		err = btf__add_datasec_var_info(e->acc, si[i].type, si[i].offset, si[i].size);
	return err < 0 ? err : 0;
}

static const char *sec_name(const struct encoder *e, uint32_t shndx)
{
	size_t i;

	if (e->ctx.has_pcpu && shndx == e->ctx.pcpu_shndx)
		return ".data..percpu";
	for (i = 0; i < e->ctx.nsecs; i++)
		if (e->ctx.secs[i].shndx == shndx)
			return e->ctx.secs[i].name;
	return NULL;
}

/*
 * One DATASEC per section that has VARs, in section order (pahole's):
 * .data..percpu only, unless global_var.  The k-th VAR of the result is
 * the k-th recorded slot: batches and merges keep VARs in order.
 */
static int add_datasec(struct encoder *e)
{
	struct btf_var_secinfo *si;
	uint32_t id, n = btf__type_cnt(e->acc), *varid, shndx, next;
	size_t k = 0, i, m;
	const char *name;
	int err = 0;

	if (!e->nvars)
		return 0;
	si = calloc(e->nvars, sizeof(*si));
	varid = calloc(e->nvars, sizeof(*varid));
	if (!si || !varid) {
		err = -ENOMEM;
		goto out;
	}
	id = e->ctx.base ? btf__type_cnt(e->ctx.base) : 1;
	for (; id < n && k < e->nvars; id++)
		if (btf_is_var(btf__type_by_id(e->acc, id)))
			varid[k++] = id;
	for (shndx = 0; !err && shndx != UINT32_MAX; shndx = next) {
		next = UINT32_MAX;
		for (i = 0, m = 0; i < k; i++) {
			if (e->vars[i].shndx == shndx)
				si[m++] = (struct btf_var_secinfo){ varid[i], e->vars[i].off,
								    e->vars[i].size };
			else if (e->vars[i].shndx > shndx && e->vars[i].shndx < next)
				next = e->vars[i].shndx;
		}
		name = sec_name(e, shndx);
		if (m && name)
			err = add_one_datasec(e, name, si, m);
	}
out:
	free(varid);
	free(si);
	return err;
}

/* --- threads --- */

struct worker {
	struct encoder *e;
	struct dwarf_src src;
	int err;
	pthread_t tid;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct encoder *e = w->e;
	struct job *j;
	size_t k;
	int err = w->err;

	for (;;) {
		pthread_mutex_lock(&e->lock);
		/* Bounded look-ahead keeps finished batches from piling up. */
		while (!e->stop && e->next_job < e->njobs &&
		       e->next_job > e->merged + (size_t)e->ctx.opts->jobs)
			pthread_cond_wait(&e->cond, &e->lock);
		if (e->stop || e->next_job >= e->njobs) {
			pthread_mutex_unlock(&e->lock);
			break;
		}
		k = e->next_job++;
		pthread_mutex_unlock(&e->lock);
		j = &e->jobs[k];
		j->err = err ? err : run_job(e, j, &w->src);
		pthread_mutex_lock(&e->lock);
		j->done = true;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	return NULL;
}

static int job_error(struct encoder *e, struct job *j)
{
	if (j->b.err[0])
		return enc_set_err(e->ctx.opts, j->err, "%s", j->b.err);
	if (j->err == -ENODATA)
		return enc_set_err(e->ctx.opts, j->err, "no DWARF: %s", dwarf_errmsg(-1));
	return enc_set_err(e->ctx.opts, j->err, "encoding failed: %s", strerror(-j->err));
}

/* Job J, done, into the result (or its error reported), with its times. */
static int take_job(struct encoder *e, struct job *j)
{
	struct btf_enc_times *t = e->ctx.opts->times;
	double t0 = thread_cpu();
	int err = j->err ? job_error(e, j) : merge_job(e, j);

	elf_file__drop_clean(&e->ctx.ef);
	batch_free(&j->b);
	if (t) {
		t->encode += j->t_encode;
		t->dedup += j->t_dedup;
		t->merge += thread_cpu() - t0;
	}
	return err;
}

static int run_threads(struct encoder *e)
{
	unsigned int n = e->ctx.opts->jobs, started = 0, i;
	struct worker *w;
	size_t k;
	int err = 0;

	if (n > e->njobs)
		n = e->njobs;
	w = calloc(n, sizeof(*w));
	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	for (i = 0; i < n; i++) {
		w[i].e = e;
		w[i].err = src_open_enc(&w[i].src, e);
		src_prime(&w[i].src, e);
	}
	for (i = 0; i < n; i++, started++)
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i]))
			break;
	if (!started)
		err = -EAGAIN;
	for (k = 0; !err && k < e->njobs; k++) {
		pthread_mutex_lock(&e->lock);
		while (!e->jobs[k].done)
			pthread_cond_wait(&e->cond, &e->lock);
		pthread_mutex_unlock(&e->lock);
		err = take_job(e, &e->jobs[k]);
		pthread_mutex_lock(&e->lock);
		e->merged = k + 1;
		if (err)
			e->stop = true;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	pthread_mutex_lock(&e->lock);
	e->stop = true;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	for (i = 0; i < n; i++)
		src_close(&w[i].src);
	for (k = 0; k < e->njobs; k++)
		batch_free(&e->jobs[k].b);
	free(w);
	return err;
}

static int run_serial(struct encoder *e)
{
	struct dwarf_src s;
	size_t k;
	int err;

	err = src_open_enc(&s, e);
	if (!err)
		src_prime(&s, e);
	for (k = 0; !err && k < e->njobs; k++) {
		e->jobs[k].err = run_job(e, &e->jobs[k], &s);
		err = take_job(e, &e->jobs[k]);
	}
	if (err == -ENODATA && !e->ctx.opts->errbuf[0])
		enc_set_err(e->ctx.opts, err, "no DWARF: %s", dwarf_errmsg(-1));
	src_close(&s);
	return err;
}

/* --- setup and output --- */

#define OVERLAP "sections overlap each other or the ELF headers"

static int open_input(struct encoder *e)
{
	const struct btf_enc_opts *o = e->ctx.opts;
	char why[128];
	Dwarf *dbg;
	struct dwarf_src s;
	int err;

	err = elf_file__open(&e->ctx.ef, o->path, why, sizeof(why));
	if (err)
		return enc_set_err(o, err, "%s", why);
	e->ctx.is_rel = e->ctx.ef.ehdr.e_type == ET_REL;
	err = elf_file__inflate_zstd(&e->ctx.ef);
	if (err)
		return enc_set_err(o, err, "zstd-compressed section: %s",
			       err == -ENOTSUP ? "cannot load libzstd.so.1" :
			       err == -ERANGE ? OVERLAP : "corrupt data");
	/*
	 * ET_REL: relocate the DWARF ourselves where we can (every worker can
	 * then share it, and zstd sections work); libdwfl does it otherwise.
	 */
	if (e->ctx.is_rel && elf_file__can_relocate(&e->ctx.ef)) {
		err = elf_file__relocate_debug(&e->ctx.ef);
		if (err)
			return enc_set_err(o, err, "cannot apply DWARF relocations: %s",
				       err == -ENOTSUP ? "unsupported relocation type" :
				       err == -ERANGE ? OVERLAP : "bad relocation section");
	} else if (e->ctx.is_rel && !e->ctx.ef.priv &&
		   (err = elf_file__check_layout(&e->ctx.ef))) {
		/* libdwfl will relocate it in a mapping of its own (src_open_rel). */
		return enc_set_err(o, err, "cannot apply DWARF relocations: %s",
			       err == -ERANGE ? OVERLAP : "bad section headers");
	}
	err = enc_ctx__load_syms(&e->ctx);
	if (err)
		return enc_set_err(o, err, "bad symbol table: %s", strerror(-err));
	err = src_open(&s, &e->ctx);
	dbg = s.dbg;
	if (err || !dbg) {
		src_close(&s);
		return enc_set_err(o, -ENODATA, "no DWARF%s%s", err == -ENODATA ? "" : ": ",
			       err == -ENODATA ? "" : dwarf_errmsg(-1));
	}
	err = list_cus(e, &s);
	src_release(&s, 0, s.info_len);
	src_close(&s);
	return err;
}

static int write_output(struct encoder *e)
{
	const struct btf_enc_opts *o = e->ctx.opts;
	const void *raw;
	__u32 len;
	int err;

	btf__set_endianness(e->acc, e->ctx.ef.ehdr.e_ident[EI_DATA] == ELFDATA2MSB
				    ? BTF_BIG_ENDIAN : BTF_LITTLE_ENDIAN);
	raw = btf__raw_data(e->acc, &len);
	if (!raw)
		return enc_set_err(o, -ENOMEM, "cannot serialize BTF");
	if (o->detached) {
		err = enc_write_raw(o->detached, raw, len);
	} else {
		/* A fresh view of the file: ctx.ef may hold inflated sections. */
		struct elf_file out;
		char why[128];

		err = elf_file__open(&out, o->path, why, sizeof(why));
		if (!err)
			err = enc_write_elf(&out, o->path, raw, len);
		elf_file__close(&out);
	}
	if (err)
		return enc_set_err(o, err, "cannot write %s: %s",
			       o->detached ? o->detached : "the .BTF section", strerror(-err));
	return 0;
}

static void encoder_free(struct encoder *e)
{
	size_t k;

	for (k = 0; e->jobs && k < e->njobs; k++)
		batch_free(&e->jobs[k].b);
	free(e->jobs);
	free(e->cus);
	free(e->vars);
	free(e->func_id);
	free(e->func_at);
	free(e->recent);
	free(e->fsig);
	free(e->ctx.secs);
	free(e->ctx.objs);
	btf__free(e->acc);
	dedup_lb__free(e->ctx.lb);
	enc_basing__free(&e->basing, &e->ctx);
	free(e->ctx.funcs);
	free(e->ctx.func_ambig);
	free(e->ctx.func_addr);
	free(e->ctx.func_hash);
	free(e->ctx.pre_hash);
	free(e->ctx.pcpu);
	free(e->ctx.pcpu_shadow);
	elf_file__close(&e->ctx.ef);
}

static int encode(const struct btf_enc_opts *opts, enum enc_base_policy policy)
{
	struct encoder e = { .ctx = { .opts = opts, .feats = opts->features },
			     .basing = { .policy = policy } };
	struct btf_enc_times *t = opts->times;
	double t0 = thread_cpu(), t1;
	int err;

	opts->errbuf[0] = '\0';
	if (t)
		memset(t, 0, sizeof(*t));
	e.ctx.ef.fd = -1;
	if (opts->lang_exclude) {
		err = parse_langs(&e.ctx, opts->lang_exclude);
		if (err)
			goto out;
	}
	/* The base as its policy has it: loaded first, or once the DWARF is open. */
	err = enc_basing__before(&e.basing, &e.ctx);
	if (!err)
		err = open_input(&e);
	if (!err)
		err = enc_basing__after(&e.basing, &e.ctx);
	if (err)
		goto out;
	err = -ENOMEM;
	e.func_id = calloc(e.ctx.nfuncs + 1, sizeof(*e.func_id));
	if (e.ctx.func_addr)
		e.func_at = calloc(e.ctx.nfuncs + 1, 1);
	if (!e.func_id || (e.ctx.func_addr && !e.func_at) || plan_jobs(&e))
		goto out;
	/* consistent_func, optimized_func: functions wait for every CU's verdict. */
	if (e.ctx.nfuncs && (opts->features & (BTF_FEAT_CONSISTENT_FUNC |
					       BTF_FEAT_OPTIMIZED_FUNC))) {
		e.fsig = calloc(e.ctx.nfuncs + 1, sizeof(*e.fsig));
		if (!e.fsig)
			goto out;
	}
	if (t)
		t->setup = thread_cpu() - t0;
	/* libdwfl relocates in a private copy per handle: one worker then. */
	if (opts->jobs > 1 && e.njobs > 1 && (!e.ctx.is_rel || e.ctx.ef.priv))
		err = run_threads(&e);
	else
		err = run_serial(&e);
	t1 = thread_cpu();
	if (!err && e.since_dedup)
		err = acc_dedup(&e);
	if (!err)
		err = drop_funcs(&e);
	if (!err)
		err = add_datasec(&e);
	if (!err && (opts->features & BTF_FEAT_DECL_TAG_KFUNCS))
		err = enc_tag_kfuncs(&e.ctx, e.acc);
	if (err) {
		enc_set_err(opts, err, "encoding failed: %s", strerror(-err));
		goto out;
	}
	/*
	 * A string the pruned base had dropped came in after dedup; else the
	 * real base's ids and offsets go back in, in place (nothing has asked
	 * libbpf for acc's raw bytes yet, so none are cached stale).
	 */
	if (e.basing.pruned && (enc_base__check(e.basing.pruned, e.acc) ||
				enc_base__restore(e.basing.pruned, e.acc))) {
		err = ENC_AGAIN;
		goto out;
	}
	if (t)
		t->finish = thread_cpu() - t1;
	t1 = thread_cpu();
	err = write_output(&e);
	if (t) {
		t->write = thread_cpu() - t1;
		t->base = !opts->base ? NULL : e.basing.pruned ? "pruned" : "whole";
	}
out:
	encoder_free(&e);
	return err;
}

int btf_enc__run(const struct btf_enc_opts *opts)
{
	int err = encode(opts, enc_base__policy(opts, opts->full_base));

	/* Rare: the module added a string the pruned base had dropped. */
	if (err == ENC_AGAIN) {
		err = encode(opts, ENC_BASE_WHOLE);
		if (opts->times && opts->times->base)
			opts->times->base = "whole, after a retry";
	}
	return err;
}
