// SPDX-License-Identifier: GPL-2.0
/*
 * btf canon: anonymous types that nest and repeat.  A chain of 40
 * anonymous unions, each with two members of the next, is 2^40 copies of
 * the last written inline; the canon must still render it, in labelled
 * form, small and the same whatever the type ids.  Small repeats stay
 * inline, as before.  A type tag and an attribute (a type tag with
 * kind_flag set) on the same type read differently.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/view/view.h"
#include "tests/test.h"

#define CHAIN 40

/*
 * struct top { union { ... } x; } where each union holds a and b of the
 * next one and the last holds two ints.  With SPREAD, an unrelated named
 * type goes between each union, so every id differs.
 */
static struct btf *build_chain(bool spread)
{
	struct btf *b = btf__new_empty();
	int i, inner, err = 0;

	if (!b)
		return NULL;
	inner = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	for (i = 0; i < CHAIN && inner > 0 && !err; i++) {
		int u;

		if (spread && btf__add_struct(b, i & 1 ? "pad1" : "pad0", 0) < 0)
			err = -1;
		u = btf__add_union(b, NULL, 4);
		if (u < 0 || btf__add_field(b, "a", inner, 0, 0) ||
		    btf__add_field(b, "b", inner, 0, 0))
			err = -1;
		inner = u;
	}
	if (err || inner < 0 || btf__add_struct(b, "top", 4) < 0 ||
	    btf__add_field(b, "x", inner, 0, 0)) {
		btf__free(b);
		return NULL;
	}
	return b;
}

static const char *text_of(const struct btf_canon *c, const char *key)
{
	size_t i;

	for (i = 0; c && i < btf_canon__cnt(c); i++)
		if (!strcmp(btf_canon__ent(c, i)->key, key))
			return btf_canon__ent(c, i)->text;
	return NULL;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; s && (s = strstr(s, what)); s++)
		n++;
	return n;
}

static void test_chain(void)
{
	struct btf *b1 = build_chain(false), *b2 = build_chain(true);
	struct btf_canon *c1 = NULL, *c2 = NULL;
	const char *t1, *t2;
	char label[16];
	int i, err;

	TEST_BEGIN("40 nested anonymous unions, each used twice: labelled, small, id-free");
	if (!CHECK(b1 && b2, "building the BTF failed"))
		goto out;
	c1 = btf_canon__new(b1, BTF_CANON_ALL);
	err = errno;
	c2 = btf_canon__new(b2, BTF_CANON_ALL);
	if (!CHECK(c1 && c2, "canon failed: %s", strerror(err)))
		goto out;
	t1 = text_of(c1, "struct top");
	t2 = text_of(c2, "struct top");
	if (!CHECK(t1 && t2, "no entry for struct top"))
		goto out;
	/* 40 unions of about 40 bytes each: linear, not 2^40. */
	CHECK(strlen(t1) < 4096, "struct top is %zu bytes", strlen(t1));
	CHECK_STR(t2, t1);
	/* Each union written once, at its first use, and referred to after. */
	for (i = 1; i <= CHAIN; i++) {
		snprintf(label, sizeof(label), "@%d=union", i);
		CHECK_EQ(count(t1, label), 1);
	}
	CHECK(strstr(t1, "x 0 @1=union{size=4: a 0 @2=union{") != NULL,
	      "unexpected start: %.60s", t1);
	CHECK(strstr(t1, "@40=union{size=4: a 0 int; b 0 int}; b 0 @40}; b 0 @39}") != NULL,
	      "the innermost union is not written once and referred to");
out:
	btf_canon__free(c1);
	btf_canon__free(c2);
	btf__free(b1);
	btf__free(b2);
	TEST_END();
}

/* A small anonymous struct used twice is still written out at both uses. */
static void test_small_repeat(void)
{
	struct btf *b = btf__new_empty();
	struct btf_canon *c = NULL;
	int i32, anon;

	TEST_BEGIN("a small repeated anonymous struct stays inline");
	if (!CHECK(b, "btf__new_empty failed"))
		goto out;
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	anon = btf__add_struct(b, NULL, 4);
	btf__add_field(b, "v", i32, 0, 0);
	btf__add_struct(b, "pair", 8);
	btf__add_field(b, "p", anon, 0, 0);
	btf__add_field(b, "q", anon, 32, 0);
	c = btf_canon__new(b, BTF_CANON_ALL);
	CHECK_STR(text_of(c, "struct pair"),
		  "struct pair size=8\n  p 0 struct{size=4: v 0 int}\n  q 32 struct{size=4: v 0 int}");
out:
	btf_canon__free(c);
	btf__free(b);
	TEST_END();
}

/* f(int tag(user) *a, int attr(address_space(1)) *b): two different arguments. */
static void test_attr(void)
{
	struct btf *b = btf__new_empty();
	struct btf_canon *c = NULL;
	const char *text;
	int i32, tag, attr, p1, p2, proto;

	TEST_BEGIN("a type tag and an attribute are told apart");
	if (!CHECK(b, "btf__new_empty failed"))
		goto out;
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	tag = btf__add_type_tag(b, "user", i32);
	attr = btf__add_type_tag(b, "address_space(1)", i32);
	if (attr > 0)	/* libbpf 1.6's btf__add_type_attr(), by hand */
		((struct btf_type *)btf__type_by_id(b, attr))->info |= 1u << 31;
	p1 = btf__add_ptr(b, tag);
	p2 = btf__add_ptr(b, attr);
	proto = btf__add_func_proto(b, i32);
	btf__add_func_param(b, "a", p1);
	btf__add_func_param(b, "b", p2);
	if (!CHECK(attr > 0 && btf__add_func(b, "f", BTF_FUNC_GLOBAL, proto) > 0, "building failed"))
		goto out;
	c = btf_canon__new(b, BTF_CANON_ALL);
	text = text_of(c, "func f");
	CHECK(text && strstr(text, "tag(user)"), "no tag(user) in '%s'", text ? text : "(none)");
	CHECK(text && strstr(text, "attr(address_space(1))"), "no attr(address_space(1)) in '%s'",
	      text ? text : "(none)");
	CHECK(count(text, "tag(") == 1, "one tag( in '%s'", text ? text : "(none)");
out:
	btf_canon__free(c);
	btf__free(b);
	TEST_END();
}

int main(void)
{
	test_chain();
	test_small_repeat();
	test_attr();
	TEST_EXIT();
}
