// SPDX-License-Identifier: GPL-2.0
/*
 * dwarfwalk: the floor under `frugal btf encode`'s DWARF reading.  Walks
 * every DIE of every unit of FILE's .debug_info and reads every attribute,
 * either through libdw as the encoder does (dwarf_child/dwarf_siblingof,
 * one dwarf_getattrs() pass per DIE, each value read with dwarf_form*), or
 * with a minimal decoder: each unit's abbreviation table decoded once into
 * an array indexed by code, then forms read by size, no callbacks.  Prints
 * the units, DIEs and attributes it met (the two walkers must agree: the
 * test tests/btf/dwarfwalk.sh checks that they do) and the CPU time of the
 * walk alone, after the file is opened.  The decoder is lib/dwarf_scan,
 * which the encoder uses to learn a module's names (btf/encode/encode_base.c).
 *
 *   dwarfwalk libdw|raw|die FILE
 *   dwarfwalk check FILE
 *
 * "die" walks with lib/dwarf_die, the encoder's cursor, reading each
 * attribute as the encoder would.  "check" walks libdw and lib/dwarf_die
 * in lockstep and compares what the encoder reads: the tree (offsets,
 * tags, children, siblings), each attribute's name and form, and the
 * values: constants, strings, references, flags, blocks, DW_AT_name
 * through abstract origins and specifications, the first operation of
 * a location.  It prints the counts and the first difference, and fails
 * on any.
 *
 * bench/btf.sh runs both on the 6.12 vmlinux beside the encoder's own
 * figures.  Both read every value (summed into a checksum that is
 * printed, so the compiler cannot drop the reads).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/dwarf_die.h"
#include "lib/dwarf_scan.h"
#include "lib/elf_file.h"

struct counts {
	uint64_t units, dies, attrs, sum;
};

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- through libdw --------------------------------------------------------- */

static int attr_cb(Dwarf_Attribute *a, void *arg)
{
	struct counts *c = arg;
	Dwarf_Word w = 0;
	Dwarf_Die ref;
	const char *s;

	c->attrs++;
	switch (dwarf_whatform(a)) {
	case DW_FORM_string: case DW_FORM_strp: case DW_FORM_line_strp:
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2:
	case DW_FORM_strx3: case DW_FORM_strx4: case DW_FORM_GNU_strp_alt:
		s = dwarf_formstring(a);
		c->sum += s ? (unsigned char)s[0] : 0;
		break;
	case DW_FORM_ref1: case DW_FORM_ref2: case DW_FORM_ref4: case DW_FORM_ref8:
	case DW_FORM_ref_udata: case DW_FORM_ref_addr:
		if (dwarf_formref_die(a, &ref))
			c->sum += dwarf_dieoffset(&ref);
		break;
	case DW_FORM_flag: case DW_FORM_flag_present:
		c->sum += 1;
		break;
	default:
		if (!dwarf_formudata(a, &w))
			c->sum += w;
		break;
	}
	return DWARF_CB_OK;
}

/* Depth first, as dwarf_cu.c walks a unit. */
static void walk_dies(Dwarf_Die *die, struct counts *c)
{
	Dwarf_Die child;

	do {
		c->dies++;
		dwarf_getattrs(die, attr_cb, c, 0);
		if (dwarf_haschildren(die) && dwarf_child(die, &child) == 0)
			walk_dies(&child, c);
	} while (dwarf_siblingof(die, die) == 0);
}

static int walk_libdw(struct elf_file *ef, struct counts *c)
{
	Dwarf *dbg = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, sub;
	Dwarf_Half ver;
	uint8_t type;

	if (!dbg)
		return -ENODATA;
	while (dwarf_get_units(dbg, cu, &cu, &ver, &type, &cudie, &sub) == 0) {
		c->units++;
		walk_dies(&cudie, c);
	}
	dwarf_end(dbg);
	return 0;
}

/* --- the minimal decoder (lib/dwarf_scan) ------------------------------------ */

static int sum_str(const char *str, void *arg)
{
	((struct counts *)arg)->sum += (unsigned char)str[0];
	return 0;
}

