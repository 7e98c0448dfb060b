// SPDX-License-Identifier: GPL-2.0
/*
 * A side's symbols as its ELF file has them (btf/abi/abi_syms_int.h): the
 * global definitions of .symtab, or a vmlinux's __ksymtab entries when it
 * has no .symtab (the one taken out of a vmlinuz), and the parameters of
 * the DWARF function at an address.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "btf/abi/abi_syms_int.h"
#include "lib/elf_file.h"

const char *const abi_kind_words[ABI_KIND_CNT][2] = {
	[ABI_KIND_UNKNOWN] = { "of unknown kind", "of unknown kind" },
	[ABI_KIND_FUNC] = { "function", "functions" },
	[ABI_KIND_VAR] = { "variable", "variables" },
	[ABI_KIND_PERCPU] = { "per-CPU variable", "per-CPU variables" },
};

const char *const abi_kind_keys[ABI_KIND_CNT] = {
	[ABI_KIND_UNKNOWN] = "unknown", [ABI_KIND_FUNC] = "functions",
	[ABI_KIND_VAR] = "variables", [ABI_KIND_PERCPU] = "per_cpu_variables",
};

static int cmp_name(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

static long find_name(char *const *names, size_t n, const char *name)
{
	char *const *p = n ? bsearch(name, names, n, sizeof(*names), cmp_name) : NULL;

	return p ? p - names : -1;
}

/* The kind of what lies at ADDR: by the allocated section holding it. */
static enum abi_kind kind_at(const struct elf_file *ef, uint64_t addr)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	const char *name;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		name = elf_file__section_name(ef, &sh);
		if (name && !strcmp(name, ".data..percpu"))
			return ABI_KIND_PERCPU;
		return sh.sh_flags & SHF_EXECINSTR ? ABI_KIND_FUNC : ABI_KIND_VAR;
	}
	return ABI_KIND_UNKNOWN;
}

/* .symtab's global and weak definitions of NAMES (a global wins over a weak). */
static void from_symtab(struct abi_elf *ae, const struct elf_file *ef,
			const struct elf_symtab *st, char *const *names)
{
	uint8_t *weak = calloc(ae->n ? ae->n : 1, 1);
	const char *name;
	Elf32_Word shndx;
	GElf_Sym sym;
	size_t i;
	int type, bind;
	long k;

	for (i = 0; weak && i < st->count; i++) {
		name = elf_file__sym(ef, st, i, &sym, &shndx);
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (!name || sym.st_shndx == SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
		    (type != STT_FUNC && type != STT_OBJECT && (type != STT_NOTYPE || !ae->linked)))
			continue;
		k = find_name(names, ae->n, name);
		if (k < 0 || (ae->kind[k] && (bind == STB_WEAK || !weak[k])))
			continue;
		weak[k] = bind == STB_WEAK;
		ae->addr[k] = sym.st_value;
		ae->kind[k] = type == STT_FUNC ? ABI_KIND_FUNC : ABI_KIND_VAR;
		/* An assembler label (NOTYPE), a per-CPU variable: by the section it is in. */
		if (ae->linked && type != STT_FUNC)
			ae->kind[k] = (uint8_t)kind_at(ef, sym.st_value);
	}
	free(weak);
}

/* The bytes at virtual address ADDR of a linked file, *AVAIL of them; NULL: none. */
static const char *at_addr(const struct elf_file *ef, uint64_t addr, size_t *avail)
{
	Elf_Scn *scn = NULL;
	Elf_Data *d;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !(sh.sh_flags & SHF_ALLOC) ||
		    addr < sh.sh_addr || addr - sh.sh_addr >= sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr >= d->d_size)
			return NULL;
		*avail = d->d_size - (addr - sh.sh_addr);
		return (const char *)d->d_buf + (addr - sh.sh_addr);
	}
	return NULL;
}

/*
 * A vmlinux without .symtab: its __ksymtab and __ksymtab_gpl entries,
 * each three 32-bit offsets from where they lie (value, name, namespace:
 * x86_64 and arm64 since 4.19), the name in __ksymtab_strings.
 */
static void from_ksymtab(struct abi_elf *ae, const struct elf_file *ef, char *const *names)
{
	static const char *const secs[] = { "__ksymtab", "__ksymtab_gpl" };
	const char *name;
	int32_t off[2];
	Elf_Data *d;
	GElf_Shdr sh;
	Elf_Scn *scn;
	uint64_t at, value;
	size_t s, i, avail;
	long k;

	if (ef->ehdr.e_machine != EM_X86_64 && ef->ehdr.e_machine != EM_AARCH64)
		return;
	for (s = 0; s < 2; s++) {
		scn = elf_file__section(ef, secs[s], &sh);
		d = scn ? elf_getdata(scn, NULL) : NULL;
		if (!d || !d->d_buf || sh.sh_size % 12 || d->d_size != sh.sh_size)
			continue;
		for (i = 0; i + 12 <= d->d_size; i += 12) {
			memcpy(off, (const char *)d->d_buf + i, sizeof(off));
			at = sh.sh_addr + i;
			value = at + (uint64_t)(int64_t)off[0];
			name = at_addr(ef, at + 4 + (uint64_t)(int64_t)off[1], &avail);
			k = name && memchr(name, 0, avail) ? find_name(names, ae->n, name) : -1;
			if (k < 0)
				continue;
			ae->addr[k] = value;
			ae->kind[k] = (uint8_t)kind_at(ef, value);
		}
	}
}

