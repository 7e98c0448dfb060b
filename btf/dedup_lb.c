// SPDX-License-Identifier: GPL-2.0
/*
 * libbpf 1.7's dedup on raw BTF.  This file alone is compiled against that
 * libbpf's headers, whose every API name names.h renames btflib_* (the
 * Makefile), so the btf__* calls below are the second copy's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/dedup_lb.h"
#include "cli/cli.h"
#include "lib/io.h"

struct dedup_lb {
	struct btf *base;
};

__attribute__((format(printf, 2, 0)))
static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_DEBUG ? 0 : cli_vlog(fmt, ap);
}

struct dedup_lb *dedup_lb__new(const void *base, uint32_t size)
{
	struct dedup_lb *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	libbpf_set_print(print);
	d->base = btf__new(base, size);
	if (!d->base) {
		free(d);
		return NULL;
	}
	return d;
}

void dedup_lb__free(struct dedup_lb *d)
{
	if (!d)
		return;
	btf__free(d->base);
	free(d);
}

int dedup_lb__run(struct dedup_lb *d, int fd, uint32_t size)
{
	void *raw = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	const void *data;
	struct btf *btf;
	uint32_t len;
	int err;

	if (raw == MAP_FAILED)
		return -errno;
	btf = btf__new_split(raw, size, d->base);	/* a copy */
	err = btf ? 0 : -errno;
	munmap(raw, size);
	if (err)
		return err;
	err = btf__dedup(btf, NULL);
	data = err ? NULL : btf__raw_data(btf, &len);
	if (!err && !data)
		err = -ENOMEM;
	if (!err)
		err = io__pwrite_full(fd, data, len, 0);
	if (!err && ftruncate(fd, len))
		err = -errno;
	btf__free(btf);
	return err;
}

const char *dedup_lb__version(void)
{
	static char v[16];

	snprintf(v, sizeof(v), "%u.%u", libbpf_major_version(), libbpf_minor_version());
	return v;
}
