// SPDX-License-Identifier: GPL-2.0
/*
 * btf diff: blobs built with libbpf's btf__add_*, one change at a time.
 * The diff must name each change (member offset, field name, a missing
 * function, an enum value, a parameter type, a bitfield, a duplicate-named
 * struct) and must find nothing between the same types added in another
 * order (all ids differ) or with old-style (INT-encoded) bitfields.
 * btf_load() says why a file does not load, in the caller's buffer.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/btf_int.h"
#include "btf/view/view.h"
#include "tests/test.h"

enum variant {
	V_SAME		= 0,
	V_REORDER	= 1 << 0,	/* same types, other ids */
	V_OFFSET	= 1 << 1,	/* foo.b moves */
	V_RENAME	= 1 << 2,	/* foo.b is called c */
	V_NO_FUNC	= 1 << 3,	/* func f2 missing */
	V_ENUM_VAL	= 1 << 4,	/* E_TWO changes value */
	V_PARAM		= 1 << 5,	/* f1's second parameter: long -> int */
	V_BITFIELD	= 1 << 6,	/* foo.flags: 3 bits -> 4 */
	V_DUP		= 1 << 7,	/* the second 'struct dup' changes */
	V_OLD_BITS	= 1 << 8,	/* bitfields as INTs with bit counts */
	V_ANON		= 1 << 9,	/* a member of the anonymous union changes type */
};

struct ids {
	int i32, i64, chr, foo, foo_ptr, uni, en, proto, dup1, dup2, td, var;
};

static void add_ints(struct btf *b, struct ids *id, bool reorder)
{
	if (reorder) {
		id->chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
		id->i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
		id->i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	} else {
		id->i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		id->i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
		id->chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED | BTF_INT_CHAR);
	}
}

/* union { int x; char y[4]; } : anonymous, inlined where it is used. */
static void add_union(struct btf *b, struct ids *id, unsigned int v)
{
	int arr = btf__add_array(b, id->i32, id->chr, 4);

	id->uni = btf__add_union(b, NULL, 4);
	btf__add_field(b, "x", v & V_ANON ? id->chr : id->i32, 0, 0);
	btf__add_field(b, "y", arr, 0, 0);
}

/*
 * struct foo { int a; long b; unsigned flags:3; union {...}; struct foo *next; }
 * With V_OLD_BITS the bitfield is an INT of 3 bits and kind_flag is off.
 */
static void add_foo(struct btf *b, struct ids *id, unsigned int v)
{
	int bits = v & V_BITFIELD ? 4 : 3, flags_type = id->i32;

	if (v & V_OLD_BITS) {
		/* btf__add_int() makes full-width INTs: narrow this one by hand. */
		flags_type = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		*(__u32 *)(btf__type_by_id(b, flags_type) + 1) =
			(BTF_INT_SIGNED << 24) | bits;	/* encoding, offset 0, bits */
	}
	if (!(v & V_REORDER))	/* a pointer to the id foo is about to get */
		id->foo_ptr = btf__add_ptr(b, btf__type_cnt(b) + 1);
	id->foo = btf__add_struct(b, "foo", 40);
	btf__add_field(b, "a", id->i32, 0, 0);
	btf__add_field(b, v & V_RENAME ? "c" : "b", id->i64, v & V_OFFSET ? 128 : 64, 0);
	btf__add_field(b, "flags", flags_type, 192, v & V_OLD_BITS ? 0 : bits);
	btf__add_field(b, NULL, id->uni, 224, 0);
	if (v & V_REORDER) {	/* added after foo: patch the member below */
		id->foo_ptr = btf__type_cnt(b);
	}
	btf__add_field(b, "next", id->foo_ptr, 256, 0);
	if (v & V_REORDER)
		btf__add_ptr(b, id->foo);
}

static void add_dups(struct btf *b, struct ids *id, unsigned int v)
{
	__u32 first = btf__type_cnt(b), second = first + 1;

	/* Two structs named dup, as two CUs may leave after dedup. */
	if (v & V_REORDER) {
		first = second;
		second = btf__type_cnt(b);
	}
	for (int i = 0; i < 2; i++) {
		if (btf__type_cnt(b) == first) {
			btf__add_struct(b, "dup", 4);
			btf__add_field(b, "one", id->i32, 0, 0);
		} else {
			btf__add_struct(b, "dup", 8);
			btf__add_field(b, "two", v & V_DUP ? id->chr : id->i64, 0, 0);
		}
	}
	id->dup1 = first;
	id->dup2 = second;
}

