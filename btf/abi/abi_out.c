// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi`'s report: a summary line, the causes (btf/abi/abi_cause.c),
 * the symbols not the same (with their paths), then each changed type once
 * with its changes and the symbols that reach it.  Text, or one JSON
 * object with the same content and totals.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btf/abi/abi_int.h"
#include "btf/abi/abi_syms_int.h"
#include "lib/json.h"

struct totals {
	size_t compared, added, removed, changed, incompat, types;
	size_t own, followers, causes_incompat;	/* symbols changed in their own type */
	size_t uncompared[ABI_KIND_CNT], nuncompared, guessed;
};

static void count(const struct abi *abi, struct totals *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->compared = abi->nsyms;
	for (i = 0; i < abi->nsyms; i++) {
		t->added += abi->syms[i].status == ABI_SYM_ADDED;
		t->removed += abi->syms[i].status == ABI_SYM_REMOVED;
		t->changed += abi->syms[i].status == ABI_SYM_CHANGED;
		t->incompat += abi->syms[i].incompat;
		t->guessed += abi->syms[i].guessed;
		if (abi->syms[i].uncompared && abi->syms[i].kind < ABI_KIND_CNT) {
			t->uncompared[abi->syms[i].kind]++;
			t->nuncompared++;
		}
	}
	for (i = 0; i < abi->nn; i++)
		t->types += !abi->nodes[i].is_sym && abi->nodes[i].nchanges;
	for (i = 0; i < abi->nsyms; i++)
		t->own += abi->syms[i].status == ABI_SYM_CHANGED && abi->syms[i].compared &&
			  abi->nodes[abi->syms[i].node].nchanges;
	for (i = 0; i < abi->ncauses; i++) {
		t->followers += abi->causes[i].nmoves;
		t->causes_incompat += abi->causes[i].incompat;
	}
}

/*
 * Symbols named after a changed type in the text: a core struct reaches
 * thousands (struct sock: 5,070 of 6.1 -> 6.12's), one 60 KB line.
 */
#define ABI_TEXT_SYMS 8

static const struct abi *sort_abi;	/* qsort has no context argument */

static int cmp_type(const void *x, const void *y)
{
	const struct abi_node *a = &sort_abi->nodes[*(const uint32_t *)x];
	const struct abi_node *b = &sort_abi->nodes[*(const uint32_t *)y];
	int c = strcmp(a->name, b->name);

	return c ? c : (a->id[0] > b->id[0]) - (a->id[0] < b->id[0]);
}

/* The changed types, sorted by name; NULL when none (or no memory: *N is 0 then). */
static uint32_t *changed_types(const struct abi *abi, size_t *n)
{
	uint32_t *v = malloc((abi->nn ? abi->nn : 1) * sizeof(*v));
	size_t i;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < abi->nn; i++)
		if (!abi->nodes[i].is_sym && abi->nodes[i].nchanges)
			v[(*n)++] = (uint32_t)i;
	sort_abi = abi;
	qsort(v, *n, sizeof(*v), cmp_type);
	return v;
}

static const char *const status_word[] = {
	[ABI_SYM_SAME] = "same", [ABI_SYM_ADDED] = "added",
	[ABI_SYM_REMOVED] = "removed", [ABI_SYM_CHANGED] = "changed",
};

/*
 * What the summary could not check, said rather than left out: symbols
 * on both sides that one side's BTF does not describe, by kind ("not
 * compared, no BTF: 505 variables, 239 functions"), and those of several
 * FUNCs of one name told apart by type alone (BTF has no addresses).
 */
static void print_limits(const struct totals *t)
{
	static const enum abi_kind order[] = { ABI_KIND_FUNC, ABI_KIND_VAR, ABI_KIND_PERCPU,
					       ABI_KIND_UNKNOWN };
	const char *sep = "; not compared, no BTF: ";
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!t->uncompared[order[i]])
			continue;
		printf("%s%zu %s", sep, t->uncompared[order[i]],
		       abi_kind_words[order[i]][t->uncompared[order[i]] != 1]);
		sep = ", ";
	}
	if (t->guessed)
		printf("; %zu of several functions of one name, picked by type (no DWARF address)",
		       t->guessed);
}

