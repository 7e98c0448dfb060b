// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi`'s graph on BTF made here with libbpf's btf__add_*: a
 * cycle of two structs (a -> b * -> a *) ends, the changed struct is one
 * node reached by both symbols, each symbol gets one path that goes
 * through the cycle, an unchanged pair has no change and no path; the
 * rules table says what the docs say; the parser binds its options; a
 * split BTF read on another base than its own is told.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf/abi/abi.h"
#include "btf/abi/abi_base_int.h"
#include "btf/abi/abi_int.h"
#include "btf/abi/abi_lists_int.h"
#include "btf/btf_int.h"
#include "cli/cli.h"
#include "lib/io.h"
#include "tests/test.h"

#define ARGC(v) ((int)(sizeof(v) / sizeof((v)[0])) - 1)

/*
 * 1 int, 2 long, 3 struct a *, 4 struct b *, 5 struct a { b *pb; int x; },
 * 6 struct b { a *pa; Y y; }, 7 int (struct a *p), 8 f, 9 int (struct b *q),
 * 10 g.  Ids refer forward: libbpf checks them only against the maximum.
 */
static struct btf *make(int y_type)
{
	struct btf *btf = btf__new_empty();
	int err = 0;

	if (!btf)
		return NULL;
	err |= btf__add_int(btf, "int", 4, BTF_INT_SIGNED) != 1;
	err |= btf__add_int(btf, "long", 8, BTF_INT_SIGNED) != 2;
	err |= btf__add_ptr(btf, 5) != 3;
	err |= btf__add_ptr(btf, 6) != 4;
	err |= btf__add_struct(btf, "a", 16) != 5;
	err |= btf__add_field(btf, "pb", 4, 0, 0) != 0;
	err |= btf__add_field(btf, "x", 1, 64, 0) != 0;
	err |= btf__add_struct(btf, "b", 16) != 6;
	err |= btf__add_field(btf, "pa", 3, 0, 0) != 0;
	err |= btf__add_field(btf, "y", y_type, 64, 0) != 0;
	err |= btf__add_func_proto(btf, 1) != 7;
	err |= btf__add_func_param(btf, "p", 3) != 0;
	err |= btf__add_func(btf, "f", BTF_FUNC_GLOBAL, 7) != 8;
	err |= btf__add_func_proto(btf, 1) != 9;
	err |= btf__add_func_param(btf, "q", 4) != 0;
	err |= btf__add_func(btf, "g", BTF_FUNC_GLOBAL, 9) != 10;
	if (err) {
		btf__free(btf);
		return NULL;
	}
	return btf;
}

/* Symbols f (8) and g (10) compared and their paths found; 0 or -errno. */
static int run(struct abi *abi)
{
	static const char *const names[] = { "f", "g" };
	static const uint32_t ids[] = { 8, 10 };
	uint32_t *queue, i, node;
	int err = 0;

	abi->syms = calloc(2, sizeof(*abi->syms));
	if (!abi->syms)
		return -ENOMEM;
	for (i = 0; i < 2 && !err; i++) {
		abi->syms[i].name = strdup(names[i]);
		abi->nsyms++;
		err = abi__symbol_node(abi, ids[i], ids[i], &node);
		if (!err) {
			abi->syms[i].compared = true;
			abi->syms[i].node = node;
			err = abi__compare_symbol(abi, node);
		}
	}
	if (err)
		return err;
	abi__mark_tainted(abi);
	queue = malloc(abi->nn * sizeof(*queue));
	if (!queue)
		return -ENOMEM;
	for (i = 0; i < 2 && !err; i++)
		err = abi__symbol_paths(abi, i, queue);
	free(queue);
	return err;
}

static const struct abi_node *type_named(const struct abi *abi, const char *name)
{
	size_t i;

	for (i = 0; i < abi->nn; i++)
		if (!abi->nodes[i].is_sym && !strcmp(abi->nodes[i].name, name))
			return &abi->nodes[i];
	return NULL;
}

static void test_cycle(void)
{
	struct abi abi = { .pairs = IDXMAP_INIT };
	const struct abi_node *a, *b;

	TEST_BEGIN("abi/cycle-described-once");
	abi.btf[0] = make(1);
	abi.btf[1] = make(2);
	if (!CHECK(abi.btf[0] && abi.btf[1], "building BTF") || !CHECK_EQ(run(&abi), 0))
		goto out;
	/* Two symbols, struct a and struct b: nothing made twice. */
	CHECK_EQ(abi.nn, 4);
	a = type_named(&abi, "struct a");
	b = type_named(&abi, "struct b");
	if (!CHECK(a && b, "the two pairs"))
		goto out;
	CHECK_EQ(a->nchanges, 0);
	CHECK_EQ(b->nchanges, 1);
	CHECK_STR(abi.ch[b->ch_head].text, "member 'y': int -> long");
	CHECK(b->incompat, "a member retyped is incompatible");
	CHECK_EQ(b->nsyms, 2);
	CHECK_EQ(abi.syms[0].status, ABI_SYM_CHANGED);
	CHECK(abi.syms[0].incompat && abi.syms[1].incompat, "both incompatible");
	CHECK_EQ(abi.syms[0].npaths, 1);
	CHECK_EQ(abi.syms[1].npaths, 1);
	if (abi.syms[0].npaths && abi.syms[1].npaths) {
		CHECK_STR(abi.syms[0].paths[0], "parameter 1 (p): struct a * -> struct a: "
			  "member 'pb': struct b * -> struct b: member 'y': int -> long");
		CHECK_STR(abi.syms[1].paths[0],
			  "parameter 1 (q): struct b * -> struct b: member 'y': int -> long");
	}
	TEST_END();
out:
	abi__free(&abi);
	btf__free(abi.btf[0]);
	btf__free(abi.btf[1]);
}

