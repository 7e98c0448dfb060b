/* SPDX-License-Identifier: GPL-2.0 */
/* Loading BTF for `frugal btf diff` and `frugal btf stat`. */
#ifndef FRUGAL_BTF_LOAD_H
#define FRUGAL_BTF_LOAD_H

#include <stddef.h>

struct btf;

/*
 * Load PATH: raw BTF, or the .BTF section of an ELF file; split BTF on BASE
 * when BASE is not NULL.  0 and *OUT, or a negative errno with a short
 * reason in WHY (WHYLEN bytes, as the encoder's errbuf), fit for
 * "frugal btf: PATH: WHY".  Nothing is printed: libbpf's own explanation
 * goes through its print callback (cli_libbpf_logs(): with -v only).
 */
int btf_load(const char *path, struct btf *base, struct btf **out, char *why, size_t whylen);

/*
 * The command line's pair: BASE_PATH (when not NULL) into *BASE, then PATH
 * on it into *OUT, as btf_load() loads each.  On failure a negative errno,
 * WHY as btf_load()'s, and *FAILED the path it is about.  Either way the
 * caller owns and frees *BASE and *OUT (NULL where nothing was loaded).
 */
int btf_load_split(const char *path, const char *base_path, struct btf **base, struct btf **out,
		   const char **failed, char *why, size_t whylen);

#endif