static void add_enum(struct btf *b, struct ids *id, unsigned int v)
{
	id->en = btf__add_enum(b, "E", 4);
	btf__add_enum_value(b, "E_ONE", 1);
	btf__add_enum_value(b, "E_TWO", v & V_ENUM_VAL ? 3 : 2);
}

static void add_funcs(struct btf *b, struct ids *id, unsigned int v)
{
	int fp;

	fp = btf__add_ptr(b, id->foo);
	id->proto = btf__add_func_proto(b, id->i32);
	btf__add_func_param(b, "f", fp);
	btf__add_func_param(b, "n", v & V_PARAM ? id->i32 : id->i64);
	btf__add_func(b, "f1", BTF_FUNC_GLOBAL, id->proto);
	if (!(v & V_NO_FUNC))
		btf__add_func(b, "f2", BTF_FUNC_STATIC, id->proto);
	btf__add_decl_tag(b, "tagged", id->foo, 1);
}

static void add_vars(struct btf *b, struct ids *id)
{
	id->td = btf__add_typedef(b, "foo_t", id->foo);
	id->var = btf__add_var(b, "pcpu_foo", BTF_VAR_GLOBAL_ALLOCATED, id->td);
	btf__add_datasec(b, ".data..percpu", 64);
	btf__add_datasec_var_info(b, id->var, 0, 40);
}

static struct btf *build(unsigned int v)
{
	struct btf *b = btf__new_empty();
	struct ids id = {};

	if (!b)
		return NULL;
	add_ints(b, &id, v & V_REORDER);
	if (v & V_REORDER) {
		add_enum(b, &id, v);
		add_dups(b, &id, v);
		add_union(b, &id, v);
		add_foo(b, &id, v);
	} else {
		add_union(b, &id, v);
		add_foo(b, &id, v);
		add_dups(b, &id, v);
		add_enum(b, &id, v);
	}
	add_funcs(b, &id, v);
	add_vars(b, &id);
	return b;
}

/* What the diff callback saw. */
struct seen {
	int n;
	enum btf_diff_kind kind[16];
	char key[16][64];
};

static int collect(enum btf_diff_kind kind, const struct btf_canon_ent *a,
		   const struct btf_canon_ent *b, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 16) {
		s->kind[s->n] = kind;
		snprintf(s->key[s->n], sizeof(s->key[0]), "%s", (a ? a : b)->key);
	}
	s->n++;
	return 0;
}

static long diff_variants(unsigned int va, unsigned int vb, struct seen *s)
{
	struct btf *a = build(va), *b = build(vb);
	struct btf_canon *ca = a ? btf_canon__new(a, BTF_CANON_ALL) : NULL;
	struct btf_canon *cb = b ? btf_canon__new(b, BTF_CANON_ALL) : NULL;
	long n = -ENOMEM;

	memset(s, 0, sizeof(*s));
	if (ca && cb)
		n = btf_canon__diff(ca, cb, collect, s);
	btf_canon__free(ca);
	btf_canon__free(cb);
	btf__free(a);
	btf__free(b);
	return n;
}

/* Did the diff report KEY as KIND? */
static bool saw(const struct seen *s, enum btf_diff_kind kind, const char *key)
{
	for (int i = 0; i < s->n && i < 16; i++)
		if (s->kind[i] == kind && !strcmp(s->key[i], key))
			return true;
	return false;
}

/* Exactly one difference, of KIND, for KEY. */
static void expect_one(const char *name, unsigned int va, unsigned int vb,
		       enum btf_diff_kind kind, const char *key)
{
	struct seen s;
	long n;

	TEST_BEGIN(name);
	n = diff_variants(va, vb, &s);
	if (CHECK_EQ(n, 1)) {
		CHECK_EQ(s.kind[0], kind);
		CHECK_STR(s.key[0], key);
	}
	TEST_END();
}

