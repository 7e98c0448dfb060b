/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is a module's split BTF read on the base it was built against?  Split
 * BTF numbers its own types after the base's and places its own strings
 * after the base's, without saying which base that was: on another base
 * libbpf loads it all the same (when no id runs past the end) and every
 * name and reference lands somewhere else, so the ABI report would be
 * wrong, not an error.  These checks tell where it can be told; each
 * returns 0 (fits, or cannot tell), or -EINVAL with a one-line reason in
 * WHY, and never prints.
 */
#ifndef FRUGAL_BTF_ABI_BASE_INT_H
#define FRUGAL_BTF_ABI_BASE_INT_H

#include <stddef.h>

struct btf;

/*
 * The split BTF's own types against the base it is loaded on: every name
 * must start a string (on a base whose string section has another size,
 * the split's names fall mid-string or past the end), and every reference
 * must reach a type of a kind it may reach (a FUNC its FUNC_PROTO, a
 * member a type, not a FUNC or VAR: on a base of another type count, ids
 * meant for the split's own types land on the base's).
 */
int abi_base__check_split(const struct btf *split, const struct btf *base, char *why,
			  size_t whylen);

/*
 * Both ELF files: the kernel release in the module's .modinfo vermagic
 * ("6.1.0-27-amd64 SMP mod_unload ...") against the one in the base's
 * banner ("Linux version 6.1.0-27-amd64 (...)" in .rodata).  0 when they
 * agree or either is missing (raw BTF, a .o that is not a module).
 */
int abi_base__check_release(const char *module, const char *base, char *why, size_t whylen);

/* The module's name, .modinfo's "name=", into OUT; "" when it has none. */
void abi_base__module_name(const char *path, char *out, size_t outlen);

#endif
