// SPDX-License-Identifier: GPL-2.0
/*
 * The encoder's parts that stand alone: pahole's feature sets, the mmap'd
 * ELF reader, dropping orphaned prototypes, the crash-safe writers (raw
 * and into an ELF, with everything else byte-identical), and one whole
 * encode of this test program's own DWARF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "btf/encode/encode_int.h"
#include "btf/encode/encode_write_int.h"
#include "tests/test.h"

static char dir[] = "/tmp/frugal-test-encode.XXXXXX";

static int nfiles(void)
{
	char cmd[256];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_features(void)
{
	unsigned int def = btf_feat__default(), all = btf_feat__all();

	TEST_BEGIN("btf features: default and all as pahole defines them");
	CHECK_EQ(btf_feat__from_name("var"), BTF_FEAT_VAR);
	CHECK_EQ(btf_feat__from_name("decl_tag_kfuncs"), BTF_FEAT_DECL_TAG_KFUNCS);
	CHECK_EQ(btf_feat__from_name("no_such_feature"), 0);
	CHECK(def & BTF_FEAT_CONSISTENT_FUNC, "consistent_func is a default feature");
	CHECK(!(def & BTF_FEAT_GLOBAL_VAR), "global_var is not a default feature");
	CHECK(!(def & BTF_FEAT_REPRODUCIBLE_BUILD), "reproducible_build is not default");
	CHECK((all & def) == def && (all & BTF_FEAT_GLOBAL_VAR), "all is a superset");
	TEST_END();
}

static void test_elf_open(void)
{
	struct elf_file ef;
	struct elf_symtab st;
	const char *name;
	char why[128];
	char path[300];
	GElf_Sym sym;
	Elf32_Word shndx;
	bool found = false;
	size_t i;
	FILE *f;

	TEST_BEGIN("elf_file: not an ELF, a directory, a missing file");
	snprintf(path, sizeof(path), "%s/text", dir);
	f = fopen(path, "w");
	fputs("hello, not an ELF\n", f);
	fclose(f);
	CHECK_EQ(elf_file__open(&ef, path, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "not an ELF file");
	unlink(path);
	CHECK_EQ(elf_file__open(&ef, dir, why, sizeof(why)), -EINVAL);
	CHECK_STR(why, "not a regular file");
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK_EQ(elf_file__open(&ef, path, why, sizeof(why)), -ENOENT);
	unlink(path);
	TEST_END();

	TEST_BEGIN("elf_file: this program's symbols, read in place");
	if (CHECK_EQ(elf_file__open(&ef, "/proc/self/exe", why, sizeof(why)), 0)) {
		if (CHECK_EQ(elf_file__symtab(&ef, &st), 0)) {
			for (i = 1; i < st.count; i++) {
				name = elf_file__sym(&ef, &st, i, &sym, &shndx);
				if (name && !strcmp(name, "test_elf_open") &&
				    GELF_ST_TYPE(sym.st_info) == STT_FUNC)
					found = true;
			}
			CHECK(found, "no STT_FUNC symbol test_elf_open");
		}
		elf_file__close(&ef);
	}
	TEST_END();
}

static void test_gc(void)
{
	struct btf *btf = btf__new_empty();
	const struct btf_type *t;
	int i_int, p_named, p_orphan, p_anon;

	TEST_BEGIN("gc: drops only unreferenced prototypes with named parameters");
	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	p_named = btf__add_func_proto(btf, i_int);
	btf__add_func_param(btf, "a", i_int);
	btf__add_func(btf, "f", BTF_FUNC_STATIC, p_named);
	p_orphan = btf__add_func_proto(btf, i_int);
	btf__add_func_param(btf, "b", i_int);
	btf__add_ptr(btf, i_int);
	p_anon = btf__add_func_proto(btf, i_int);	/* a subroutine type */
	btf__add_func_param(btf, NULL, i_int);
	CHECK_EQ(p_orphan, 4);
	CHECK_EQ(p_anon, 6);
	if (CHECK_EQ(enc_gc(&btf, NULL, NULL, true), 0)) {
		CHECK_EQ(btf__type_cnt(btf), 6);	/* void + 5 */
		t = btf__type_by_id(btf, 3);
		CHECK(btf_is_func(t) && t->type == 2, "FUNC f still points at its prototype");
		t = btf__type_by_id(btf, 4);
		CHECK(btf_is_ptr(t) && t->type == 1, "the PTR after the dropped one kept its target");
		t = btf__type_by_id(btf, 5);
		CHECK(btf_is_func_proto(t) && btf_vlen(t) == 1, "the unnamed prototype stays");
	}
	btf__free(btf);
	TEST_END();
}

