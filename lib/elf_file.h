/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elf_file: an ELF file read through mmap (ELF_C_READ_MMAP), so section
 * data costs page cache, not heap, and untouched sections cost nothing.
 * Symbols are iterated in place over the mapped .symtab.
 */
#ifndef FRUGAL_ELF_FILE_H
#define FRUGAL_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	size_t size;		/* file size in bytes */
};

/* Open PATH read-only.  0 or -errno; on -EINVAL *why says what is wrong. */
int elf_file__open(struct elf_file *ef, const char *path, const char **why);
void elf_file__close(struct elf_file *ef);

/* Section named NAME (first one), its header in *shdr; NULL if none. */
Elf_Scn *elf_file__section(const struct elf_file *ef, const char *name, GElf_Shdr *shdr);
const char *elf_file__section_name(const struct elf_file *ef, const GElf_Shdr *shdr);

/* The symbol table, walked in place with elf_file__sym(). */
struct elf_symtab {
	Elf_Data *syms;
	Elf_Data *xndx;		/* SHT_SYMTAB_SHNDX, may be NULL */
	size_t strndx;
	size_t count;
};

/* 0, or -ENOENT when the file has no .symtab. */
int elf_file__symtab(const struct elf_file *ef, struct elf_symtab *st);
/* Symbol I: its name (NULL if unnamed) and its real section index. */
const char *elf_file__sym(const struct elf_file *ef, const struct elf_symtab *st,
			  size_t i, GElf_Sym *sym, Elf32_Word *shndx);

#endif
