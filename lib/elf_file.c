// SPDX-License-Identifier: GPL-2.0
/* ELF files read through mmap: sections and symbols without copies. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/elf_file.h"

int elf_file__open(struct elf_file *ef, const char *path, const char **why)
{
	struct stat st;
	int err;

	memset(ef, 0, sizeof(*ef));
	ef->fd = -1;
	*why = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		*why = "libelf is too old";
		return -EINVAL;
	}
	ef->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef->fd < 0)
		return -errno;
	if (fstat(ef->fd, &st)) {
		err = -errno;
		goto err_close;
	}
	ef->size = st.st_size;
	err = -EINVAL;
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		goto err_close;
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		*why = "not an ELF file";
		goto err_close;
	}
	if (!gelf_getehdr(ef->elf, &ef->ehdr) || elf_getshdrstrndx(ef->elf, &ef->shstrndx)) {
		*why = elf_errmsg(-1);
		goto err_close;
	}
	return 0;
err_close:
	elf_file__close(ef);
	return err;
}

void elf_file__close(struct elf_file *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
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