static int section(struct elf_file *ef, const char *name, const uint8_t **p, size_t *len)
{
	GElf_Shdr shdr;
	Elf_Scn *scn = elf_file__section(ef, name, &shdr);
	Elf_Data *d;

	*p = NULL;
	*len = 0;
	if (!scn)
		return 0;
	if ((shdr.sh_flags & SHF_COMPRESSED) && elf_compress(scn, 0, 0) < 0)
		return -EINVAL;
	d = elf_getdata(scn, NULL);
	if (d && d->d_buf) {
		*p = d->d_buf;
		*len = d->d_size;
	}
	return 0;
}

static int walk_raw(struct elf_file *ef, struct counts *c)
{
	struct dwarf_scan_secs s;
	struct dwarf_scan_stats st = { 0 };
	int err;

	err = section(ef, ".debug_info", &s.info, &s.info_len);
	if (!err)
		err = section(ef, ".debug_abbrev", &s.abbrev, &s.abbrev_len);
	if (!err)
		err = section(ef, ".debug_str", &s.str, &s.str_len);
	if (!err)
		err = section(ef, ".debug_line_str", &s.line_str, &s.line_str_len);
	if (!err)
		err = section(ef, ".debug_str_offsets", &s.str_offsets, &s.str_offsets_len);
	if (!err)
		err = dwarf_scan__walk(&s, sum_str, c, &st);
	c->units += st.units;
	c->dies += st.dies;
	c->attrs += st.attrs;
	c->sum += st.sum;
	return err;
}

/* --- the encoder's cursor (lib/dwarf_die) ------------------------------------- */

static int secs_read(struct elf_file *ef, struct dwarf_scan_secs *s)
{
	int err = 0;

	memset(s, 0, sizeof(*s));
	err = err ?: section(ef, ".debug_info", &s->info, &s->info_len);
	err = err ?: section(ef, ".debug_abbrev", &s->abbrev, &s->abbrev_len);
	err = err ?: section(ef, ".debug_str", &s->str, &s->str_len);
	err = err ?: section(ef, ".debug_line_str", &s->line_str, &s->line_str_len);
	err = err ?: section(ef, ".debug_str_offsets", &s->str_offsets, &s->str_offsets_len);
	err = err ?: section(ef, ".debug_addr", &s->addr, &s->addr_len);
	err = err ?: section(ef, ".debug_loc", &s->loc, &s->loc_len);
	err = err ?: section(ef, ".debug_loclists", &s->loclists, &s->loclists_len);
	return err;
}

static uint64_t die_value(const struct dwarf_unit *u, const struct dwarf_attr *a)
{
	const uint8_t *p;
	const char *str;
	uint64_t v = 0;
	size_t len;
	bool f;

	if ((str = dwarf_attr__string(u, a)))
		return (unsigned char)str[0];
	if (!dwarf_attr__ref(u, a, &v))
		return v;
	if (!dwarf_attr__flag(u, a, &f))
		return f;
	if (!dwarf_attr__block(u, a, &p, &len))
		return len;
	dwarf_attr__udata(u, a, &v);
	return v;
}

static int walk_die_tree(const struct dwarf_unit *u, struct dwarf_die *d, struct counts *c)
{
	struct dwarf_attr_iter it;
	struct dwarf_attr a;
	struct dwarf_die ch;
	int r;

	do {
		c->dies++;
		dwarf_die__attrs(u, d, &it);
		while ((r = dwarf_attr__next(u, &it, &a)) > 0) {
			c->attrs++;
			c->sum += die_value(u, &a);
		}
		if (r < 0)
			return r;
		r = dwarf_die__child(u, d, &ch);
		if (r < 0)
			return r;
		if (!r && (r = walk_die_tree(u, &ch, c)))
			return r;
		r = dwarf_die__sibling(u, d, d);
	} while (r == 0);
	return r < 0 ? r : 0;
}

static int walk_die(struct elf_file *ef, struct counts *c)
{
	struct dwarf_scan_secs s;
	struct dwarf_unit u;
	struct dwarf_die cu;
	uint64_t off = 0;
	int err = secs_read(ef, &s);

	if (!err && !s.info)
		err = -ENODATA;
	dwarf_unit__init(&u, &s);
	while (!err && off < s.info_len) {
		err = dwarf_unit__open(&u, off);
		if (!err)
			err = dwarf_unit__cudie(&u, &cu);
		if (!err)
			err = walk_die_tree(&u, &cu, c);
		c->units++;
		off = u.next;
	}
	dwarf_unit__fini(&u);
	return err;
}

/* --- libdw and lib/dwarf_die in lockstep ------------------------------------- */