/*
 * Changes printed under a cause: struct ib_device_ops's two members added
 * come with 78 offsets moved; the offsets come last, the rest is under
 * "types changed".
 */
#define ABI_CAUSE_CHANGES 8

/* A cause's name: its object's when it is in one only. */
static const char *cause_name(const struct abi *abi, const struct abi_cause *c)
{
	const struct abi_node *n = &abi->nodes[c->node];

	return c->nobjects > 1 ? n->name + n->bare : n->name;
}

static void print_cause_changes(const struct abi *abi, const struct abi_node *n)
{
	unsigned int shown = 0, pass;
	int32_t c;
	bool offset;

	for (pass = 0; pass < 2; pass++)
		for (c = n->ch_head; c >= 0; c = abi->ch[c].next) {
			offset = abi->ch[c].kind == ABI_CH_MEMBER_OFFSET;
			if (offset != (pass == 1) || shown++ >= ABI_CAUSE_CHANGES)
				continue;
			printf("    %s: %s\n", abi_rules[abi->ch[c].kind].incompat ?
			       "incompatible" : "compatible", abi->ch[c].text);
		}
	if (shown > ABI_CAUSE_CHANGES)
		printf("    ... and %u more (types changed, below)\n", shown - ABI_CAUSE_CHANGES);
}

static void print_causes(const struct abi *abi, const struct totals *t)
{
	const struct abi_cause *c;
	const struct abi_node *p;
	size_t i, k;

	if (!abi->ncauses)
		return;
	printf("\nby cause: %zu type%s changed (%zu incompatible)", abi->ncauses,
	       abi->ncauses == 1 ? "" : "s", t->causes_incompat);
	if (t->followers)
		printf(", %zu more only follow%s a type %s embed%s", t->followers,
		       t->followers == 1 ? "s" : "", t->followers == 1 ? "it" : "they",
		       t->followers == 1 ? "s" : "");
	if (t->own)
		printf("; %zu symbol%s changed in %s own type", t->own, t->own == 1 ? "" : "s",
		       t->own == 1 ? "its" : "their");
	putchar('\n');
	for (i = 0; i < abi->ncauses; i++) {
		c = &abi->causes[i];
		printf("* %s (%s", cause_name(abi, c), c->incompat ? "incompatible" : "compatible");
		if (c->nobjects > 1)
			printf(", in %zu objects", c->nobjects);
		printf("), reached by %zu symbol%s", c->nsyms, c->nsyms == 1 ? "" : "s");
		for (k = 0; k < c->nfirst; k++)
			printf("%s %s", k ? "," : ":", c->first[k]);
		if (c->nsyms > c->nfirst)
			printf(" and %zu more", c->nsyms - c->nfirst);
		putchar('\n');
		print_cause_changes(abi, &abi->nodes[c->node]);
		p = &abi->nodes[c->path_node];
		if (p->path)
			printf("    path: %s: %s\n", abi->syms[p->path_sym].name, p->path);
		for (k = 0; k < c->nmoves; k++)
			printf("%s%s", k ? ", " : "    only follow it: ", c->moves[k]);
		if (c->nmoves)
			putchar('\n');
	}
}

/*
 * A Module.symvers of a kernel built without CONFIG_MODVERSIONS (Debian's
 * 7.x) has every CRC 0: genksyms made none, so this report is the only
 * kABI check there is.  Said under the summary, the check runs as usual.
 */
static void print_no_crcs(const struct abi *abi)
{
	static const char *const which[] = { "", "OLD's", "NEW's", "both" };
	unsigned int k = abi->no_crcs[0] | abi->no_crcs[1] << 1;

	if (k)
		printf("no symbol CRCs to compare with: every CRC in %s Module.symvers is 0 "
		       "(CONFIG_MODVERSIONS off)\n", which[k]);
}

/*
 * Which model the paths followed, said when it is the DWARF one: each
 * export's types as its own unit defines them (genksyms' view), not every
 * pointer through the one BTF.
 */
static void print_model(const struct abi *abi)
{
	if (abi->units_model)
		printf("model: each export's types as its unit's headers define them (DWARF, genksyms' "
		       "view); its unit found for %zu of %zu symbols\n",
		       abi->units_found, abi->units_syms);
}

