// SPDX-License-Identifier: GPL-2.0
/* Does a split BTF fit the base it is read on?  See btf/abi/abi_base_int.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/abi/abi_base_int.h"
#include "lib/elf_file.h"

/* OFF starts a string of BTF's (its base's included): the byte before it ends one. */
static bool str_starts(const struct btf *btf, uint32_t off)
{
	const char *prev;

	if (!off)
		return true;
	if (!btf__str_by_offset(btf, off))
		return false;
	prev = btf__str_by_offset(btf, off - 1);
	return prev && !*prev;
}

/* May a reference of the kind FROM's (FUNC when IS_FUNC, a VAR of a DATASEC when IN_SEC) reach ID? */
static bool ref_ok(const struct btf *btf, uint32_t id, bool is_func, bool in_sec)
{
	const struct btf_type *t;

	if (!id)	/* void: a return, a pointer's target, a varargs parameter */
		return !is_func && !in_sec;
	t = btf__type_by_id(btf, id);
	if (!t)
		return false;
	if (is_func)
		return btf_is_func_proto(t);
	if (in_sec)
		return btf_is_var(t);
	return !btf_is_func(t) && !btf_is_var(t) && !btf_is_datasec(t) && !btf_is_decl_tag(t);
}

/* The first name or reference of type ID that does not fit; NULL if all do. */
static const char *type_misfit(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_var_secinfo *vs;
	const struct btf_member *m;
	const struct btf_param *p;
	uint16_t i, n = btf_vlen(t);

	if (!str_starts(btf, t->name_off))
		return "its name falls mid-string";
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0, m = btf_members(t); i < n; i++, m++) {
			if (!str_starts(btf, m->name_off))
				return "a member's name falls mid-string";
			if (!m->type || !ref_ok(btf, m->type, false, false))
				return "a member's type is void, a FUNC or a VAR";
		}
		return NULL;
	case BTF_KIND_ENUM:
		for (i = 0; i < n; i++)
			if (!str_starts(btf, btf_enum(t)[i].name_off))
				return "an enumerator's name falls mid-string";
		return NULL;
	case BTF_KIND_ENUM64:
		for (i = 0; i < n; i++)
			if (!str_starts(btf, btf_enum64(t)[i].name_off))
				return "an enumerator's name falls mid-string";
		return NULL;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0, p = btf_params(t); i < n; i++, p++) {
			if (!str_starts(btf, p->name_off))
				return "a parameter's name falls mid-string";
			if (!ref_ok(btf, p->type, false, false))
				return "a parameter's type is a FUNC or VAR";
		}
		return ref_ok(btf, t->type, false, false) ? NULL : "its return type is a FUNC or VAR";
	case BTF_KIND_FUNC:
		return ref_ok(btf, t->type, true, false) ? NULL : "a FUNC whose type is no FUNC_PROTO";
	case BTF_KIND_DATASEC:
		for (i = 0, vs = btf_var_secinfos(t); i < n; i++, vs++)
			if (!ref_ok(btf, vs->type, false, true))
				return "a DATASEC entry that is no VAR";
		return NULL;
	case BTF_KIND_ARRAY:
		return ref_ok(btf, btf_array(t)->type, false, false) && btf_array(t)->type ?
			NULL : "an array of no type";
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_VAR:
		return ref_ok(btf, t->type, false, false) ? NULL : "it refers to a FUNC or VAR";
	default:	/* INT, FWD, FLOAT, DECL_TAG (which may name anything) */
		return NULL;
	}
}

int abi_base__check_split(const struct btf *split, const struct btf *base, char *why,
			  size_t whylen)
{
	uint32_t id, n = btf__type_cnt(split);
	const char *bad;

	for (id = btf__type_cnt(base); id < n; id++) {
		bad = type_misfit(split, id);
		if (bad) {
			snprintf(why, whylen, "type %u: %s", id, bad);
			return -EINVAL;
		}
	}
	return 0;
}

/* The bytes of section NAME of EF; NULL if it has none. */
static const char *section_bytes(const struct elf_file *ef, const char *name, size_t *len)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_file__section(ef, name, &shdr);
	Elf_Data *d;

	if (!scn || shdr.sh_type == SHT_NOBITS)
		return NULL;
	d = elf_getdata(scn, NULL);
	if (!d || !d->d_buf)
		return NULL;
	*len = d->d_size;
	return d->d_buf;
}

/* The word at P (at most END), up to a blank or NUL, into OUT. */
static void word_at(const char *p, const char *end, char *out, size_t outlen)
{
	size_t n = 0;

	while (p + n < end && p[n] && p[n] != ' ' && n + 1 < outlen)
		n++;
	memcpy(out, p, n);
	out[n] = 0;
}

/* The first word of .modinfo's entry KEY ("vermagic=", "name="), into OUT. */
static void modinfo_word(const struct elf_file *ef, const char *key, char *out, size_t outlen)
{
	const char *p, *end;
	size_t len, klen = strlen(key);

	p = section_bytes(ef, ".modinfo", &len);
	if (!p)
		return;
	for (end = p + len; p < end; p += strnlen(p, (size_t)(end - p)) + 1) {
		if ((size_t)(end - p) > klen && !memcmp(p, key, klen)) {
			word_at(p + klen, end, out, outlen);
			return;
		}
	}
}

/* The module's release: the first word of .modinfo's "vermagic=". */
static void module_release(const struct elf_file *ef, char *out, size_t outlen)
{
	modinfo_word(ef, "vermagic=", out, outlen);
}

void abi_base__module_name(const char *path, char *out, size_t outlen)
{
	struct elf_file ef;
	char ignore[256];

	out[0] = 0;
	if (elf_file__open(&ef, path, ignore, sizeof(ignore)))
		return;
	modinfo_word(&ef, "name=", out, outlen);
	elf_file__close(&ef);
}

/* The kernel's release: the word after the banner's "Linux version " in .rodata. */
static void kernel_release(const struct elf_file *ef, char *out, size_t outlen)
{
	static const char key[] = "Linux version ";
	const char *p, *at;
	size_t len;

	p = section_bytes(ef, ".rodata", &len);
	at = p ? memmem(p, len, key, strlen(key)) : NULL;
	if (at)
		word_at(at + strlen(key), p + len, out, outlen);
}

int abi_base__check_release(const char *module, const char *base, char *why, size_t whylen)
{
	char mrel[128] = "", krel[128] = "", ignore[256];
	struct elf_file m, k;
	int err = 0;

	if (elf_file__open(&m, module, ignore, sizeof(ignore)))
		return 0;
	module_release(&m, mrel, sizeof(mrel));
	elf_file__close(&m);
	if (!*mrel || elf_file__open(&k, base, ignore, sizeof(ignore)))
		return 0;
	kernel_release(&k, krel, sizeof(krel));
	elf_file__close(&k);
	if (*krel && strcmp(mrel, krel)) {
		snprintf(why, whylen, "module built for kernel %s, base %s is kernel %s",
			 mrel, base, krel);
		err = -EINVAL;
	}
	return err;
}
