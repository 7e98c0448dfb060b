/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libbpf 1.7's btf__dedup(), for pahole 1.32's output (Makefile: "libbpf
 * 1.7's dedup").  That libbpf is a second copy in the binary, so nothing
 * of it crosses this interface but bytes: raw BTF in, raw BTF out.
 */
#ifndef FRUGAL_BTF_DEDUP_LB_INT_H
#define FRUGAL_BTF_DEDUP_LB_INT_H

#include <stdint.h>

struct dedup_lb;

/* A base (raw BTF, SIZE bytes) for split BTF, parsed once: NULL and errno on failure. */
struct dedup_lb *dedup_lb__new(const void *base, uint32_t size);
void dedup_lb__free(struct dedup_lb *d);

/*
 * A split BTF, as libbpf 1.1 keeps one, in file FD: its types, TYPES bytes
 * from offset 0, then its strings, STRS bytes.  Made on a base of
 * FROM_STRS bytes of strings and FROM_TYPES types (the void type
 * included): D's base, or a stand-in with none of either but "" and void
 * (its own ids and strings then move to follow D's base).  Deduplicated
 * on D's base and written back over it as raw BTF (the file truncated to
 * fit): 0 or a negative errno.  libbpf 1.7 parses no raw copy of the
 * whole: each string is added once, then the types a chunk at a time.
 */
int dedup_lb__run(struct dedup_lb *d, int fd, uint32_t types, uint32_t strs,
		  uint32_t from_strs, uint32_t from_types);

/* The libbpf version, e.g. "1.7". */
const char *dedup_lb__version(void);

#endif
