/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kbtf: the few facts frugal lock needs from the kernel's BTF (the type id
 * of a tracepoint's btf_trace_* typedef, the offset of a struct member),
 * found by streaming /sys/kernel/btf/vmlinux through a small buffer.
 *
 * Why not libbpf: loading vmlinux BTF there (5.5 MB here) holds two copies
 * of it at once, which alone is twice our whole memory budget, and libbpf
 * 1.1 loads it for any tp_btf program or CO-RE relocation.  We need a
 * handful of integers.
 */
#ifndef FRUGAL_LOCK_KBTF_H
#define FRUGAL_LOCK_KBTF_H

#include <stddef.h>
#include <stdint.h>

struct kbtf_query {
	const char *name;	/* typedef name, or struct name */
	const char *member;	/* NULL: find the typedef's id (or KIND's); else a member */
	int kind;		/* with no member: BTF_KIND_FUNC for a function; 0 a typedef */
	uint32_t id;		/* out: typedef id (0: not found) */
	int32_t offset;		/* out: member byte offset (-1: not found) */
	uint32_t size;		/* out: with no member, a struct's or union's size */
};

/* Answer every query in one go.  0 (some may be unanswered), or -errno. */
int kbtf__resolve(const char *path, struct kbtf_query *q, int n);

struct btf_type;
/* The bytes that follow type T's record (its members, params, ...). */
size_t kbtf__extra_size(const struct btf_type *t);

#endif