int abi_elf__read(struct abi_elf *ae, const char *path, char *const *names, size_t n,
		  char *why, size_t whylen)
{
	struct elf_file ef;
	struct elf_symtab st;
	GElf_Shdr sh;
	int err;

	memset(ae, 0, sizeof(*ae));
	ae->n = n;
	ae->addr = calloc(n ? n : 1, sizeof(*ae->addr));
	ae->kind = calloc(n ? n : 1, sizeof(*ae->kind));
	if (!ae->addr || !ae->kind) {
		abi_elf__free(ae);
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	err = elf_file__open(&ef, path, why, whylen);
	if (err) {
		abi_elf__free(ae);
		return err;
	}
	ae->linked = ef.ehdr.e_type == ET_EXEC || ef.ehdr.e_type == ET_DYN;
	ae->dwarf = elf_file__section(&ef, ".debug_info", &sh) != NULL;
	if (!elf_file__symtab(&ef, &st))
		from_symtab(ae, &ef, &st, names);
	else if (ae->linked)
		from_ksymtab(ae, &ef, names);
	elf_file__close(&ef);
	return 0;
}

void abi_elf__free(struct abi_elf *ae)
{
	free(ae->addr);
	free(ae->kind);
	memset(ae, 0, sizeof(*ae));
}

/* DIE's parameters' names, ',' between them (an unnamed one: "?"); NULL: no memory. */
static char *param_names(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die child, origin;
	const char *name;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool first = true;

	if (!f)
		return NULL;
	/* An out-of-line instance lists its parameters in its abstract origin, if not itself. */
	if (dwarf_child(die, &child) &&
	    dwarf_attr(die, DW_AT_abstract_origin, &attr) && dwarf_formref_die(&attr, &origin))
		die = &origin;
	if (!dwarf_child(die, &child)) {
		do {
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_unspecified_parameters) {
				fprintf(f, "%s...", first ? "" : ",");
				first = false;
			} else if (tag == DW_TAG_formal_parameter) {
				name = dwarf_formstring(dwarf_attr_integrate(&child, DW_AT_name, &attr));
				fprintf(f, "%s%s", first ? "" : ",", name ? name : "?");
				first = false;
			}
		} while (!dwarf_siblingof(&child, &child));
	}
	if (fclose(f))
		return NULL;
	return buf;
}

/* CU's top-level functions defined at one of ADDR: their parameters into SIGS. */
static int scan_cu(Dwarf_Die *cu, const uint64_t *addr, size_t n, char **sigs)
{
	Dwarf_Die die;
	Dwarf_Addr low;
	size_t i;

	if (dwarf_child(cu, &die))
		return 0;
	do {
		if (dwarf_tag(&die) != DW_TAG_subprogram || dwarf_lowpc(&die, &low))
			continue;
		for (i = 0; i < n; i++) {
			if (sigs[i] || addr[i] != low)
				continue;
			sigs[i] = param_names(&die);
			if (!sigs[i])
				return -ENOMEM;
		}
	} while (!dwarf_siblingof(&die, &die));
	return 0;
}

int abi_elf__params(const char *path, const uint64_t *addr, size_t n, char **sigs)
{
	struct elf_file ef;
	Dwarf_Off off = 0, next;
	Dwarf_Die cu;
	Dwarf *dw;
	size_t hsize, i;
	char why[256];
	int err;
	bool in;

	memset(sigs, 0, n * sizeof(*sigs));
	err = elf_file__open(&ef, path, why, sizeof(why));
	if (err)
		return err;
	err = elf_file__inflate_zstd(&ef);
	dw = err ? NULL : dwarf_begin_elf(ef.elf, DWARF_C_READ, NULL);
	if (!dw) {
		elf_file__close(&ef);
		return err ? err : -ENODATA;
	}
	while (!err && !dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		if (dwarf_offdie(dw, off + hsize, &cu)) {
			for (i = 0, in = false; !in && i < n; i++)
				in = !sigs[i] && addr[i] && dwarf_haspc(&cu, addr[i]) > 0;
			if (in)
				err = scan_cu(&cu, addr, n, sigs);
		}
		off = next;
	}
	dwarf_end(dw);
	elf_file__close(&ef);
	if (err)
		for (i = 0; i < n; i++) {
			free(sigs[i]);
			sigs[i] = NULL;
		}
	return err;
}