static void test_gc_both(void)
{
	struct btf *btf = btf__new_empty();
	const struct btf_type *t;
	uint8_t drop[9] = { 0 };
	int i_int, p_f, p_g, g;

	TEST_BEGIN("gc: folded prototypes and a rejected FUNC go in one rebuild");
	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);		/* 1 */
	p_f = btf__add_func_proto(btf, i_int);				/* 2 */
	btf__add_func_param(btf, "a", i_int);
	btf__add_func(btf, "f", BTF_FUNC_STATIC, p_f);			/* 3 */
	btf__add_func_proto(btf, i_int);				/* 4: orphan */
	btf__add_func_param(btf, "b", i_int);
	p_g = btf__add_func_proto(btf, i_int);				/* 5: g's only */
	btf__add_func_param(btf, "c", i_int);
	g = btf__add_func(btf, "g", BTF_FUNC_STATIC, p_g);		/* 6: rejected */
	btf__add_decl_tag(btf, "bpf_kfunc", g, -1);			/* 7: on g */
	btf__add_ptr(btf, i_int);					/* 8 */
	CHECK_EQ(g, 6);
	drop[6] = 1;
	if (CHECK_EQ(enc_gc(&btf, NULL, drop, true), 0)) {
		CHECK_EQ(btf__type_cnt(btf), 5);	/* void, int, f's proto, f, the PTR */
		t = btf__type_by_id(btf, 3);
		CHECK(btf_is_func(t) && t->type == 2, "FUNC f still points at its prototype");
		t = btf__type_by_id(btf, 4);
		CHECK(btf_is_ptr(t) && t->type == 1, "the PTR kept its target");
	}
	btf__free(btf);
	TEST_END();
}

static void test_write_raw(void)
{
	char path[300], buf[16] = "";
	int fd, n;

	TEST_BEGIN("write raw: whole file, nothing left beside it; bad dir fails clean");
	snprintf(path, sizeof(path), "%s/out.btf", dir);
	CHECK_EQ(enc_write_raw(path, "0123456789", 10), 0);
	fd = open(path, O_RDONLY);
	n = fd >= 0 ? read(fd, buf, sizeof(buf)) : -1;
	CHECK_EQ(n, 10);
	CHECK(!memcmp(buf, "0123456789", 10), "content");
	if (fd >= 0)
		close(fd);
	CHECK_EQ(nfiles(), 1);
	snprintf(path, sizeof(path), "%s/no/such/dir/out.btf", dir);
	CHECK_EQ(enc_write_raw(path, "x", 1), -ENOENT);
	CHECK_EQ(nfiles(), 1);
	snprintf(path, sizeof(path), "%s/out.btf", dir);
	unlink(path);
	TEST_END();
}

/* The bytes of section NAME in the ELF at PATH (malloc'd). */
static void *section_bytes(const char *path, const char *name, size_t *len)
{
	struct elf_file ef;
	char why[128];
	GElf_Shdr sh;
	Elf_Scn *scn;
	Elf_Data *d;
	void *out = NULL;

	if (elf_file__open(&ef, path, why, sizeof(why)))
		return NULL;
	scn = elf_file__section(&ef, name, &sh);
	d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (d && (out = malloc(d->d_size + 1))) {
		memcpy(out, d->d_buf, d->d_size);
		*len = d->d_size;
	}
	elf_file__close(&ef);
	return out;
}

