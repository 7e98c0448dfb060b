// SPDX-License-Identifier: GPL-2.0
/*
 * The whole ELF + DWARF -> BTF encode path over arbitrary bytes: the input
 * goes to a memfd, btf_enc__run() reads it by its /proc/self/fd path and
 * writes raw BTF (--btf_encode_detached) into a private temporary
 * directory.  Invariants:
 *  - a failure comes with a reason and leaves no output file behind;
 *  - a success writes BTF that libbpf loads back and that renders, and
 *    encoding the same bytes again gives the same bytes (determinism);
 *  - the input is never modified.
 * The first input byte is not part of the file: its bits pick features
 * and whether the DWARF is encoded by two workers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/view/view.h"
#include "btf/encode/encode.h"
#include "cli/cli.h"

static int memfd = -1;
static char in_path[64], dir[64], out_path[128];

static void cleanup(void)
{
	unlink(out_path);
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	cli_libbpf_logs();	/* without -v: silent */
	memfd = memfd_create("elf", 0);
	snprintf(dir, sizeof(dir), "/tmp/frugal-fuzz-encode.XXXXXX");
	if (memfd < 0 || !mkdtemp(dir))
		abort();
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", memfd);
	snprintf(out_path, sizeof(out_path), "%s/out.btf", dir);
	atexit(cleanup);
	return 0;
}

/* Read the output file whole; NULL if there is none. */
static void *slurp(size_t *len)
{
	struct stat st;
	void *p;
	FILE *f = fopen(out_path, "rb");

	if (!f)
		return NULL;
	if (fstat(fileno(f), &st) || !(p = malloc(st.st_size + 1)) ||
	    fread(p, 1, st.st_size, f) != (size_t)st.st_size)
		abort();
	fclose(f);
	*len = st.st_size;
	return p;
}

static void check_output(const void *out, size_t len)
{
	struct btf_canon *c;
	struct btf *btf;

	btf = btf__new(out, len);
	if (!btf)
		abort();
	/* The renderer caps one entry's text (E2BIG): fuzzed DWARF can build
	 * anonymous types that nest exponentially, which libbpf accepts. */
	c = btf_canon__new(btf, BTF_CANON_ALL);
	if (!c && errno != ENOMEM && errno != E2BIG)
		abort();
	btf_canon__free(c);
	btf__free(btf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char errbuf[512];
	struct btf_enc_opts o = {
		.path = in_path, .detached = out_path,
		.errbuf = errbuf, .errlen = sizeof(errbuf),
	};
	void *out, *again;
	size_t len, len2;
	uint8_t *copy;
	int err;

	if (size < 1)
		return 0;
	o.features = data[0] & 0x80 ? btf_feat__all() : BTF_FEAT_LEGACY;
	o.features ^= data[0] & (BTF_FEAT_FLOAT | BTF_FEAT_DECL_TAG | BTF_FEAT_ENUM64);
	o.jobs = data[0] & 0x40 ? 2 : 1;
	data++, size--;
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
	unlink(out_path);
	err = btf_enc__run(&o);
	out = slurp(&len);
	if (err) {
		if (err >= 0 || !errbuf[0] || out)
			abort();
		goto input;
	}
	if (!out)
		abort();
	check_output(out, len);
	unlink(out_path);
	if (btf_enc__run(&o) || !(again = slurp(&len2)))
		abort();
	if (len2 != len || memcmp(out, again, len))
		abort();
	free(again);
	free(out);
input:
	/* The encoder reads its input and must never write to it. */
	copy = malloc(size + 1);
	if (pread(memfd, copy, size + 1, 0) != (ssize_t)size || memcmp(copy, data, size))
		abort();
	free(copy);
	return 0;
}
