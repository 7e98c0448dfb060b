// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi`'s base checks (btf/abi/abi_base_int.h) over arbitrary bytes,
 * written to a memfd and named by its /proc/self/fd path:
 *  - read as a module's split BTF on a small base made here, whatever
 *    libbpf accepts goes through abi_base__check_split(), which returns 0
 *    or -EINVAL with a reason;
 *  - read as both a module and a vmlinux (an ELF's .modinfo vermagic and
 *    .rodata banner), abi_base__check_release() returns 0, or -EINVAL with
 *    a reason when the file holds both and they differ.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/abi/abi_base_int.h"
#include "btf/view/view.h"
#include "cli/cli.h"

static int memfd = -1;
static char path[64];
static struct btf *base;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	cli_libbpf_logs();
	memfd = memfd_create("abi_base", 0);
	base = btf__new_empty();
	if (memfd < 0 || !base || btf__add_int(base, "int", 4, BTF_INT_SIGNED) != 1 ||
	    btf__add_ptr(base, 1) != 2 || btf__add_struct(base, "s", 4) != 3 ||
	    btf__add_field(base, "x", 1, 0, 0))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct btf *split;
	char why[256] = "";
	int err;

	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	if (!btf_load(path, base, &split, why, sizeof(why))) {
		why[0] = 0;
		err = abi_base__check_split(split, base, why, sizeof(why));
		if (err && (err != -EINVAL || !why[0]))
			abort();
		btf__free(split);
	}
	why[0] = 0;
	err = abi_base__check_release(path, path, why, sizeof(why));
	if (err && (err != -EINVAL || !why[0]))
		abort();
	return 0;
}