static void test_same(void)
{
	struct abi abi = { .pairs = IDXMAP_INIT };

	TEST_BEGIN("abi/same-is-no-change");
	abi.btf[0] = make(1);
	abi.btf[1] = make(1);
	if (CHECK(abi.btf[0] && abi.btf[1], "building BTF") && CHECK_EQ(run(&abi), 0)) {
		CHECK_EQ(abi.nch, 0);
		CHECK_EQ(abi.syms[0].status, ABI_SYM_SAME);
		CHECK_EQ(abi.syms[1].npaths, 0);
	}
	TEST_END();
	abi__free(&abi);
	btf__free(abi.btf[0]);
	btf__free(abi.btf[1]);
}

static void test_rules(void)
{
	TEST_BEGIN("abi/rules");
	CHECK(abi_rules[ABI_CH_SYM_REMOVED].incompat, "symbol removed");
	CHECK(!abi_rules[ABI_CH_SYM_ADDED].incompat, "symbol added");
	CHECK(!abi_rules[ABI_CH_MEMBER_ADDED].incompat, "member added in padding");
	CHECK(abi_rules[ABI_CH_MEMBER_GROWN].incompat, "member added, struct grown");
	CHECK(!abi_rules[ABI_CH_ENUM_ADDED].incompat, "enumerator added");
	CHECK(abi_rules[ABI_CH_ENUM_VALUE].incompat, "enumerator value");
	CHECK(abi_rules[ABI_CH_MEMBER_OFFSET].incompat, "member offset");
	CHECK(!abi_rules[ABI_CH_MEMBER_WRAPPED].incompat, "member wrapped, same offset and type");
	CHECK(!abi_rules[ABI_CH_ENUM_BITFIELD].incompat, "enum bitfield to an integer of its width");
	TEST_END();
}

static void test_parse(void)
{
	char *ok[] = { "abi", "--base", "vmlinux", "a.ko", "--json", "b.ko", "--symbols", "l", NULL };
	char *split[] = { "abi", "--base-a", "v1", "--base-b", "v2", "a", "b", NULL };
	char *one[] = { "abi", "a", NULL };
	char *lists[] = { "abi", "--suppressions", "x.supp", "--symvers", "s1", "--symvers-b", "s2",
			  "--suppressions", "y.supp", "a", "b", NULL };
	char *both[] = { "abi", "--symbols", "l", "--symvers", "s", "a", "b", NULL };
	struct btf_abi_opts o;

	TEST_BEGIN("abi/arguments");
	CHECK_EQ(btf_abi_opts__parse(&o, ARGC(ok), ok), 0);
	CHECK_STR(o.base[0], "vmlinux");
	CHECK_STR(o.base[1], "vmlinux");
	CHECK_STR(o.path[0], "a.ko");
	CHECK_STR(o.path[1], "b.ko");
	CHECK_STR(o.symbols, "l");
	CHECK(o.json, "--json");
	CHECK_EQ(btf_abi_opts__parse(&o, ARGC(split), split), 0);
	CHECK_STR(o.base[0], "v1");
	CHECK_STR(o.base[1], "v2");
	CHECK(!o.json && !o.symbols, "a second parse starts afresh");
	fflush(stderr);
	CHECK_EQ(btf_abi_opts__parse(&o, ARGC(one), one), EXIT_USAGE);
	CHECK_EQ(btf_abi_opts__parse(&o, ARGC(lists), lists), 0);
	CHECK_STR(o.symvers[0], "s1");
	CHECK_STR(o.symvers[1], "s2");
	CHECK_EQ(o.nsupp, 2);
	CHECK_STR(o.supp[0], "x.supp");
	CHECK_STR(o.supp[1], "y.supp");
	CHECK_EQ(btf_abi_opts__parse(&o, ARGC(both), both), EXIT_USAGE);
	TEST_END();
}

static int count_name(void *ctx, const char *name, size_t len)
{
	(void)name;
	(void)len;
	++*(int *)ctx;
	return 0;
}