static void test_same(void)
{
	struct seen s;

	TEST_BEGIN("identical blobs: no difference");
	CHECK_EQ(diff_variants(V_SAME, V_SAME, &s), 0);
	TEST_END();
	TEST_BEGIN("same types in another id order: no difference");
	CHECK_EQ(diff_variants(V_SAME, V_REORDER, &s), 0);
	TEST_END();
	TEST_BEGIN("bitfields with kind_flag or as INT bits: no difference");
	CHECK_EQ(diff_variants(V_SAME, V_OLD_BITS, &s), 0);
	TEST_END();
}

static void test_multi(void)
{
	struct seen s;
	long n;

	TEST_BEGIN("a changed param type shows in func f1 and f2");
	n = diff_variants(V_SAME, V_PARAM | V_REORDER, &s);
	if (CHECK_EQ(n, 2)) {
		CHECK(saw(&s, BTF_DIFF_CHANGED, "func f1"), "f1 not reported");
		CHECK(saw(&s, BTF_DIFF_CHANGED, "func f2"), "f2 not reported");
	}
	TEST_END();

	/* The decl tag names the member it is on, so it moves with the name. */
	TEST_BEGIN("renamed field");
	n = diff_variants(V_SAME, V_RENAME | V_REORDER, &s);
	if (CHECK_EQ(n, 3)) {
		CHECK(saw(&s, BTF_DIFF_CHANGED, "struct foo"), "struct foo not reported");
		CHECK(saw(&s, BTF_DIFF_ONLY_A, "decl_tag tagged on struct foo{40} member b"),
		      "tag on b not reported");
		CHECK(saw(&s, BTF_DIFF_ONLY_B, "decl_tag tagged on struct foo{40} member c"),
		      "tag on c not reported");
	}
	TEST_END();
}

/*
 * Two same-named structs, both changed: each must be paired with its own
 * counterpart (by likeness), not by sort order, which here would cross them.
 */
static struct btf *build_pair(bool changed)
{
	struct btf *b = btf__new_empty();
	int i32, i64, chr;

	if (!b)
		return NULL;
	i32 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	chr = btf__add_int(b, "char", 1, BTF_INT_SIGNED);
	btf__add_struct(b, "pair", 16);
	btf__add_field(b, "a", i64, 0, 0);
	btf__add_field(b, "b", i32, 64, 0);
	if (changed)
		btf__add_field(b, "c", i32, 96, 0);
	btf__add_struct(b, "pair", 16);
	btf__add_field(b, changed ? "_m" : "m", chr, 0, 0);
	return b;
}

static int first_changed(enum btf_diff_kind kind, const struct btf_canon_ent *a,
			 const struct btf_canon_ent *b, void *ctx)
{
	const char **texts = ctx;

	if (kind == BTF_DIFF_CHANGED && !texts[0]) {
		texts[0] = a->text;
		texts[1] = b->text;
	}
	return 0;
}

static void test_pairing(void)
{
	struct btf *a = build_pair(false), *b = build_pair(true);
	struct btf_canon *ca = a ? btf_canon__new(a, BTF_CANON_ALL) : NULL;
	struct btf_canon *cb = b ? btf_canon__new(b, BTF_CANON_ALL) : NULL;
	const char *texts[2] = {};

	TEST_BEGIN("same-named structs, both changed: each paired with its own");
	if (CHECK(ca && cb, "building the canons failed")) {
		CHECK_EQ(btf_canon__diff(ca, cb, first_changed, texts), 2);
		if (CHECK(texts[0] && texts[1], "no change reported"))
			CHECK(!strncmp(texts[0], texts[1], strlen("struct pair size=16\n  a 0 long")) ||
			      (strstr(texts[0], " m ") && strstr(texts[1], " _m ")),
			      "crossed pairing: '%s' with '%s'", texts[0], texts[1]);
	}
	TEST_END();
	btf_canon__free(ca);
	btf_canon__free(cb);
	btf__free(a);
	btf__free(b);
}

/* The same through the command: exit 0, 1, 2, and --kinds. */
static int write_blob(const char *path, unsigned int v)
{
	struct btf *b = build(v);
	const void *data;
	__u32 size;
	FILE *f;
	int err = -EIO;

	if (!b)
		return -ENOMEM;
	data = btf__raw_data(b, &size);
	f = fopen(path, "w");
	if (f && data && fwrite(data, 1, size, f) == size)
		err = 0;
	if (f && fclose(f))
		err = -EIO;
	btf__free(b);
	return err;
}