void abi__print_text(const struct abi *abi)
{
	static const char sign[] = { [ABI_SYM_SAME] = ' ', [ABI_SYM_ADDED] = '+',
				     [ABI_SYM_REMOVED] = '-', [ABI_SYM_CHANGED] = '~' };
	const struct abi_sym *s;
	const struct abi_node *n;
	struct totals t;
	uint32_t *types;
	size_t i, k, nt;
	int32_t c;
	int heading = 0;

	count(abi, &t);
	printf("%zu symbols: %zu added, %zu removed, %zu changed, %zu incompatible; "
	       "%zu types changed", t.compared, t.added, t.removed, t.changed, t.incompat,
	       t.types);
	if (abi->supp_given)
		printf("; suppressed: %zu symbols, %zu types", abi->supp_syms, abi->supp_types);
	print_limits(&t);
	putchar('\n');
	print_no_crcs(abi);
	print_model(abi);
	print_causes(abi, &t);
	for (i = 0; i < abi->nsyms; i++) {
		s = &abi->syms[i];
		if (s->status == ABI_SYM_SAME)
			continue;
		if (abi->ncauses && !heading++)
			printf("\nby symbol:\n");
		printf("%c %s (%s%s)\n", sign[s->status], s->name, status_word[s->status],
		       s->incompat ? ", incompatible" : "");
		for (k = 0; k < s->npaths; k++)
			printf("    %s\n", s->paths[k]);
	}
	types = changed_types(abi, &nt);
	if (nt)
		printf("\ntypes changed:\n");
	for (i = 0; i < nt; i++) {
		n = &abi->nodes[types[i]];
		printf("~ %s (%s), reached by %zu symbol%s:", n->name,
		       n->incompat ? "incompatible" : "compatible", n->nsyms, n->nsyms == 1 ? "" : "s");
		for (k = 0; k < n->nsyms && k < ABI_TEXT_SYMS; k++)
			printf("%s %s", k ? "," : "", abi->syms[n->syms[k]].name);
		if (n->nsyms > ABI_TEXT_SYMS)
			printf(" and %zu more (--json lists all)", n->nsyms - ABI_TEXT_SYMS);
		putchar('\n');
		for (c = n->ch_head; c >= 0; c = abi->ch[c].next)
			printf("    %s: %s\n", abi_rules[abi->ch[c].kind].incompat ?
			       "incompatible" : "compatible", abi->ch[c].text);
	}
	free(types);
}

static void json_sym(struct json_writer *w, const struct abi_sym *s)
{
	size_t k;

	json__obj_begin(w);
	json__str_field(w, "name", s->name);
	json__str_field(w, "status", status_word[s->status]);
	json__bool_field(w, "incompatible", s->incompat);
	json__key(w, "paths");
	json__arr_begin(w);
	for (k = 0; k < s->npaths; k++)
		json__str(w, s->paths[k]);
	json__arr_end(w);
	json__obj_end(w);
}

