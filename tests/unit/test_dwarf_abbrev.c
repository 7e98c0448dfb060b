// SPDX-License-Identifier: GPL-2.0
/*
 * lib/dwarf_abbrev: a hand-made table decoded, the value sizes and places
 * in 32- and 64-bit units, and the tables it must refuse.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdint.h>

#include "lib/dwarf_abbrev.h"
#include "tests/test.h"

static const uint8_t table[] = {
	/* 1: compile unit, children: name strp, language data1 */
	0x01, DW_TAG_compile_unit, 1, DW_AT_name, DW_FORM_strp, DW_AT_language, DW_FORM_data1, 0, 0,
	/* 2: member: name string, type ref4, data_member_location data1 */
	0x02, DW_TAG_member, 0, DW_AT_name, DW_FORM_string, DW_AT_type, DW_FORM_ref4,
	DW_AT_data_member_location, DW_FORM_data1, 0, 0,
	/* 3: struct, children: sibling ref4, byte_size implicit_const -3 */
	0x03, DW_TAG_structure_type, 1, DW_AT_sibling, DW_FORM_ref4,
	DW_AT_byte_size, DW_FORM_implicit_const, 0x7d, 0, 0,
	0,
};

static void test_decode(void)
{
	struct dwarf_abbrevs t = { 0 };
	const struct dwarf_abbrev *a;
	const struct dwarf_spec *sp;

	TEST_BEGIN("dwarf-abbrev-decode");
	CHECK_EQ(dwarf_abbrevs__read(&t, table, sizeof(table), 0, 5, 4, 8), 0);
	CHECK_EQ(t.ncodes, 4);
	CHECK(!t.byc[0].known && t.byc[1].known && t.byc[2].known && t.byc[3].known, "codes");
	a = &t.byc[1];
	sp = t.specs + a->first;
	CHECK(a->tag == DW_TAG_compile_unit && a->children && a->n == 2, "code 1");
	CHECK(a->fixed == 5 && a->sib == -1 && a->var0 == 2, "fixed %d sib %d var0 %u",
	      a->fixed, a->sib, a->var0);
	CHECK(sp[0].name == DW_AT_name && sp[0].size == 4 && sp[0].at == 0 && sp[0].back == 5,
	      "strp spec");
	CHECK(sp[1].size == 1 && sp[1].at == 4 && sp[1].back == 1, "data1 spec");
	a = &t.byc[2];
	sp = t.specs + a->first;
	CHECK(!a->children && a->n == 3 && a->fixed == -1 && a->var0 == 0, "code 2");
	CHECK(sp[0].size == -1 && sp[0].at == 0 && sp[0].back == -1, "string spec");
	CHECK(sp[1].size == 4 && sp[1].at == -1 && sp[1].back == 5, "ref4 after a string");
	CHECK(sp[2].size == 1 && sp[2].back == 1, "data1 last");
	a = &t.byc[3];
	sp = t.specs + a->first;
	CHECK(a->sib == 0 && a->sib_form == DW_FORM_ref4 && a->fixed == 4, "code 3");
	CHECK(sp[1].implicit == -3 && sp[1].size == 0, "implicit_const %lld",
	      (long long)sp[1].implicit);
	/* the same table in a 64-bit unit: strp is 8 bytes */
	CHECK_EQ(dwarf_abbrevs__read(&t, table, sizeof(table), 0, 5, 8, 8), 0);
	CHECK_EQ(t.byc[1].fixed, 9);
	/* from the second table on (offset 9: code 2 onwards), code 1 is gone */
	CHECK_EQ(dwarf_abbrevs__read(&t, table, sizeof(table), 9, 4, 4, 8), 0);
	CHECK(!t.byc[1].known && t.byc[2].known && t.byc[3].known, "reread empties");
	dwarf_abbrevs__free(&t);
	CHECK(!t.byc && !t.specs && !t.ncodes, "free empties");
	dwarf_abbrevs__free(NULL);
	TEST_END();
}

static void test_refused(void)
{
	static const uint8_t twice[] = { 1, DW_TAG_base_type, 0, 0, 0, 1, DW_TAG_base_type, 0, 0, 0, 0 };
	static const uint8_t cut[] = { 1, DW_TAG_base_type, 0, DW_AT_name };
	/* a name over 16 bits: 0x80 0x80 0x04 is 65536 */
	static const uint8_t wide[] = { 1, DW_TAG_base_type, 0, 0x80, 0x80, 0x04, DW_FORM_data1,
					0, 0, 0 };
	struct dwarf_abbrevs t = { 0 };

	TEST_BEGIN("dwarf-abbrev-refused");
	CHECK_EQ(dwarf_abbrevs__read(&t, twice, sizeof(twice), 0, 5, 4, 8), -EINVAL);
	CHECK_EQ(dwarf_abbrevs__read(&t, cut, sizeof(cut), 0, 5, 4, 8), -EINVAL);
	CHECK_EQ(dwarf_abbrevs__read(&t, wide, sizeof(wide), 0, 5, 4, 8), -EINVAL);
	CHECK_EQ(dwarf_abbrevs__read(&t, table, sizeof(table), sizeof(table), 5, 4, 8), -EINVAL);
	CHECK_EQ(dwarf_abbrevs__read(&t, NULL, 0, 0, 5, 4, 8), -EINVAL);
	/* after a refusal, a good table reads as ever */
	CHECK_EQ(dwarf_abbrevs__read(&t, table, sizeof(table), 0, 5, 4, 8), 0);
	CHECK_EQ(t.byc[1].fixed, 5);
	dwarf_abbrevs__free(&t);
	TEST_END();
}

int main(void)
{
	test_decode();
	test_refused();
	TEST_EXIT();
}
