// SPDX-License-Identifier: GPL-2.0
/* pahole's --btf_features names and its 'default' and 'all' sets. */
#include <string.h>

#include "btf/encode.h"

static const struct {
	const char *name;
	unsigned int bit;
	bool in_default;	/* part of --btf_features=default */
} feats[] = {
	{ "encode_force",	BTF_FEAT_ENCODE_FORCE,		true },
	{ "var",		BTF_FEAT_VAR,			true },
	{ "float",		BTF_FEAT_FLOAT,			true },
	{ "decl_tag",		BTF_FEAT_DECL_TAG,		true },
	{ "type_tag",		BTF_FEAT_TYPE_TAG,		true },
	{ "enum64",		BTF_FEAT_ENUM64,		true },
	{ "optimized_func",	BTF_FEAT_OPTIMIZED_FUNC,	true },
	{ "consistent_func",	BTF_FEAT_CONSISTENT_FUNC,	true },
	{ "decl_tag_kfuncs",	BTF_FEAT_DECL_TAG_KFUNCS,	true },
	{ "reproducible_build",	BTF_FEAT_REPRODUCIBLE_BUILD,	false },
	{ "global_var",		BTF_FEAT_GLOBAL_VAR,		false },
};

#define NR_FEATS (sizeof(feats) / sizeof(feats[0]))

unsigned int btf_feat__from_name(const char *name)
{
	size_t i;

	for (i = 0; i < NR_FEATS; i++)
		if (!strcmp(feats[i].name, name))
			return feats[i].bit;
	return 0;
}

const char *btf_feat__name(unsigned int i)
{
	return i < NR_FEATS ? feats[i].name : NULL;
}

unsigned int btf_feat__all(void)
{
	unsigned int bits = 0;
	size_t i;

	for (i = 0; i < NR_FEATS; i++)
		bits |= feats[i].bit;
	return bits;
}

unsigned int btf_feat__default(void)
{
	unsigned int bits = 0;
	size_t i;

	for (i = 0; i < NR_FEATS; i++)
		if (feats[i].in_default)
			bits |= feats[i].bit;
	return bits;
}

/*
 * pahole 1.30's features that need a newer libbpf than ours to encode.
 * pahole itself skips them quietly when its libbpf lacks the call (as
 * Debian trixie's pahole 1.30 on libbpf 1.5 does with 'attributes'); we do
 * the same, and refuse them under --btf_features_strict.
 */
const char *btf_feat__unsupported(const char *name)
{
	static const struct {
		const char *name, *why;
	} later[] = {
		{ "distilled_base", "needs libbpf 1.5's btf__distill_base() (ours is older)" },
		{ "attributes", "needs libbpf 1.6's btf__add_type_attr() (ours is older)" },
	};
	size_t i;

	for (i = 0; i < sizeof(later) / sizeof(later[0]); i++)
		if (!strcmp(later[i].name, name))
			return later[i].why;
	return NULL;
}
