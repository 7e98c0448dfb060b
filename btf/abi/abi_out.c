// SPDX-License-Identifier: GPL-2.0
/*
 * `frugal btf abi`'s report: a summary line, the symbols not the same
 * (with their paths), then each changed type once with its changes and
 * the symbols that reach it.  Text, or one JSON object with the same
 * content and totals.
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

	count(abi, &t);
	printf("%zu symbols: %zu added, %zu removed, %zu changed, %zu incompatible; "
	       "%zu types changed", t.compared, t.added, t.removed, t.changed, t.incompat,
	       t.types);
	if (abi->supp_given)
		printf("; suppressed: %zu symbols, %zu types", abi->supp_syms, abi->supp_types);
	print_limits(&t);
	putchar('\n');
	for (i = 0; i < abi->nsyms; i++) {
		s = &abi->syms[i];
		if (s->status == ABI_SYM_SAME)
			continue;
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
	json__u64_field(&w, "suppressed_symbols", abi->supp_syms);
	json__u64_field(&w, "suppressed_types", abi->supp_types);
	json__key(&w, "not_compared");
	json__obj_begin(&w);
	for (i = 0; i < ABI_KIND_CNT; i++)
		json__u64_field(&w, abi_kind_keys[i], t.uncompared[i]);
	json__obj_end(&w);
	json__u64_field(&w, "picked_by_type", t.guessed);
	json__obj_end(&w);
	json__obj_end(&w);
	putchar('\n');
}
