// SPDX-License-Identifier: GPL-2.0
/*
 * pahole's -R (--reorganize): a copy of a struct's layout whose members
 * are moved into the holes of others, printed as pahole prints it, with
 * what it saves.  The text is pahole's, byte for byte (tests/btf/show-reorg.sh
 * compares a sample of a kernel's structs with pahole 1.30's and 1.32's).
 *
 * pahole's rules, as its release build runs them:
 *
 * - The copy starts from the struct as printed (fixup and holes done), and
 *   the packing pahole had inferred for it by then: a copy whose packing is
 *   not yet inferred infers its own, from its new offsets, the first time
 *   it is printed (with --show_reorg_steps: at its first step).
 * - The bitfield algorithms (demotion, moving bits into bit holes) are
 *   compiled out of pahole's releases, and its member mover refuses a
 *   bitfield: bitfields stay where they are, with their types.
 * - Before each pass the padding is recomputed from the largest member
 *   plus its hole that fits a word; then the first member with a hole
 *   takes the next member (further down) that has a hole and fits in it,
 *   else the last member if there is padding; failing both, the last
 *   member that fits.  Each move starts the pass again.
 * - A move places the member right after the hole's owner, at an offset
 *   that keeps pahole's arithmetic: 16-bit offsets, the hole taken modulo
 *   the member's size (at most a word), the struct shrunk by a word when
 *   the member and its hole made one.  Offsets are never re-aligned.
 *
 * - pahole -V names each move; the steps (--show_reorg_steps) are printed with pahole's defaults
 *   (decimal, types not expanded), the final struct as the command asks.
 *   pahole 1.30 crashes printing the first step (fixed in 1.31): under
 *   either release's rules frugal prints the steps as 1.31 does.
 *
 * None of this is meant to be a good layout: it is pahole's, so that
 * frugal's answer can be checked against it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf/view/layout_int.h"
#include "btf/view/view.h"

/*
 * pahole starts over after every move and stops when a pass moves
 * nothing.  Where offsets pass 16 bits its moves can go round in circles,
 * the struct shrinking a word per round: a 6.x kernel's
 * saved_cmdlines_buffer (128 KB) ends after 16,388 moves, at 8 bytes;
 * pglist_data (171 KB) shrinks past zero and runs on for billions.  So
 * the moves are bounded by a few per word of the struct, and past that
 * the reorganization is taken for one that does not end.
 */
#define REORG_MOVES_PER_WORD 4
#define REORG_MIN_MOVES 10000

struct reorg {
	struct btf_layout *l;
	struct lay_type *lt;	/* the copy being reorganized */
	enum btf_reorg_verbosity verbose;
	FILE *fp;
};

/* The members after index FROM (in their order now) move SIZE bytes up. */
static void reorg__subtract_offsets(struct lay_type *lt, uint32_t from, uint16_t size)
{
	uint32_t i;

	for (i = from + 1; i < lt->nr_mem; i++) {
		lt->mem[i].byte_offset -= size;
		lt->mem[i].bit_offset -= size * 8;
	}
}

/*
 * pahole's class__move_member(): member FROM goes right after member DEST
 * (DEST < FROM); FROM_PADDING when FROM is the last member moved to cut
 * the padding.  False, with nothing done, for a bitfield.
 */