static void json_type(struct json_writer *w, const struct abi *abi, const struct abi_node *n)
{
	size_t k;
	int32_t c;

	json__obj_begin(w);
	json__str_field(w, "name", n->name);
	json__bool_field(w, "incompatible", n->incompat);
	json__key(w, "changes");
	json__arr_begin(w);
	for (c = n->ch_head; c >= 0; c = abi->ch[c].next) {
		json__obj_begin(w);
		json__str_field(w, "change", abi->ch[c].text);
		json__bool_field(w, "incompatible", abi_rules[abi->ch[c].kind].incompat);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__key(w, "symbols");
	json__arr_begin(w);
	for (k = 0; k < n->nsyms; k++)
		json__str(w, abi->syms[n->syms[k]].name);
	json__arr_end(w);
	json__obj_end(w);
}

static void json_cause(struct json_writer *w, const struct abi *abi, const struct abi_cause *c)
{
	const struct abi_node *n = &abi->nodes[c->node], *p = &abi->nodes[c->path_node];
	size_t k;
	int32_t ch;

	json__obj_begin(w);
	json__str_field(w, "name", cause_name(abi, c));
	json__u64_field(w, "objects", c->nobjects);
	json__bool_field(w, "incompatible", c->incompat);
	json__key(w, "changes");
	json__arr_begin(w);
	for (ch = n->ch_head; ch >= 0; ch = abi->ch[ch].next) {
		json__obj_begin(w);
		json__str_field(w, "change", abi->ch[ch].text);
		json__bool_field(w, "incompatible", abi_rules[abi->ch[ch].kind].incompat);
		json__obj_end(w);
	}
	json__arr_end(w);
	json__u64_field(w, "reached", c->nsyms);
	json__key(w, "first_symbols");
	json__arr_begin(w);
	for (k = 0; k < c->nfirst; k++)
		json__str(w, c->first[k]);
	json__arr_end(w);
	json__key(w, "path");
	if (p->path) {
		json__obj_begin(w);
		json__str_field(w, "symbol", abi->syms[p->path_sym].name);
		json__str_field(w, "path", p->path);
		json__obj_end(w);
	} else {
		json__null(w);
	}
	json__key(w, "followers");
	json__arr_begin(w);
	for (k = 0; k < c->nmoves; k++)
		json__str(w, c->moves[k]);
	json__arr_end(w);
	json__obj_end(w);
}

void abi__print_json(const struct abi *abi, const char *old, const char *new_path)
{
	struct json_writer w;
	struct totals t;
	uint32_t *types;
	size_t i, nt;

	count(abi, &t);
	json__init(&w, stdout);
	json__obj_begin(&w);
	json__str_field(&w, "old", old);
	json__str_field(&w, "new", new_path);
	/* "units": each export's types as its unit's DWARF defines them; "btf": every pointer. */
	json__str_field(&w, "model", abi->units_model ? "units" : "btf");
	json__key(&w, "causes");
	json__arr_begin(&w);
	for (i = 0; i < abi->ncauses; i++) {
		json__nl(&w);
		json_cause(&w, abi, &abi->causes[i]);
	}
	json__arr_end(&w);
	json__key(&w, "symbols");
	json__arr_begin(&w);	/* each symbol and each type on a line */
	for (i = 0; i < abi->nsyms; i++) {
		if (abi->syms[i].status == ABI_SYM_SAME)
			continue;
		json__nl(&w);
		json_sym(&w, &abi->syms[i]);
	}
	json__arr_end(&w);
	json__key(&w, "not_compared");
	json__arr_begin(&w);	/* on both sides, one side's BTF without it */
	for (i = 0; i < abi->nsyms; i++) {
		if (!abi->syms[i].uncompared)
			continue;
		json__obj_begin(&w);
		json__str_field(&w, "name", abi->syms[i].name);
		json__str_field(&w, "kind", abi_kind_keys[abi->syms[i].kind]);
		json__obj_end(&w);
	}
	json__arr_end(&w);
	json__key(&w, "types");
	json__arr_begin(&w);
	types = changed_types(abi, &nt);
	for (i = 0; i < nt; i++) {
		json__nl(&w);
		json_type(&w, abi, &abi->nodes[types[i]]);
	}
	free(types);
	json__arr_end(&w);
	json__key(&w, "totals");
	json__obj_begin(&w);
	json__u64_field(&w, "symbols", t.compared);
	json__u64_field(&w, "added", t.added);
	json__u64_field(&w, "removed", t.removed);
	json__u64_field(&w, "changed", t.changed);
	json__u64_field(&w, "incompatible", t.incompat);
	json__u64_field(&w, "types_changed", t.types);
	json__u64_field(&w, "causes", abi->ncauses);
	json__u64_field(&w, "suppressed_symbols", abi->supp_syms);
	json__u64_field(&w, "suppressed_types", abi->supp_types);
	json__key(&w, "not_compared");
	json__obj_begin(&w);
	for (i = 0; i < ABI_KIND_CNT; i++)
		json__u64_field(&w, abi_kind_keys[i], t.uncompared[i]);
	json__obj_end(&w);
	json__u64_field(&w, "picked_by_type", t.guessed);
	json__u64_field(&w, "units_found", abi->units_found);
	json__key(&w, "no_crcs");	/* the sides whose Module.symvers has every CRC 0 */
	json__arr_begin(&w);
	for (i = 0; i < 2; i++)
		if (abi->no_crcs[i])
			json__str(&w, i ? "new" : "old");
	json__arr_end(&w);
	json__obj_end(&w);
	json__obj_end(&w);
	putchar('\n');
}
