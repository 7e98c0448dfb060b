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
#include <stdint.h>

struct elf_file {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t shstrndx;
	size_t size;		/* file size in bytes */
	bool priv;		/* mapped copy-on-write: data may be edited */
	void **bufs;		/* sections decompressed here (zstd) */
	size_t nbufs, bufs_cap;
};

/* Open PATH read-only.  0, or -errno with the reason in WHY (WHYLEN bytes). */
int elf_file__open(struct elf_file *ef, const char *path, char *why, size_t whylen);
void elf_file__close(struct elf_file *ef);

/* E_MACHINE as uname -m says it ("x86_64", "aarch64"), else "machine N" in BUF. */
const char *elf_machine__name(uint16_t e_machine, char *buf, size_t len);

/*
 * libelf before 0.189 cannot decompress ELFCOMPRESS_ZSTD sections, which
 * libdw then cannot read.  This decompresses them into heap buffers that
 * the section descriptors point at, and clears SHF_COMPRESSED in memory
 * (the file is mapped copy-on-write for that), so libdw sees plain
 * sections.  0 (also when there is nothing to do) or -errno; -ENOTSUP when
 * libzstd cannot be loaded.
 */
int elf_file__inflate_zstd(struct elf_file *ef);

/*
 * Whether the file may be edited in a copy-on-write mapping: 0, or -ERANGE
 * when a section's bytes overlap another section's, the ELF header or the
 * section header table, or lie beyond the file (an edit to one would land
 * in the other).  libdwfl relocates ET_REL files in such a mapping too.
 */
int elf_file__check_layout(const struct elf_file *ef);

/* Remap the file copy-on-write so section data may be edited in memory;
 * elf_file__check_layout() first: its -ERANGE, and nothing remapped. */
int elf_file__make_private(struct elf_file *ef);

/*
 * ET_REL: apply the RELA relocations of the .debug_* sections in memory
 * (absolute 32/64-bit words, which is all DWARF uses), so libdw reads
 * what the linker would have produced.  x86_64 and aarch64, native byte
 * order; elf_file__can_relocate() says whether this file qualifies.
 */
bool elf_file__can_relocate(const struct elf_file *ef);
int elf_file__relocate_debug(struct elf_file *ef);

/*
 * Give back the mapped pages of every section that holds only the file's
 * bytes (all of them, unless relocations were applied in memory): a
 * reader faults them in again from the page cache when it needs them.
 * Between batches, so that strings and line tables read by one batch are
 * not all resident at once.
 */
void elf_file__drop_clean(struct elf_file *ef);

/*
 * Give back the mapped pages of every section, the relocated ones too:
 * their edits are lost, and they read as in the file again.  For when
 * nothing will read the relocated DWARF any more.
 */
void elf_file__drop_all(struct elf_file *ef);

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

/*
 * Does [OFF, OFF + LEN) lie within SIZE bytes?  Written so that no sum
 * wraps: offsets and sizes come from the file, which may be hostile.
 */
static inline bool elf_range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

#endif
