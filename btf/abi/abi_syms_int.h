/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a side's ELF file says of its symbol names, beside its BTF
 * (btf/abi/abi_syms.c): where each one is and what kind of thing it is
 * (from .symtab, or from the __ksymtab entries of a vmlinux that has
 * none), and, where the file has DWARF, the parameters of the function
 * defined at an address.  BTF has no addresses: these tell the exported
 * function among several of one name (a static one in another unit), and
 * what kind of thing an export without BTF is.  Nothing here prints.
 */
#ifndef FRUGAL_BTF_ABI_SYMS_INT_H
#define FRUGAL_BTF_ABI_SYMS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a symbol is, by its ELF symbol or the section its address lies in. */
enum abi_kind {
	ABI_KIND_UNKNOWN,	/* no ELF symbol (raw BTF, a stripped file) */
	ABI_KIND_FUNC,
	ABI_KIND_VAR,
	ABI_KIND_PERCPU,	/* a variable of .data..percpu */
	ABI_KIND_CNT,
};

/* Words for the report, one and more ("function", "functions"); JSON keys ("per_cpu_variables"). */
extern const char *const abi_kind_words[ABI_KIND_CNT][2];
extern const char *const abi_kind_keys[ABI_KIND_CNT];

/* The facts of a side's NAMES (sorted), by index. */
struct abi_elf {
	uint64_t *addr;		/* 0: not found */
	uint8_t *kind;		/* enum abi_kind */
	size_t n;
	bool linked;		/* ET_EXEC or ET_DYN: one address, one function */
	bool dwarf;		/* the file has .debug_info */
};

/*
 * PATH, an ELF file (not one: all unknown, 0): the address and kind of
 * each of NAMES[0, N), sorted.  0, or -errno with WHY filled.
 */
int abi_elf__read(struct abi_elf *ae, const char *path, char *const *names, size_t n,
		  char *why, size_t whylen);
void abi_elf__free(struct abi_elf *ae);

/*
 * The function PATH's DWARF defines at each of ADDR[0, N) (DW_AT_low_pc):
 * its parameters' names, ',' between them ("..." for a variable list), in
 * SIGS[i], malloc'd; NULL where none is found.  0 or -errno.
 */
int abi_elf__params(const char *path, const uint64_t *addr, size_t n, char **sigs);

#endif
