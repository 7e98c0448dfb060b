// SPDX-License-Identifier: GPL-2.0
/* ELF files read through mmap: sections and symbols without copies. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/array.h"
#include "lib/elf_file.h"

int elf_file__open(struct elf_file *ef, const char *path, char *why, size_t whylen)
{
	const char *reason = NULL;
	struct stat st;
	int err;

	memset(ef, 0, sizeof(*ef));
	ef->fd = -1;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		reason = "libelf is too old";
		err = -EINVAL;
		goto err_close;
	}
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0) {
		err = -errno;
		goto err_close;
	}
	if (fstat(ef->fd, &st)) {
		err = -errno;
		goto err_close;
	}
	ef->size = st.st_size;
	err = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		reason = "not a regular file";
		goto err_close;
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		reason = "not an ELF file";
		goto err_close;
	}
	if (!gelf_getehdr(ef->elf, &ef->ehdr) || elf_getshdrstrndx(ef->elf, &ef->shstrndx)) {
		reason = elf_errmsg(-1);
		goto err_close;
	}
	return 0;
err_close:
	snprintf(why, whylen, "%s", reason ? reason : strerror(-err));
	elf_file__close(ef);
	return err;
}

const char *elf_machine__name(uint16_t e_machine, char *buf, size_t len)
{
	switch (e_machine) {
	case EM_X86_64:	return "x86_64";
	case EM_AARCH64: return "aarch64";
	case EM_386:	return "i386";
	case EM_ARM:	return "arm";
	case EM_RISCV:	return "riscv";
	case EM_S390:	return "s390";
	case EM_PPC64:	return "ppc64";
	case EM_PPC:	return "ppc";
	case EM_MIPS:	return "mips";
	case EM_SPARCV9: return "sparc64";
	case EM_LOONGARCH: return "loongarch";
	default:
		snprintf(buf, len, "machine %u", e_machine);
		return buf;
	}
}

void elf_file__close(struct elf_file *ef)
{
	size_t i;

	if (ef->elf)
		elf_end(ef->elf);
	for (i = 0; i < ef->nbufs; i++)
		free(ef->bufs[i]);
	free(ef->bufs);
	ef->bufs = NULL;
	ef->nbufs = ef->bufs_cap = 0;
	if (ef->fd >= 0)
		close(ef->fd);
	ef->elf = NULL;
	ef->fd = -1;
}

const char *elf_file__section_name(const struct elf_file *ef, const GElf_Shdr *shdr)
{
	return elf_strptr(ef->elf, ef->shstrndx, shdr->sh_name);
}

Elf_Scn *elf_file__section(const struct elf_file *ef, const char *name, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;
	const char *n;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_file__section_name(ef, shdr);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

int elf_file__symtab(const struct elf_file *ef, struct elf_symtab *st)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	size_t idx = 0;

	memset(st, 0, sizeof(*st));
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_SYMTAB)
			continue;
		st->syms = elf_getdata(scn, NULL);
		if (!st->syms || !shdr.sh_entsize)
			return -EINVAL;
		st->strndx = shdr.sh_link;
		st->count = shdr.sh_size / shdr.sh_entsize;
		idx = elf_ndxscn(scn);
		break;
	}
	if (!st->syms)
		return -ENOENT;
	scn = NULL;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (gelf_getshdr(scn, &shdr) && shdr.sh_type == SHT_SYMTAB_SHNDX &&
		    shdr.sh_link == idx) {
			st->xndx = elf_getdata(scn, NULL);
			break;
		}
	}
	return 0;
}

const char *elf_file__sym(const struct elf_file *ef, const struct elf_symtab *st,
			  size_t i, GElf_Sym *sym, Elf32_Word *shndx)
{
	if (!gelf_getsymshndx(st->syms, st->xndx, (int)i, sym, shndx))
		return NULL;
	if (sym->st_shndx != SHN_XINDEX)
		*shndx = sym->st_shndx;
	if (!sym->st_name)
		return NULL;
	return elf_strptr(ef->elf, st->strndx, sym->st_name);
}

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

typedef size_t (*zstd_decompress_fn)(void *dst, size_t cap, const void *src, size_t len);
typedef unsigned int (*zstd_iserror_fn)(size_t code);

/*
 * libzstd is loaded only when an input needs it: libelf already links
 * zlib for the common case, and most inputs are not zstd-compressed.
 */
