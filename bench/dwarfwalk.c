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
 * which the encoder uses to learn a module's names (btf/encode_base.c).
 *
 *   dwarfwalk libdw|raw FILE
 *
 * bench/btf.sh runs both on the 6.12 vmlinux beside the encoder's own
 * figures.  Both read every value (summed into a checksum that is
 * printed, so the compiler cannot drop the reads).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	struct elf_file ef;
	char why[256] = "";
	double t0;
	int err, raw;

	if (argc != 3 || (strcmp(argv[1], "libdw") && strcmp(argv[1], "raw"))) {
		fprintf(stderr, "usage: dwarfwalk libdw|raw FILE\n");
		return 2;
	}
	raw = !strcmp(argv[1], "raw");
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
	err = raw ? walk_raw(&ef, &c) : walk_libdw(&ef, &c);
	if (err) {
		fprintf(stderr, "dwarfwalk: %s: %s walk failed after %llu units: %s\n", argv[2],
			argv[1], (unsigned long long)c.units, strerror(-err));
		elf_file__close(&ef);
		return 1;
	}
	printf("%s units %llu dies %llu attrs %llu cpu_s %.3f sum %llx\n", argv[1],
	       (unsigned long long)c.units, (unsigned long long)c.dies,
	       (unsigned long long)c.attrs, cpu_now() - t0, (unsigned long long)c.sum);
	elf_file__close(&ef);
	return 0;
}