static int run_diff(const char *a, const char *b, const char *opt)
{
	char *argv[] = { "diff", "-q", (char *)(opt ? opt : "-q"), (char *)a, (char *)b, NULL };

	return btf_diff_main(5, argv);
}

/* btf_load() writes its reason into the caller's buffer, cut to its size. */
static void test_load(const char *good, const char *bad, const char *dir)
{
	struct btf *b = NULL;
	char why[128], small[8];

	TEST_BEGIN("btf_load: 0, or -errno and the reason in the caller's buffer");
	CHECK_EQ(btf_load(good, NULL, &b, why, sizeof(why)), 0);
	CHECK(b, "no BTF");
	btf__free(b);
	CHECK(btf_load(bad, NULL, &b, why, sizeof(why)) < 0, "bad blob loaded");
	CHECK(!b, "*out set on failure");
	CHECK_STR(why, "neither raw BTF nor an ELF file with a .BTF section");
	CHECK_EQ(btf_load("/nonexistent/x.btf", NULL, &b, why, sizeof(why)), -ENOENT);
	CHECK_STR(why, strerror(ENOENT));
	CHECK_EQ(btf_load(dir, NULL, &b, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "not a regular file");
	CHECK_EQ(btf_load(dir, NULL, &b, small, sizeof(small)), -EINVAL);
	CHECK_STR(small, "not a r");
	TEST_END();
}

static void test_command(void)
{
	char dir[] = "/tmp/frugal-btf-diff.XXXXXX", pa[64], pb[64], pc[64], bad[64];
	FILE *f;

	TEST_BEGIN("btf diff command: exit 0 same, 1 different, 2 bad input");
	if (!CHECK(mkdtemp(dir), "mkdtemp: %s", strerror(errno)))
		goto out;
	snprintf(pa, sizeof(pa), "%s/a.btf", dir);
	snprintf(pb, sizeof(pb), "%s/b.btf", dir);
	snprintf(pc, sizeof(pc), "%s/c.btf", dir);
	snprintf(bad, sizeof(bad), "%s/bad.btf", dir);
	CHECK_EQ(write_blob(pa, V_SAME), 0);
	CHECK_EQ(write_blob(pb, V_REORDER), 0);
	CHECK_EQ(write_blob(pc, V_NO_FUNC), 0);
	f = fopen(bad, "w");
	if (f) {
		fputs("not btf at all\n", f);
		fclose(f);
	}
	CHECK_EQ(run_diff(pa, pb, NULL), 0);
	CHECK_EQ(run_diff(pa, pc, NULL), 1);
	CHECK_EQ(run_diff(pa, pc, "--kinds=types"), 0);
	CHECK_EQ(run_diff(pa, pc, "--kinds=func"), 1);
	CHECK_EQ(run_diff(pa, bad, NULL), 2);
	CHECK_EQ(run_diff(pa, "/nonexistent/x.btf", NULL), 2);
	CHECK_EQ(run_diff(pa, pb, "--kinds=nosuch"), 2);
	TEST_END();
	test_load(pa, bad, dir);
	unlink(pa);
	unlink(pb);
	unlink(pc);
	unlink(bad);
	rmdir(dir);
	return;
out:
	TEST_END();
}

int main(void)
{
	test_same();
	expect_one("changed member offset", V_SAME, V_OFFSET, BTF_DIFF_CHANGED, "struct foo");
	expect_one("missing function", V_SAME, V_NO_FUNC, BTF_DIFF_ONLY_A, "func f2");
	expect_one("changed enum value", V_REORDER, V_ENUM_VAL, BTF_DIFF_CHANGED, "enum E");
	expect_one("changed bitfield width", V_SAME, V_BITFIELD, BTF_DIFF_CHANGED, "struct foo");
	expect_one("changed member of an anonymous union", V_SAME, V_ANON,
		   BTF_DIFF_CHANGED, "struct foo");
	expect_one("one of two same-named structs changed", V_SAME, V_DUP | V_REORDER,
		   BTF_DIFF_CHANGED, "struct dup");
	test_multi();
	test_pairing();
	test_command();
	TEST_EXIT();
}
