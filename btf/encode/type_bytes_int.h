/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One BTF type record, read without a struct btf: its bytes (the record
 * and what follows it), its string offsets and the type ids it refers to.  Header-only: the
 * encoder's two libbpfs (btf/encode/dedup_lb.c) both use it.
 */
#ifndef FRUGAL_BTF_TYPE_BYTES_INT_H
#define FRUGAL_BTF_TYPE_BYTES_INT_H

#include <stddef.h>

#include <bpf/btf.h>

static inline size_t btf_type_bytes(const struct btf_type *t)
{
	size_t n = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:		return sizeof(*t) + sizeof(__u32);
	case BTF_KIND_ARRAY:		return sizeof(*t) + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:		return sizeof(*t) + n * sizeof(struct btf_member);
	case BTF_KIND_ENUM:		return sizeof(*t) + n * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:		return sizeof(*t) + n * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:	return sizeof(*t) + n * sizeof(struct btf_param);
	case BTF_KIND_VAR:		return sizeof(*t) + sizeof(struct btf_var);
	case BTF_KIND_DATASEC:		return sizeof(*t) + n * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG:		return sizeof(*t) + sizeof(struct btf_decl_tag);
	default:			return sizeof(*t);
	}
}

/* The I-th string offset of T: its name, then its members', values' or
 * parameters' names; NULL past the last. */
static inline __u32 *btf_type_str(struct btf_type *t, size_t i)
{
	if (!i)
		return &t->name_off;
	if (--i >= btf_vlen(t))
		return NULL;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:		return &btf_members(t)[i].name_off;
	case BTF_KIND_ENUM:		return &btf_enum(t)[i].name_off;
	case BTF_KIND_ENUM64:		return &btf_enum64(t)[i].name_off;
	case BTF_KIND_FUNC_PROTO:	return &btf_params(t)[i].name_off;
	default:			return NULL;
	}
}

/* The I-th type id T refers to; NULL past the last. */
static inline __u32 *btf_type_id(struct btf_type *t, size_t i)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
	case BTF_KIND_VAR: case BTF_KIND_TYPE_TAG: case BTF_KIND_DECL_TAG:
		return i ? NULL : &t->type;
	case BTF_KIND_ARRAY:
		return i > 1 ? NULL : i ? &btf_array(t)->index_type : &btf_array(t)->type;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return i < btf_vlen(t) ? &btf_members(t)[i].type : NULL;
	case BTF_KIND_FUNC_PROTO:
		return !i ? &t->type : i - 1 < btf_vlen(t) ? &btf_params(t)[i - 1].type : NULL;
	case BTF_KIND_DATASEC:
		return i < btf_vlen(t) ? &btf_var_secinfos(t)[i].type : NULL;
	default:
		return NULL;
	}
}

#endif
