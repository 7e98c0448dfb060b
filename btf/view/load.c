// SPDX-License-Identifier: GPL-2.0
/* Loading BTF for diff and stat: raw .btf files or an ELF's .BTF section, alone or on a base. */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/view/view.h"
#include "lib/io.h"

/* Why PATH could not be loaded, as the file's first bytes suggest. */
static const char *load_why(const char *path, int err, bool split)
{
	unsigned char magic[4] = {};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return strerror(errno);
	n = io__read_full(fd, magic, sizeof(magic));
	close(fd);
	if (n == 4 && !memcmp(magic, "\177ELF", 4)) {
		if (err == -ENOENT)
			return "ELF file has no .BTF section";
		return split ? "ELF's .BTF section is not valid split BTF for this base"
			     : "ELF's .BTF section is not valid BTF (split BTF needs --base)";
	}
	if (n >= 2 && ((magic[0] == 0x9f && magic[1] == 0xeb) ||
		       (magic[0] == 0xeb && magic[1] == 0x9f)))
		return split ? "not valid split BTF for this base"
			     : "not valid BTF (truncated, corrupt, or split BTF that needs --base)";
	return "neither raw BTF nor an ELF file with a .BTF section";
}

int btf_load(const char *path, struct btf *base, struct btf **out, char *why, size_t whylen)
{
	const char *reason;
	struct stat st;
	struct btf *btf;
	uint32_t first;
	int err;

	*out = NULL;
	if (stat(path, &st)) {
		err = -errno;
		reason = strerror(errno);
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		reason = "not a regular file";
		goto fail;
	}
	btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	if (err) {
		reason = load_why(path, err, base);
		goto fail;
	}
	/* libbpf 1.1 takes a type section at any offset; its records would
	 * then be read unaligned, here and by every caller. */
	first = base ? btf__type_cnt(base) : 1;
	if (btf__type_cnt(btf) > first && (uintptr_t)btf__type_by_id(btf, first) % 4) {
		btf__free(btf);
		err = -EINVAL;
		reason = "its type section is not 4-byte aligned";
		goto fail;
	}
	*out = btf;
	return 0;
fail:
	if (why && whylen)
		snprintf(why, whylen, "%s", reason);
	return err;
}

int btf_load_split(const char *path, const char *base_path, struct btf **base, struct btf **out,
		   const char **failed, char *why, size_t whylen)
{
	int err;

	*base = NULL;
	*out = NULL;
	*failed = base_path;
	if (base_path) {
		err = btf_load(base_path, NULL, base, why, whylen);
		if (err)
			return err;
	}
	*failed = path;
	return btf_load(path, *base, out, why, whylen);
}
