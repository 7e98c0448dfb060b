/* SPDX-License-Identifier: GPL-2.0 */
/* Loading BTF for `frugal btf diff` and `frugal btf stat`. */
#ifndef FRUGAL_BTF_LOAD_H
#define FRUGAL_BTF_LOAD_H

struct btf;

/* Keep libbpf's own messages for -v; our commands print one line. */
void btf_load__quiet_libbpf(void);

/*
 * Load PATH: raw BTF, or the .BTF section of an ELF file; split BTF on BASE
 * when BASE is not NULL.  0 and *OUT, or a negative errno and *WHY, a short
 * explanation fit for "frugal btf: PATH: WHY".
 */
int btf_load(const char *path, struct btf *base, struct btf **out, const char **why);

#endif