static void test_lists(void)
{
	static const char supp[] = "[suppress_type]\nname = sk_buff\n"
				   "[suppress_function]\nname_regexp = ^tcp_\n";
	static const char symvers[] = "0x1\ta\tvmlinux\tEXPORT_SYMBOL\n"
				      "0x2\tb\tnet/tun\tEXPORT_SYMBOL_GPL\tNS\n";
	static const char zero[] = "0x00000000\ta\tvmlinux\tEXPORT_SYMBOL\t\n\n"
				   "0x0\tb\tnet/tun\tEXPORT_SYMBOL_GPL\n";
	static const char one[] = "0x00000000\ta\tvmlinux\tEXPORT_SYMBOL\t\n"
				  "0x00000100\tb\tvmlinux\tEXPORT_SYMBOL\t\n";
	struct abi_supp sp = {};
	char why[128] = "";
	int n;

	TEST_BEGIN("abi/lists");
	CHECK_EQ(abi_supp__parse(&sp, supp, strlen(supp), why, sizeof(why)), 0);
	CHECK(abi_supp__type(&sp, "struct sk_buff"), "a type by its bare name");
	CHECK(!abi_supp__type(&sp, "struct sk_buff_head"), "a name is exact");
	CHECK(abi_supp__symbol(&sp, "tcp_sendmsg", true), "a function by regexp");
	CHECK(!abi_supp__symbol(&sp, "tcp_sendmsg", false), "a function's rule, not a variable's");
	CHECK_EQ(abi_supp__parse(&sp, "[x]\n", 4, why, sizeof(why)), -EINVAL);
	CHECK(!strncmp(why, "1: section [x] is not supported", 31), "%s", why);
	abi_supp__free(&sp);
	n = 0;
	CHECK_EQ(abi_list__symvers(symvers, strlen(symvers), "tun", count_name, &n, why,
				   sizeof(why)), 0);
	CHECK_EQ(n, 1);
	n = 0;
	CHECK_EQ(abi_list__symvers(symvers, strlen(symvers), "e1000", count_name, &n, why,
				   sizeof(why)), 0);
	CHECK_EQ(n, 2);
	/* Every CRC 0 (no CONFIG_MODVERSIONS), however written; one other, or no line, is not. */
	CHECK(!abi_list__symvers_no_crcs(symvers, strlen(symvers)), "CRCs 0x1, 0x2");
	CHECK(abi_list__symvers_no_crcs(zero, strlen(zero)), "every CRC 0");
	CHECK(!abi_list__symvers_no_crcs(one, strlen(one)), "one CRC not 0");
	CHECK(!abi_list__symvers_no_crcs("\n", 1), "no line, no claim");
	TEST_END();
}

/* A base of two types whose one name is NAME: "int" and "long", or longer ones. */
static struct btf *make_base(const char *name)
{
	struct btf *btf = btf__new_empty();

	if (btf && (btf__add_int(btf, name, 4, BTF_INT_SIGNED) != 1 ||
		    btf__add_ptr(btf, 1) != 2)) {
		btf__free(btf);
		btf = NULL;
	}
	return btf;
}

/* RAW split BTF parsed on BASE, through a file (older libbpf has no btf__new_split). */
static struct btf *reparse(const void *raw, __u32 len, struct btf *base)
{
	char path[] = "/tmp/test_abi.XXXXXX";
	struct btf *btf = NULL;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	if (io__write_full(fd, raw, len) == 0)
		btf = btf__parse_raw_split(path, base);
	close(fd);
	unlink(path);
	return libbpf_get_error(btf) ? NULL : btf;
}

/*
 * The split BTF of a module, f(int *p) and struct m { int x; }, built on
 * BASE's "int", then its raw bytes read on OTHER: one of the same type
 * count and a longer string section, where the module's own names land
 * mid-string, is told; BASE itself is not.
 */
static void test_base(void)
{
	struct btf *base = make_base("int"), *other = make_base("int_of_another_kernel");
	struct btf *split = NULL, *back = NULL;
	const void *raw;
	char why[128] = "";
	__u32 len;

	TEST_BEGIN("abi/base");
	CHECK(base && other, "bases made");
	if (!base || !other)
		goto out;
	split = btf__new_empty_split(base);
	CHECK(split, "split made");
	if (!split)
		goto out;
	CHECK_EQ(btf__add_func_proto(split, 1), 3);
	CHECK_EQ(btf__add_func_param(split, "p", 2), 0);
	CHECK_EQ(btf__add_func(split, "f", BTF_FUNC_GLOBAL, 3), 4);
	CHECK_EQ(btf__add_struct(split, "m", 4), 5);
	CHECK_EQ(btf__add_field(split, "x", 1, 0, 0), 0);
	CHECK_EQ(abi_base__check_split(split, base, why, sizeof(why)), 0);
	raw = btf__raw_data(split, &len);
	back = raw ? reparse(raw, len, other) : NULL;
	CHECK(back, "libbpf reads the module on another base all the same");
	if (!back)
		goto out;
	CHECK_EQ(abi_base__check_split(back, other, why, sizeof(why)), -EINVAL);
	CHECK(strstr(why, "mid-string") != NULL, "%s", why);
out:
	btf__free(back);
	btf__free(split);
	btf__free(other);
	btf__free(base);
	TEST_END();
}

int main(void)
{
	cli_cmd_name = "test";
	test_cycle();
	test_same();
	test_rules();
	test_parse();
	test_lists();
	test_base();
	TEST_EXIT();
}