struct check {
	const struct dwarf_unit *u;
	uint64_t values, bad;
	char first[256];
};

__attribute__((format(printf, 3, 4)))
static void differ(struct check *k, Dwarf_Die *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!k->bad++) {
		n = snprintf(k->first, sizeof(k->first), "DIE 0x%llx: ",
			     (unsigned long long)dwarf_dieoffset(l));
		va_start(ap, fmt);
		vsnprintf(k->first + n, sizeof(k->first) - n, fmt, ap);
		va_end(ap);
	}
}

/* The attributes whose constants the encoder reads. */
static bool constant_attr(unsigned int name)
{
	switch (name) {
	case DW_AT_byte_size: case DW_AT_encoding: case DW_AT_bit_size: case DW_AT_bit_offset:
	case DW_AT_data_bit_offset: case DW_AT_data_member_location: case DW_AT_const_value:
	case DW_AT_count: case DW_AT_upper_bound: case DW_AT_lower_bound: case DW_AT_language:
		return true;
	default:
		return false;
	}
}

static void check_value(struct check *k, Dwarf_Die *l, Dwarf_Attribute *la,
			const struct dwarf_attr *a)
{
	const struct dwarf_unit *u = k->u;
	const char *ls, *ms;
	Dwarf_Word lw;
	Dwarf_Sword lsv;
	Dwarf_Die ref;
	Dwarf_Block blk;
	uint64_t mw, off;
	int64_t msv;
	const uint8_t *p;
	size_t len;
	bool lf, mf;
	int lok, mok;

	k->values++;
	ls = dwarf_formstring(la);
	ms = dwarf_attr__string(u, a);
	if ((ls || ms) && (!ls || !ms || strcmp(ls, ms)))
		differ(k, l, "attribute 0x%x: string '%s', ours '%s'", a->name,
		       ls ? ls : "(none)", ms ? ms : "(none)");
	if (a->form == DW_FORM_ref1 || a->form == DW_FORM_ref2 || a->form == DW_FORM_ref4 ||
	    a->form == DW_FORM_ref8 || a->form == DW_FORM_ref_udata || a->form == DW_FORM_ref_addr) {
		lok = dwarf_formref_die(la, &ref) != NULL;
		mok = dwarf_attr__ref(u, a, &off) == 0;
		if (lok != mok || (lok && dwarf_dieoffset(&ref) != off))
			differ(k, l, "attribute 0x%x: reference differs", a->name);
	}
	lok = dwarf_formflag(la, &lf) == 0;
	mok = dwarf_attr__flag(u, a, &mf) == 0;
	if (lok != mok || (lok && lf != mf))
		differ(k, l, "attribute 0x%x: flag differs", a->name);
	if (constant_attr(a->name)) {
		lok = dwarf_formudata(la, &lw) == 0;
		mok = dwarf_attr__udata(u, a, &mw) == 0;
		if (lok != mok || (lok && lw != mw))
			differ(k, l, "attribute 0x%x form 0x%x: constant %s%llx, ours %s%llx",
			       a->name, a->form, lok ? "" : "none ", (unsigned long long)lw,
			       mok ? "" : "none ", (unsigned long long)mw);
		if (a->form == DW_FORM_sdata &&
		    (dwarf_formsdata(la, &lsv) || dwarf_attr__sdata(u, a, &msv) || lsv != msv))
			differ(k, l, "attribute 0x%x: signed constant differs", a->name);
	}
	if (a->form != DW_FORM_data16) {
		lok = dwarf_formblock(la, &blk) == 0;
		mok = dwarf_attr__block(u, a, &p, &len) == 0;
		if (lok != mok || (lok && (blk.length != len || memcmp(blk.data, p, len))))
			differ(k, l, "attribute 0x%x: block differs", a->name);
	}
}