static bool reorg__move(struct reorg *r, uint32_t dest, uint32_t from, bool from_padding)
{
	struct lay_type *lt = r->lt;
	struct lay_mem moved = lt->mem[from];
	const struct lay_mem *d = &lt->mem[dest];
	size_t addr = r->l->ptr_size, from_size = moved.byte_size;
	bool from_was_last = from == lt->nr_mem - 1;
	/* pahole keeps these three in 16 bits: large structs' offsets wrap */
	uint16_t orig_tail_hole = moved.hole, orig_offset = moved.byte_offset;
	uint16_t new_offset = d->byte_offset + d->byte_size +
			      (uint16_t)((size_t)d->hole % (from_size > addr ? addr : from_size));

	if (moved.bitfield_size)
		return false;
	if (r->verbose)
		fprintf(r->fp, "/* Moving '%s' from after '%s' to after '%s' */\n",
			lay_mem__name(r->l, &moved), lay_mem__name(r->l, &lt->mem[from - 1]),
			lay_mem__name(r->l, d));
	memmove(&lt->mem[dest + 2], &lt->mem[dest + 1], (from - dest - 1) * sizeof(*lt->mem));
	moved.byte_offset = new_offset;
	moved.bit_offset = new_offset * 8 + moved.bitfield_offset;
	lt->mem[dest + 1] = moved;
	if (from_padding) {
		if (orig_offset % addr == 0)
			lt->size -= from_size + lt->padding;
		else if (r->verbose)
			fprintf(r->fp, "/* adding %zd bytes from %s to the padding */\n", from_size,
				lay_mem__name(r->l, &moved));
	} else if (from_was_last) {
		lt->size -= from_size + lt->padding;
	} else if (orig_tail_hole + from_size >= addr) {
		/* the member before FROM is now at FROM's old index */
		lt->size -= addr;
		reorg__subtract_offsets(lt, from, addr);
	}
	lay_type__find_holes(lt);
	if (r->verbose >= BTF_REORG_STEPS) {
		lay_type__print(r->l, lt, true, r->fp);
		fputc('\n', r->fp);
	}
	return true;
}

/*
 * pahole's class__find_next_hole_of_size(): the first member after FROM
 * with a hole after it and at most SIZE bytes (the head of its run of
 * bitfields when it is one); -1: none.
 */
static long next_hole_of_size(const struct lay_type *lt, uint32_t from, size_t size)
{
	long head = -1;
	uint32_t i;

	for (i = from + 1; i < lt->nr_mem; i++) {
		const struct lay_mem *m = &lt->mem[i];

		if (!m->bitfield_size)
			head = -1;
		else if (head < 0)
			head = i;
		if (m->hole && m->byte_size && m->byte_size <= size)
			return head >= 0 ? head : (long)i;
	}
	return -1;
}

/*
 * pahole's class__find_last_member_of_size(): the last member after TO of
 * at most SIZE bytes, not counting bitfields that follow another; -1: none.
 */
static long last_member_of_size(const struct lay_type *lt, uint32_t to, size_t size)
{
	uint32_t i;

	for (i = lt->nr_mem - 1; i > to; i--) {
		const struct lay_mem *m = &lt->mem[i];

		if (m->bitfield_size && m->byte_offset && lt->mem[i - 1].bitfield_size)
			continue;
		if (m->byte_size && m->byte_size <= size)
			return i;
	}
	return -1;
}

/* The padding pahole expects from the largest member and hole within a word. */
static void reorg__repad(struct reorg *r)
{
	struct lay_type *lt = r->lt;
	const struct lay_mem *last = &lt->mem[lt->nr_mem - 1];
	size_t addr = r->l->ptr_size, align = 0, modulo;
	uint16_t padding;
	uint32_t i;

	for (i = 0; i < lt->nr_mem; i++) {
		/* a negative hole (overlapping members) wraps, as in pahole */
		size_t aligned = lt->mem[i].byte_size + (size_t)lt->mem[i].hole;

		if (aligned <= addr && aligned > align)
			align = aligned;
	}
	if (!align)
		return;
	if (align > 1)
		align = (align + 1) / 2 * 2;
	modulo = ((size_t)last->byte_offset + last->byte_size) % align;
	padding = modulo ? addr - modulo : 0;
	if (padding != lt->padding) {
		lt->padding = padding;
		lt->size = last->byte_offset + last->byte_size + padding;
	}
}

/* One pass of pahole's class__reorganize(): true when a member moved. */
static bool reorg__pass(struct reorg *r)
{
	struct lay_type *lt = r->lt;
	uint32_t i, last = lt->nr_mem - 1;
	long b;

	reorg__repad(r);
	for (i = 0; i < lt->nr_mem; i++) {
		size_t hole = lt->mem[i].hole;

		if (!lt->mem[i].hole)
			continue;
		b = next_hole_of_size(lt, i, hole);
		/* the next member is left where it is: it may be aligned on purpose */
		if (b >= 0 && (uint32_t)b - 1 != i && reorg__move(r, i, b, false))
			return true;
		if (lt->padding && i != last && lt->mem[last].byte_size &&
		    lt->mem[last].byte_size <= hole && reorg__move(r, i, last, true))
			return true;
	}
	if (!lt->nr_holes)
		return false;
	for (i = 0; i < lt->nr_mem; i++) {
		if (!lt->mem[i].hole)
			continue;
		b = last_member_of_size(lt, i, (size_t)lt->mem[i].hole);
		if (b >= 0 && (uint32_t)b - 1 != i && reorg__move(r, i, b, false))
			return true;
	}
	return false;
}

