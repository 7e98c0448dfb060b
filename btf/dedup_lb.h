/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf 1.7's btf__dedup(), for pahole 1.32's output (Makefile: "libbpf
 * 1.7's dedup").  That libbpf is a second copy in the binary, so nothing
 * of it crosses this interface but bytes: raw BTF in, raw BTF out.
 */
#ifndef FRUGAL_BTF_DEDUP_LB_H
#define FRUGAL_BTF_DEDUP_LB_H

#include <stdint.h>

struct dedup_lb;

/* A base (raw BTF, SIZE bytes) for split BTF, parsed once: NULL and errno on failure. */
struct dedup_lb *dedup_lb__new(const void *base, uint32_t size);
void dedup_lb__free(struct dedup_lb *d);

/*
 * RAW (SIZE bytes, split BTF on D's base) deduplicated: 0, *OUT (malloc'd;
 * the caller frees it) and *OUT_SIZE, or a negative errno.
 */
int dedup_lb__run(struct dedup_lb *d, const void *raw, uint32_t size, void **out,
		  uint32_t *out_size);

/* The libbpf version, e.g. "1.7". */
const char *dedup_lb__version(void);

#endif
