// SPDX-License-Identifier: GPL-2.0
/*
 * Writing the result without ever exposing a half-written file: everything
 * goes to a new file in the target's directory, is fsync'd, and is renamed
 * over the target only once complete.
 *
 * Into an ELF: the original bytes are copied unchanged (copy_file_range,
 * so a reflinking file system shares them), then the .BTF data, a grown
 * .shstrtab when the section is new, and a new section header table are
 * appended, and the ELF header is pointed at them.  Nothing else moves, so
 * segments, notes and anything no section describes stay byte-identical;
 * the old header table is left behind as unreferenced bytes.  An existing
 * allocated .BTF (inside a loaded segment) is rewritten in place when the
 * new one fits, since moving it would break the segment.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/encode/encode_write_int.h"
#include "lib/io.h"

/*
 * The new file starts without a name (O_TMPFILE), so a kill -9 halfway
 * through leaves nothing behind; it gets one only once complete.  TMP is
 * the name it will get, ".BASE.XXXXXX" in the target's directory, still
 * ending in XXXXXX while unnamed.  File systems without O_TMPFILE get a
 * named temporary (mkostemp) as before.
 */
static int tmp_open(const char *path, char *tmp, size_t len)
{
	char dir[PATH_MAX], base[PATH_MAX], real[PATH_MAX];
	const char *d;
	int fd;

	/* Beside what PATH names, through symlinks: see tmp_commit(). */
	if (realpath(path, real))
		path = real;
	snprintf(dir, sizeof(dir), "%s", path);
	snprintf(base, sizeof(base), "%s", path);
	d = dirname(dir);
	if ((size_t)snprintf(tmp, len, "%s/.%s.XXXXXX", d, basename(base)) >= len)
		return -ENAMETOOLONG;
	fd = open(d, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	fd = mkostemp(tmp, O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

static bool tmp_unnamed(const char *tmp)
{
	size_t n = strlen(tmp);

	return n >= 6 && !strcmp(tmp + n - 6, "XXXXXX");
}

/* Give the unnamed file FD the name TMP (a stale one of a dead run goes). */
static int tmp_link(int fd, char *tmp)
{
	char proc[64];

	snprintf(tmp + strlen(tmp) - 6, 7, "%06x", (unsigned int)getpid() & 0xffffff);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (!linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
		return 0;
	if (errno != EEXIST || unlink(tmp))
		return -errno;
	return linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/* Make TMP the file at PATH, with MODE: fsync, chmod, name it, rename. */
static int tmp_commit(int fd, char *tmp, const char *path, mode_t mode)
{
	char real[PATH_MAX];
	int err;

	/* Renaming over a symlink would replace the link, not its target. */
	if (realpath(path, real))
		path = real;
	if (fchmod(fd, mode) || fsync(fd))
		return -errno;
	if (tmp_unnamed(tmp) && (err = tmp_link(fd, tmp)))
		return err;
	if (rename(tmp, path))
		return -errno;
	return 0;
}

/* FD is what PATH named, not a regular file (/dev/null, a pipe): written
 * into, never replaced (io__open_special()). */
static int write_direct(int fd, const void *data, size_t len)
{
	int err = io__write_full(fd, data, len);

	if (close(fd) && !err)
		err = -errno;
	return err;
}

int enc_write_raw(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX];
	mode_t mask;
	int fd, err;

	fd = io__open_special(path);
	if (fd != -ENOENT)
		return fd < 0 ? fd : write_direct(fd, data, len);
	fd = tmp_open(path, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	mask = umask(0);
	umask(mask);
	err = io__pwrite_full(fd, data, len, 0);
	if (!err)
		err = tmp_commit(fd, tmp, path, 0666 & ~mask);
	close(fd);
	if (err && !tmp_unnamed(tmp))
		unlink(tmp);
	return err;
}

static int copy_all(int in, int out, size_t size)
{
	char buf[1 << 16];
	off_t ioff = 0, ooff = 0;
	size_t len;
	ssize_t n;
	int err;

	while ((size_t)ioff < size) {
		n = copy_file_range(in, &ioff, out, &ooff, size - ioff, 0);
		if (n > 0)
			continue;
		if (n == 0)
			return -EIO;
		if (errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
		    errno != EOPNOTSUPP)
			return -errno;
		break;	/* fall back to read/write from where it stopped */
	}
	while ((size_t)ioff < size) {
		len = size - ioff < sizeof(buf) ? size - ioff : sizeof(buf);
		err = io__pread_full(in, buf, len, ioff) ?: io__pwrite_full(out, buf, len, ooff);
		if (err)
			return err == -ENODATA ? -EIO : err;	/* shorter than it was */
		ioff += len;
		ooff += len;
	}
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

/* Convert SHDRS (GElf, i.e. 64-bit layout) to the file's format and write them. */
static int write_shdrs(Elf *elf, int fd, const GElf_Ehdr *eh, GElf_Shdr *shdrs,
		       size_t n, off_t off)
{
	size_t esz = eh->e_ident[EI_CLASS] == ELFCLASS64 ? sizeof(Elf64_Shdr)
							 : sizeof(Elf32_Shdr);
	Elf_Data src = { .d_type = ELF_T_SHDR, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_type = ELF_T_SHDR, .d_version = EV_CURRENT };
	void *mem = NULL, *out;
	size_t i;
	int err = -ENOMEM;

	out = malloc(n * esz);
	if (!out)
		goto out;
	if (esz == sizeof(Elf64_Shdr)) {
		src.d_buf = shdrs;
	} else {
		Elf32_Shdr *s32 = mem = calloc(n, esz);

		if (!mem)
			goto out;
		for (i = 0; i < n; i++) {
			s32[i] = (Elf32_Shdr){ shdrs[i].sh_name, shdrs[i].sh_type,
				shdrs[i].sh_flags, shdrs[i].sh_addr, shdrs[i].sh_offset,
				shdrs[i].sh_size, shdrs[i].sh_link, shdrs[i].sh_info,
				shdrs[i].sh_addralign, shdrs[i].sh_entsize };
		}
		src.d_buf = mem;
	}
	src.d_size = dst.d_size = n * esz;
	dst.d_buf = out;
	err = -EINVAL;
	if (!gelf_xlatetof(elf, &dst, &src, eh->e_ident[EI_DATA]))
		goto out;
	err = io__pwrite_full(fd, out, n * esz, off);
out:
	free(mem);
	free(out);
	return err;
}

static int write_ehdr(Elf *elf, int fd, GElf_Ehdr *eh)
{
	bool is64 = eh->e_ident[EI_CLASS] == ELFCLASS64;
	Elf_Data src = { .d_type = ELF_T_EHDR, .d_version = EV_CURRENT };
	Elf_Data dst = { .d_type = ELF_T_EHDR, .d_version = EV_CURRENT };
	Elf32_Ehdr e32;
	char out[sizeof(Elf64_Ehdr)];

	if (is64) {
		src.d_buf = eh;
		src.d_size = sizeof(Elf64_Ehdr);
	} else {
		memcpy(e32.e_ident, eh->e_ident, EI_NIDENT);
		e32.e_type = eh->e_type;
		e32.e_machine = eh->e_machine;
		e32.e_version = eh->e_version;
		e32.e_entry = eh->e_entry;
		e32.e_phoff = eh->e_phoff;
		e32.e_shoff = eh->e_shoff;
		e32.e_flags = eh->e_flags;
		e32.e_ehsize = eh->e_ehsize;
		e32.e_phentsize = eh->e_phentsize;
		e32.e_phnum = eh->e_phnum;
		e32.e_shentsize = eh->e_shentsize;
		e32.e_shnum = eh->e_shnum;
		e32.e_shstrndx = eh->e_shstrndx;
		src.d_buf = &e32;
		src.d_size = sizeof(e32);
	}
	dst.d_buf = out;
	dst.d_size = src.d_size;
	if (!gelf_xlatetof(elf, &dst, &src, eh->e_ident[EI_DATA]))
		return -EINVAL;
	return io__pwrite_full(fd, out, src.d_size, 0);
}

static int read_shdrs(const struct elf_file *ef, GElf_Shdr **out, size_t *n, size_t extra)
{
	GElf_Shdr *s;
	size_t i;

	if (elf_getshdrnum(ef->elf, n))
		return -EINVAL;
	s = calloc(*n + extra, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < *n; i++) {
		if (!gelf_getshdr(elf_getscn(ef->elf, i), &s[i])) {
			free(s);
			return -EINVAL;
		}
	}
	*out = s;
	return 0;
}

/* Lay out and write the tail: .BTF, maybe .shstrtab, the header table. */
static int write_tail(const struct elf_file *ef, int fd, GElf_Shdr *sh, size_t n,
		      size_t btf_idx, const void *btf, size_t len)
{
	GElf_Ehdr eh = ef->ehdr;
	uint64_t off = ef->size;
	Elf_Data *strs;
	char *newstr = NULL;
	int err;

	if (btf_idx < n && (sh[btf_idx].sh_flags & SHF_ALLOC) && len <= sh[btf_idx].sh_size) {
		static const char zero[4096];
		uint64_t pad = sh[btf_idx].sh_size - len, at = sh[btf_idx].sh_offset + len;

		err = io__pwrite_full(fd, btf, len, sh[btf_idx].sh_offset);
		while (!err && pad) {
			size_t c = pad > sizeof(zero) ? sizeof(zero) : pad;

			err = io__pwrite_full(fd, zero, c, at);
			pad -= c;
			at += c;
		}
		if (err)
			return err;
	} else {
		off = align_up(off, 8);
		err = io__pwrite_full(fd, btf, len, off);
		if (err)
			return err;
		sh[btf_idx].sh_offset = off;
		off += len;
	}
	sh[btf_idx].sh_size = len;
	if (btf_idx == n) {
		/* A new section: its name goes at the end of a copy of .shstrtab. */
		strs = elf_rawdata(elf_getscn(ef->elf, ef->shstrndx), NULL);
		if (!strs || (!strs->d_buf && strs->d_size))
			return -EINVAL;
		newstr = malloc(strs->d_size + 5);
		if (!newstr)
			return -ENOMEM;
		memcpy(newstr, strs->d_buf, strs->d_size);
		memcpy(newstr + strs->d_size, ".BTF", 5);
		err = io__pwrite_full(fd, newstr, strs->d_size + 5, off);
		free(newstr);
		if (err)
			return err;
		sh[n] = (GElf_Shdr){ .sh_name = strs->d_size, .sh_type = SHT_PROGBITS,
				     .sh_offset = sh[n].sh_offset, .sh_size = len,
				     .sh_addralign = 1 };
		sh[ef->shstrndx].sh_offset = off;
		sh[ef->shstrndx].sh_size = strs->d_size + 5;
		off += strs->d_size + 5;
		n++;
	}
	off = align_up(off, 8);
	if (n >= SHN_LORESERVE) {
		sh[0].sh_size = n;
		eh.e_shnum = 0;
	} else {
		eh.e_shnum = n;
	}
	eh.e_shoff = off;
	err = write_shdrs(ef->elf, fd, &eh, sh, n, off);
	return err ? err : write_ehdr(ef->elf, fd, &eh);
}

int enc_write_elf(const struct elf_file *ef, const char *path, const void *btf, size_t len)
{
	char tmp[PATH_MAX];
	GElf_Shdr *sh = NULL;
	struct stat st;
	size_t n, i, btf_idx;
	const char *name;
	int fd, err;

	if (fstat(ef->fd, &st))
		return -errno;
	err = read_shdrs(ef, &sh, &n, 1);
	if (err)
		return err;
	btf_idx = n;
	for (i = 1; i < n; i++) {
		name = elf_file__section_name(ef, &sh[i]);
		if (name && !strcmp(name, ".BTF"))
			btf_idx = i;
	}
	fd = tmp_open(path, tmp, sizeof(tmp));
	if (fd < 0) {
		free(sh);
		return fd;
	}
	err = copy_all(ef->fd, fd, ef->size);
	if (!err)
		err = write_tail(ef, fd, sh, n, btf_idx, btf, len);
	/* Keep the owner too: as root, the new file would be root's. */
	if (!err && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid))
		err = -errno;
	if (!err)
		err = tmp_commit(fd, tmp, path, st.st_mode & 07777);
	close(fd);
	if (err && !tmp_unnamed(tmp))
		unlink(tmp);
	free(sh);
	return err;
}
