// SPDX-License-Identifier: GPL-2.0
/* pahole's --btf_features names and its 'default' and 'all' sets. */
#include <errno.h>
#include <string.h>

#include "btf/encode/encode.h"

/*
 * Every name pahole 1.32 accepts, in its order (its
 * --supported_btf_features lists them so).  A name with no bit is one
 * pahole knows but we cannot honour: pahole itself turns such a feature
 * off quietly when its libbpf lacks the call, even under
 * --btf_features_strict (Debian sid's pahole 1.32 on libbpf 1.7 does so
 * with 'layout', exit 0), so a kernel build that asks for it still runs.
 * Only a name nobody knows is an error under strict.
 */
static const struct {
	const char *name;
	unsigned int bit;	/* 0: known, not honoured (why says why) */
	bool in_default;	/* part of --btf_features=default */
	const char *why;
} feats[] = {
	{ "encode_force",	BTF_FEAT_ENCODE_FORCE,		true, NULL },
	{ "var",		BTF_FEAT_VAR,			true, NULL },
	{ "float",		BTF_FEAT_FLOAT,			true, NULL },
	{ "decl_tag",		BTF_FEAT_DECL_TAG,		true, NULL },
	{ "type_tag",		BTF_FEAT_TYPE_TAG,		true, NULL },
	{ "enum64",		BTF_FEAT_ENUM64,		true, NULL },
	{ "optimized_func",	BTF_FEAT_OPTIMIZED_FUNC,	true, NULL },
	{ "consistent_func",	BTF_FEAT_CONSISTENT_FUNC,	true, NULL },
	{ "decl_tag_kfuncs",	BTF_FEAT_DECL_TAG_KFUNCS,	true, NULL },
	{ "reproducible_build",	BTF_FEAT_REPRODUCIBLE_BUILD,	false, NULL },
	{ "distilled_base",	0, false, "not implemented (libbpf's btf__distill_base())" },
	{ "global_var",		BTF_FEAT_GLOBAL_VAR,		false, NULL },
	{ "attributes",		BTF_FEAT_ATTRIBUTES,		false, NULL },
	{ "true_signature",	0, false, "not implemented (pahole 1.32's prototypes of changed-ABI clones)" },
	{ "force_cu_merging",	0, false, "not implemented (pahole 1.32's merge of all units into one)" },
	/* docs/btf.md: libbpf 1.7 cannot write BTF's layout section. */
	{ "layout",		0, false, "needs a libbpf with btf__new_empty_opts() (newer than 1.7)" },
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

const char *btf_feat__unsupported(const char *name)
{
	size_t i;

	for (i = 0; i < NR_FEATS; i++)
		if (!strcmp(feats[i].name, name))
			return feats[i].why;
	return NULL;
}

int btf_feat__supported(char *buf, size_t len)
{
	size_t i, n = 0, l;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	for (i = 0; i < NR_FEATS; i++) {
		if (!feats[i].bit)
			continue;
		l = strlen(feats[i].name);
		if (n + !!n + l + 1 > len)
			return -ENOSPC;
		if (n)
			buf[n++] = ',';
		memcpy(buf + n, feats[i].name, l + 1);
		n += l;
	}
	return 0;
}