static int zstd_load(zstd_decompress_fn *dec, zstd_iserror_fn *iserr)
{
	static void *h;

	if (!h)
		h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOTSUP;
	*dec = (zstd_decompress_fn)dlsym(h, "ZSTD_decompress");
	*iserr = (zstd_iserror_fn)dlsym(h, "ZSTD_isError");
	return *dec && *iserr ? 0 : -ENOTSUP;
}

struct span {
	uint64_t lo, hi;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Edits in a copy-on-write mapping land wherever the section header says
 * the section lies.  libelf reads the ELF and section headers in place in
 * that mapping, and elf_file__drop_clean() gives back pages it takes to
 * hold only one section's file bytes: so a section that overlaps the
 * headers or another section would turn a relocation into a rewritten
 * section header (a string table's size, say) or lose an edit.  Linkers
 * never write such files; a crafted one is refused before anything is
 * edited.
 */
int elf_file__check_layout(const struct elf_file *ef)
{
	size_t shnum, n = 0, i;
	uint64_t hsize = gelf_fsize(ef->elf, ELF_T_SHDR, 1, EV_CURRENT);
	Elf_Scn *scn = NULL;
	struct span *s;
	GElf_Shdr sh;
	int err = 0;

	if (elf_getshdrnum(ef->elf, &shnum) || !hsize)
		return -EINVAL;
	s = calloc(shnum + 2, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s[n++] = (struct span){ 0, gelf_fsize(ef->elf, ELF_T_EHDR, 1, EV_CURRENT) };
	if (shnum && (shnum > ef->size / hsize ||
		      !elf_range_ok(ef->ehdr.e_shoff, shnum * hsize, ef->size)))
		err = -ERANGE;
	if (shnum)
		s[n++] = (struct span){ ef->ehdr.e_shoff, ef->ehdr.e_shoff + shnum * hsize };
	while (!err && (scn = elf_nextscn(ef->elf, scn)) && n < shnum + 2) {
		if (!gelf_getshdr(scn, &sh)) {
			err = -EINVAL;
			break;
		}
		if (sh.sh_type == SHT_NOBITS || !sh.sh_size)
			continue;
		if (!elf_range_ok(sh.sh_offset, sh.sh_size, ef->size))
			err = -ERANGE;
		s[n++] = (struct span){ sh.sh_offset, sh.sh_offset + sh.sh_size };
	}
	if (!err) {
		qsort(s, n, sizeof(*s), span_cmp);
		for (i = 1; i < n && !err; i++)
			if (s[i].lo < s[i - 1].hi)
				err = -ERANGE;
	}
	free(s);
	return err;
}

int elf_file__make_private(struct elf_file *ef)
{
	Elf *priv;
	int err;

	if (ef->priv)
		return 0;
	err = elf_file__check_layout(ef);
	if (err)
		return err;
	priv = elf_begin(ef->fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (!priv)
		return -EINVAL;
	elf_end(ef->elf);
	ef->elf = priv;
	ef->priv = true;
	return 0;
}

#define ZSTD_MAX_RATIO 32768

static bool is_zstd(Elf_Scn *scn, const GElf_Shdr *shdr, GElf_Chdr *chdr)
{
	return (shdr->sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, chdr) &&
	       chdr->ch_type == ELFCOMPRESS_ZSTD;
}

static int inflate_one(struct elf_file *ef, Elf_Scn *scn, GElf_Shdr *shdr,
		       const GElf_Chdr *chdr, zstd_decompress_fn dec, zstd_iserror_fn iserr)
{
	size_t hdr = gelf_fsize(ef->elf, ELF_T_CHDR, 1, EV_CURRENT);
	Elf_Data *raw, *d;
	void *buf;
	size_t n;

	raw = elf_rawdata(scn, NULL);
	if (!raw || !raw->d_buf || raw->d_size < hdr || chdr->ch_size > (1ull << 34))
		return -EINVAL;
	/*
	 * The header's size is the file's word; don't allocate on it alone.  A
	 * zstd block holds at most 128 KB and takes at least 4 bytes (an RLE
	 * block), so no frame inflates more than 32768-fold.
	 */
	if (chdr->ch_size / ZSTD_MAX_RATIO > raw->d_size - hdr)
		return -EINVAL;
	buf = malloc(chdr->ch_size ? chdr->ch_size : 1);
	if (!buf || array__grow(&ef->bufs, &ef->bufs_cap, ef->nbufs + 1, sizeof(*ef->bufs), 8)) {
		free(buf);
		return -ENOMEM;
	}
	ef->bufs[ef->nbufs++] = buf;
	n = dec(buf, chdr->ch_size, (const char *)raw->d_buf + hdr, raw->d_size - hdr);
	if (iserr(n) || n != chdr->ch_size)
		return -EINVAL;
	d = elf_getdata(scn, NULL);
	if (!d)
		return -EINVAL;
	d->d_buf = buf;
	d->d_size = n;
	d->d_type = ELF_T_BYTE;
	d->d_align = chdr->ch_addralign;
	shdr->sh_flags &= ~SHF_COMPRESSED;
	shdr->sh_size = n;
	return gelf_update_shdr(scn, shdr) ? 0 : -EINVAL;
}

int elf_file__inflate_zstd(struct elf_file *ef)
{
	zstd_decompress_fn dec = NULL;
	zstd_iserror_fn iserr = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Chdr chdr;
	bool any = false;
	int err;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &shdr) && is_zstd(scn, &shdr, &chdr))
			any = true;
	if (!any)
		return 0;
	err = zstd_load(&dec, &iserr);
	if (err)
		return err;
	/* Headers are edited in memory: map the file copy-on-write. */
	err = elf_file__make_private(ef);
	if (err)
		return err;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &shdr) || !is_zstd(scn, &shdr, &chdr))
			continue;
		err = inflate_one(ef, scn, &shdr, &chdr, dec, iserr);
		if (err)
			return err;
	}
	return 0;
}