/* pahole's class__clone() of struct ORIG: its state as it is, its own members. */
static struct lay_type *reorg__clone(const struct lay_type *orig)
{
	struct lay_type *lt = malloc(sizeof(*lt));

	if (!lt)
		return NULL;
	*lt = *orig;
	lt->mem = calloc(orig->nr_mem ? orig->nr_mem : 1, sizeof(*lt->mem));
	if (!lt->mem) {
		free(lt);
		return NULL;
	}
	if (orig->nr_mem)	/* a struct without members has no mem[] */
		memcpy(lt->mem, orig->mem, orig->nr_mem * sizeof(*lt->mem));
	return lt;
}

/* "saved N bytes and M cachelines!" after the reorganized struct, or a newline. */
static void print_savings(struct btf_layout *l, const struct lay_type *orig,
			  const struct lay_type *lt, FILE *fp)
{
	int savings = orig->size - lt->size;
	size_t lines;

	if (!savings) {
		fputc('\n', fp);
		return;
	}
	lines = lay_type__nr_cachelines(l, orig) - lay_type__nr_cachelines(l, lt);
	fprintf(fp, "   /* saved %d byte%s", savings, savings != 1 ? "s" : "");
	if (lines)
		fprintf(fp, " and %zu cacheline%s", lines, lines != 1 ? "s" : "");
	fputs("! */\n", fp);
}

/* Reorganize a copy of ORIG into *OUT (the caller frees it); -ELOOP: it would not end. */
static int reorg__run(struct btf_layout *l, const struct lay_type *orig,
		      enum btf_reorg_verbosity verbose, FILE *fp, struct lay_type **out)
{
	struct reorg r = { .l = l, .verbose = verbose, .fp = fp };
	uint64_t moves = 0, max = REORG_MIN_MOVES +
				  (uint64_t)orig->size / l->ptr_size * REORG_MOVES_PER_WORD;

	*out = NULL;
	r.lt = reorg__clone(orig);
	if (!r.lt)
		return -ENOMEM;
	while (r.lt->nr_mem && reorg__pass(&r)) {
		if (++moves > max) {
			free(r.lt->mem);
			free(r.lt);
			return -ELOOP;
		}
	}
	*out = r.lt;
	return 0;
}

int btf_layout__reorg(struct btf_layout *l, uint32_t id, enum btf_reorg_verbosity verbose,
		      FILE *fp)
{
	const struct btf_type *t = id < l->nr_types ? btf__type_by_id(l->btf, id) : NULL;
	struct lay_type *orig, *lt = NULL;
	int err;

	if (!t || !btf_is_struct(t))
		return -EINVAL;
	orig = lay_holes(l, id);
	if (!orig)
		return l->err ? l->err : -ENOMEM;
	/* moves print nothing and change no shared state: a dry run first, so a
	 * reorganization that does not end prints nothing at all */
	err = reorg__run(l, orig, BTF_REORG_QUIET, NULL, &lt);
	if (err || !fp)
		goto out;
	if (verbose) {
		free(lt->mem);
		free(lt);
		err = reorg__run(l, orig, verbose, fp, &lt);
		if (err)
			goto out;
		if (orig->size != lt->size)
			fputs(verbose >= BTF_REORG_STEPS ? "\n/* Final reorganized struct: */\n" : "\n",
			      fp);
	}
	lay_type__print(l, lt, false, fp);
	fputc(';', fp);
	print_savings(l, orig, lt, fp);
	err = l->err;
out:
	if (lt)
		free(lt->mem);
	free(lt);
	return err;
}