/* The first operation of a parameter's or variable's location, both ways. */
static void check_location(struct check *k, Dwarf_Die *l, const struct dwarf_die *d)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute la;
	struct dwarf_attr a;
	Dwarf_Op *expr;
	size_t len, mlen;
	uint8_t op;
	int lr, mr;

	if (!dwarf_attr(l, DW_AT_location, &la))
		return;
	if (dwarf_die__attr(k->u, d, DW_AT_location, &a) != 1) {
		differ(k, l, "DW_AT_location: not found");
		return;
	}
	k->values++;
	mr = dwarf_attr__first_op(k->u, &a, &op, &mlen);
	if (mr == -ENOTSUP)
		return;		/* the encoder asks libdw */
	lr = dwarf_getlocations(&la, 0, &base, &start, &end, &expr, &len);
	lr = lr > 0 && len ? 1 : 0;
	/*
	 * What the encoder decides on: a first operation that is not a
	 * register (libdw agrees, or refuses the whole expression), or one
	 * register alone; a register with more after it goes to libdw.
	 */
	if (mr > 0 && op >= DW_OP_reg0 && op <= DW_OP_reg31 && mlen > 1)
		return;
	if (mr > 0 && !(op >= DW_OP_reg0 && op <= DW_OP_reg31) ? lr && expr[0].atom != op
	    : lr != (mr > 0) || (lr && (expr[0].atom != op || len != 1)))
		differ(k, l, "DW_AT_location: first op %s0x%x, ours %s0x%x (%d)",
		       lr ? "" : "none ", lr ? expr[0].atom : 0, mr > 0 ? "" : "none ", op, mr);
}

struct lattrs {
	Dwarf_Attribute a[256];
	size_t n;
};

static int lattr_cb(Dwarf_Attribute *a, void *arg)
{
	struct lattrs *la = arg;

	if (la->n < 256)
		la->a[la->n++] = *a;
	return DWARF_CB_OK;
}

/*
 * Attribute I of D (A, read in order) found again by its name, as the
 * encoder looks attributes up: the same value (where it starts comes
 * from the abbreviation, from the DIE's start or its end, or by sizes).
 */
static void check_by_name(struct check *k, Dwarf_Die *l, const struct dwarf_die *d,
			  const struct lattrs *la, size_t i, const struct dwarf_attr *a)
{
	struct dwarf_attr b;
	size_t j;

	for (j = 0; j < i; j++)
		if (dwarf_whatattr((Dwarf_Attribute *)&la->a[j]) == a->name)
			return;		/* by name is the first of the name */
	if (dwarf_die__attr(k->u, d, a->name, &b) != 1 || b.form != a->form || b.p != a->p)
		differ(k, l, "attribute 0x%x by name: not where it is in order", a->name);
}

static void check_die(struct check *k, Dwarf_Die *l, const struct dwarf_die *d,
		      struct counts *c)
{
	const struct dwarf_unit *u = k->u;
	static struct lattrs la;
	struct dwarf_attr_iter it;
	struct dwarf_attr a;
	const char *ln, *mn;
	size_t i = 0;
	int r;

	c->dies++;
	if (dwarf_dieoffset(l) != d->off || (unsigned int)dwarf_tag(l) != dwarf_die__tag(d) ||
	    !!dwarf_haschildren(l) != dwarf_die__has_children(d)) {
		differ(k, l, "ours 0x%llx: offset, tag or children differ",
		       (unsigned long long)d->off);
		return;
	}
	la.n = 0;
	dwarf_getattrs(l, lattr_cb, &la, 0);
	dwarf_die__attrs(u, d, &it);
	while ((r = dwarf_attr__next(u, &it, &a)) > 0) {
		c->attrs++;
		if (i >= la.n || dwarf_whatattr(&la.a[i]) != a.name ||
		    dwarf_whatform(&la.a[i]) != a.form) {
			differ(k, l, "attribute %zu: 0x%x/0x%x, ours 0x%x/0x%x", i,
			       i < la.n ? dwarf_whatattr(&la.a[i]) : 0,
			       i < la.n ? dwarf_whatform(&la.a[i]) : 0, a.name, a.form);
			return;
		}
		check_value(k, l, &la.a[i], &a);
		check_by_name(k, l, d, &la, i++, &a);
	}
	if (r < 0 || i != la.n)
		differ(k, l, "%zu attributes, ours %zu (%d)", la.n, i, r);
	ln = dwarf_diename(l);
	mn = dwarf_die__attr_integrate(u, d, DW_AT_name, &a) > 0 ? dwarf_attr__string(u, &a) : NULL;
	if ((ln || mn) && (!ln || !mn || strcmp(ln, mn)))
		differ(k, l, "name '%s', ours '%s'", ln ? ln : "", mn ? mn : "");
	if (dwarf_tag(l) == DW_TAG_formal_parameter || dwarf_tag(l) == DW_TAG_variable)
		check_location(k, l, d);
}