/* Relocation types that DWARF sections use: absolute 32- and 64-bit words. */
static int reloc_width(unsigned int machine, unsigned int type)
{
	switch (machine) {
	case EM_X86_64:
		return type == R_X86_64_64 ? 8 : type == R_X86_64_32 ||
		       type == R_X86_64_32S ? 4 : type == R_X86_64_NONE ? 0 : -1;
	case EM_AARCH64:
		return type == R_AARCH64_ABS64 ? 8 : type == R_AARCH64_ABS32 ? 4
		       : type == R_AARCH64_NONE ? 0 : -1;
	default:
		return -1;
	}
}

bool elf_file__can_relocate(const struct elf_file *ef)
{
	return ef->ehdr.e_machine == EM_X86_64 || ef->ehdr.e_machine == EM_AARCH64;
}

/*
 * Give back the mapped pages of file bytes [OFF, OFF + LEN) read for the
 * last time.  Only pages wholly inside: a page shared with a section
 * edited in memory would lose the edits.  Pages only read come back from
 * the file if a later reader wants them.
 */
static void drop_span(struct elf_file *ef, uint64_t off, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), start, end;
	size_t size;
	char *map = elf_rawfile(ef->elf, &size);

	if (!map || off > size || len > size - off)
		return;
	start = ((uintptr_t)map + off + page - 1) & ~(page - 1);
	end = ((uintptr_t)map + off + len) & ~(page - 1);
	if (end > start)
		madvise((void *)start, end - start, MADV_DONTNEED);
}

/* The same for a whole section (the relocations once applied: 29 MB in a
 * large module). */
