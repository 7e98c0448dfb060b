// SPDX-License-Identifier: GPL-2.0
/* Loading BTF for diff and stat: raw .btf files or an ELF's .BTF section. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/load.h"
#include "cli/cli.h"

static int quiet_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	/* libbpf explains parse failures at length; -v shows it, else our one line. */
	if (!cli_verbose || level == LIBBPF_DEBUG)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void btf_load__quiet_libbpf(void)
{
	libbpf_set_print(quiet_print);
}

/* Why PATH could not be loaded, as the file's first bytes suggest. */
static const char *load_why(const char *path, int err, bool split)
{
	unsigned char magic[4] = {};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return strerror(errno);
	n = read(fd, magic, sizeof(magic));
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

int btf_load(const char *path, struct btf *base, struct btf **out, const char **why)
{
	struct stat st;
	struct btf *btf;
	int err;

	*out = NULL;
	*why = NULL;
	if (stat(path, &st)) {
		err = -errno;
		*why = strerror(errno);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		*why = "not a regular file";
		return -EINVAL;
	}
	btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	err = libbpf_get_error(btf);
	if (err) {
		*why = load_why(path, err, base);
		return err;
	}
	*out = btf;
	return 0;
}