static void check_tree(struct check *k, Dwarf_Die *l, struct dwarf_die *d, struct counts *c)
{
	Dwarf_Die lc;
	struct dwarf_die mc;
	int lr, mr;

	for (;;) {
		check_die(k, l, d, c);
		if (k->bad)
			return;
		lr = dwarf_child(l, &lc);
		mr = dwarf_die__child(k->u, d, &mc);
		if (lr != mr) {
			differ(k, l, "first child: %d, ours %d", lr, mr);
			return;
		}
		if (!lr)
			check_tree(k, &lc, &mc, c);
		if (k->bad)
			return;
		lr = dwarf_siblingof(l, l);
		mr = dwarf_die__sibling(k->u, d, d);
		if (lr != mr) {
			differ(k, l, "next sibling: %d, ours %d", lr, mr);
			return;
		}
		if (lr)
			return;
	}
}

static int walk_check(struct elf_file *ef, struct counts *c)
{
	Dwarf *dbg = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
	struct check k = { 0 };
	struct dwarf_scan_secs s;
	struct dwarf_unit u;
	struct dwarf_die d;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, sub;
	Dwarf_Half ver;
	uint8_t type;
	int err;

	if (!dbg)
		return -ENODATA;
	err = secs_read(ef, &s);
	dwarf_unit__init(&u, &s);
	k.u = &u;
	while (!err && !k.bad && dwarf_get_units(dbg, cu, &cu, &ver, &type, &cudie, &sub) == 0) {
		c->units++;
		err = dwarf_unit__open(&u, dwarf_dieoffset(&cudie) - dwarf_cuoffset(&cudie));
		if (!err)
			err = dwarf_unit__cudie(&u, &d);
		if (!err)
			check_tree(&k, &cudie, &d, c);
	}
	printf("check units %llu dies %llu attrs %llu values %llu differences %llu\n",
	       (unsigned long long)c->units, (unsigned long long)c->dies,
	       (unsigned long long)c->attrs, (unsigned long long)k.values,
	       (unsigned long long)k.bad);
	if (k.bad)
		fprintf(stderr, "dwarfwalk: first difference: %s\n", k.first);
	dwarf_unit__fini(&u);
	dwarf_end(dbg);
	return err ? err : k.bad ? -EDOM : 0;
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	struct elf_file ef;
	char why[256] = "";
	double t0;
	const char *mode = argc == 3 ? argv[1] : "";
	int err;

	if (strcmp(mode, "libdw") && strcmp(mode, "raw") && strcmp(mode, "die") &&
	    strcmp(mode, "check")) {
		fprintf(stderr, "usage: dwarfwalk libdw|raw|die|check FILE\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	err = elf_file__open(&ef, argv[2], why, sizeof(why));
	if (!err)
		err = elf_file__inflate_zstd(&ef);
	/* A module's unit headers point at their abbreviations through
	 * relocations: apply them in memory, as the encoder does. */
	if (!err && ef.ehdr.e_type == ET_REL) {
		err = elf_file__can_relocate(&ef) ? elf_file__make_private(&ef) : -ENOTSUP;
		if (!err)
			err = elf_file__relocate_debug(&ef);
	}
	if (err) {
		fprintf(stderr, "dwarfwalk: %s: %s\n", argv[2], why[0] ? why : strerror(-err));
		return 1;
	}
	t0 = cpu_now();
	err = !strcmp(mode, "raw") ? walk_raw(&ef, &c) : !strcmp(mode, "die") ? walk_die(&ef, &c)
	      : !strcmp(mode, "check") ? walk_check(&ef, &c) : walk_libdw(&ef, &c);
	if (err) {
		fprintf(stderr, "dwarfwalk: %s: %s walk failed after %llu units: %s\n", argv[2],
			argv[1], (unsigned long long)c.units, strerror(-err));
		elf_file__close(&ef);
		return 1;
	}
	if (!strcmp(mode, "check")) {
		elf_file__close(&ef);
		return 0;
	}
	printf("%s units %llu dies %llu attrs %llu cpu_s %.3f sum %llx\n", argv[1],
	       (unsigned long long)c.units, (unsigned long long)c.dies,
	       (unsigned long long)c.attrs, cpu_now() - t0, (unsigned long long)c.sum);
	elf_file__close(&ef);
	return 0;
}