static void drop_pages(struct elf_file *ef, const GElf_Shdr *sh)
{
	if (sh->sh_type != SHT_NOBITS)
		drop_span(ef, sh->sh_offset, sh->sh_size);
}

#define RELA_STEP (1u << 20)

static int apply_rela(struct elf_file *ef, Elf_Scn *rscn, const GElf_Shdr *rsh,
		      Elf_Data *target, Elf_Data *syms)
{
	bool swap = ef->ehdr.e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
						  ? ELFDATA2LSB : ELFDATA2MSB);
	Elf_Data *rd = elf_getdata(rscn, NULL);
	size_t i, n, step;
	GElf_Rela r;
	GElf_Sym sym;
	uint64_t v;
	int w;

	if (!rd || !rsh->sh_entsize || swap)
		return -EINVAL;
	n = rsh->sh_size / rsh->sh_entsize;
	step = RELA_STEP / rsh->sh_entsize ?: 1;
	for (i = 0; i < n; i++) {
		/* Each MB of relocations read goes back at once: a large
		 * module's are more than its DWARF (36 MB in 7.3's xfs.ko). */
		if (i && !(i % step))
			drop_span(ef, rsh->sh_offset + (i - step) * rsh->sh_entsize,
				  step * rsh->sh_entsize);
		if (!gelf_getrela(rd, (int)i, &r))
			return -EINVAL;
		w = reloc_width(ef->ehdr.e_machine, GELF_R_TYPE(r.r_info));
		if (w < 0)
			return -ENOTSUP;
		if (!w)
			continue;
		if (!elf_range_ok(r.r_offset, (uint64_t)w, target->d_size) ||
		    !gelf_getsym(syms, (int)GELF_R_SYM(r.r_info), &sym))
			return -EINVAL;
		/* An ET_REL symbol's value is its offset in its section. */
		v = sym.st_value + r.r_addend;
		if (w == 8) {
			memcpy((char *)target->d_buf + r.r_offset, &v, 8);
		} else {
			uint32_t v32 = (uint32_t)v;

			memcpy((char *)target->d_buf + r.r_offset, &v32, 4);
		}
	}
	return 0;
}

/* Is section NDX the target of a relocation section (edited when applied)? */
static bool reloc_target(struct elf_file *ef, size_t ndx)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_RELA || sh.sh_type == SHT_REL) &&
		    sh.sh_info == ndx)
			return true;
	return false;
}

void elf_file__drop_clean(struct elf_file *ef)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh) &&
		    !(ef->priv && reloc_target(ef, elf_ndxscn(scn))))
			drop_pages(ef, &sh);
}

void elf_file__drop_all(struct elf_file *ef)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)))
		if (gelf_getshdr(scn, &sh))
			drop_pages(ef, &sh);
}

int elf_file__relocate_debug(struct elf_file *ef)
{
	struct elf_symtab st;
	Elf_Scn *scn = NULL, *tscn;
	GElf_Shdr sh, tsh;
	Elf_Data *target;
	const char *name;
	int err;

	err = elf_file__make_private(ef);
	if (err)
		return err;
	err = elf_file__symtab(ef, &st);
	if (err)
		return err == -ENOENT ? 0 : err;
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		tscn = elf_getscn(ef->elf, sh.sh_info);
		if (!tscn || !gelf_getshdr(tscn, &tsh))
			return -EINVAL;
		name = elf_file__section_name(ef, &tsh);
		if (!name || strncmp(name, ".debug_", 7))
			continue;
		/* zlib: libelf inflates it in place (zstd was done before). */
		if ((tsh.sh_flags & SHF_COMPRESSED) && elf_compress(tscn, 0, 0) < 0)
			return -EINVAL;
		target = elf_getdata(tscn, NULL);
		/* A NOBITS target has a size but no bytes to relocate. */
		if (!target || (!target->d_buf && target->d_size))
			return -EINVAL;
		err = apply_rela(ef, scn, &sh, target, st.syms);
		if (err)
			return err;
		drop_pages(ef, &sh);
	}
	return 0;
}