/*
 * Copy this program to PATH.  Read in-process: under valgrind, only the
 * process's own /proc/self/exe is this program (a shell's cp would copy
 * valgrind).
 */
static int copy_self(const char *path)
{
	char buf[65536];
	int in = open("/proc/self/exe", O_RDONLY), out;
	ssize_t n;
	int err = 0;

	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		err = -1;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -1;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

static void test_write_elf(void)
{
	char path[300], cmd[700];
	struct btf *btf = btf__new_empty(), *back;
	struct elf_file ef;
	char why[128];
	const void *raw;
	void *text0, *text1;
	size_t l0 = 0, l1 = 0;
	__u32 len;

	TEST_BEGIN("write into ELF: .BTF added, .text and the program unchanged");
	snprintf(path, sizeof(path), "%s/prog", dir);
	btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	raw = btf__raw_data(btf, &len);
	if (CHECK_EQ(copy_self(path), 0) && CHECK_EQ(elf_file__open(&ef, path, why, sizeof(why)), 0)) {
		text0 = section_bytes(path, ".text", &l0);
		CHECK_EQ(enc_write_elf(&ef, path, raw, len), 0);
		elf_file__close(&ef);
		text1 = section_bytes(path, ".text", &l1);
		CHECK(text0 && text1 && l0 == l1 && !memcmp(text0, text1, l0),
		      ".text differs after adding .BTF");
		free(text0);
		free(text1);
		back = btf__parse(path, NULL);
		CHECK(back && btf__type_cnt(back) == 2, "the .BTF reads back");
		btf__free(back);
		CHECK_EQ(nfiles(), 1);
		/* The copy must still be a program the kernel loads: run it as a no-op. */
		snprintf(cmd, sizeof(cmd), "%s --exec-check", path);
		CHECK_EQ(system(cmd), 0);
	}
	unlink(path);
	btf__free(btf);
	TEST_END();
}

static void test_encode_self(void)
{
	struct btf_enc_opts o = { .features = BTF_FEAT_LEGACY, .jobs = 2 };
	char out[300], err[300] = "";
	struct btf *btf;

	TEST_BEGIN("encode: this program's own DWARF, FUNC test_encode_self in it");
	snprintf(out, sizeof(out), "%s/self.btf", dir);
	o.path = "/proc/self/exe";
	o.detached = out;
	o.errbuf = err;
	o.errlen = sizeof(err);
	if (CHECK_EQ(btf_enc__run(&o), 0)) {
		btf = btf__parse_raw(out);
		CHECK(btf && btf__find_by_name_kind(btf, "test_encode_self", BTF_KIND_FUNC) > 0,
		      "no FUNC test_encode_self");
		CHECK(btf && btf__find_by_name_kind(btf, "btf_enc_opts", BTF_KIND_STRUCT) > 0,
		      "no STRUCT btf_enc_opts");
		btf__free(btf);
	}
	unlink(out);
	TEST_END();

	TEST_BEGIN("encode: a missing input is one error naming it, no output");
	o.path = "/nonexistent/vmlinux";
	CHECK(btf_enc__run(&o) < 0, "encoding a missing file succeeded");
	CHECK(!strncmp(err, "/nonexistent/vmlinux: ", 22), "error '%s' does not name the file", err);
	CHECK_EQ(access(out, F_OK), -1);
	TEST_END();
}

int main(int argc, char **argv)
{
	/* test_write_elf runs its rewritten copy of this program this way. */
	if (argc == 2 && !strcmp(argv[1], "--exec-check"))
		return 0;
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_features();
	test_elf_open();
	test_gc();
	test_gc_both();
	test_write_raw();
	test_write_elf();
	test_encode_self();
	rmdir(dir);
	TEST_EXIT();
}
