/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer: every --json of the tree (frugal lock's report,
 * btf abi's) writes through it, so escaping, commas and UTF-8 are decided
 * here once and a name reads the same in each.
 *
 * Strings (values and member names alike) are bytes in, UTF-8 out:
 *
 *  - a valid UTF-8 sequence is written as it is ("café-日本" stays so;
 *    RFC 8259 lets any character but '"', '\' and the controls stand);
 *  - '"' and '\' as \" and \\;
 *  - each control character, C0 (U+0000-001F), DEL (U+007F) and C1
 *    (U+0080-009F, written in UTF-8 as C2 80-C2 9F), as \u00xx, lowercase
 *    hex, as the writers this replaced wrote them: one form for all, never
 *    raw (a newline or an escape sequence in a task's name must not reach
 *    a terminal or a line-oriented reader through `jq -r`), and no short
 *    forms (\n, \t) beside it, so a grep finds a control one way;
 *  - each byte that does not start a valid UTF-8 sequence (a continuation
 *    byte alone, an overlong form, a surrogate, a code point past U+10FFFF,
 *    a sequence cut short, as the kernel cuts a comm at 15 bytes) as
 *    \ufffd, one per byte.  JSON text is UTF-8 (RFC 8259, 8.1) and a
 *    string holds characters, not bytes: written raw such a byte makes the
 *    document invalid for strict parsers, and written as \u00xx it would
 *    read back as a different, valid character (the Latin-1 reading that
 *    turned "café" into "cafÃ©").  U+FFFD is the character a decoder puts
 *    where it found no character, so a reader sees where the name held a
 *    byte it could not say; the byte itself is lost (CSV keeps it).
 *
 *  - Nothing else is escaped: '/', '<' and '>' stand (this is not HTML).
 *
 * Commas and nesting: the writer puts the comma before each member or
 * element after the first of its object or array, and none after a
 * member's name; the caller only opens, names, writes and closes.  Layout
 * is the caller's: json__nl() starts the next member or element on a new
 * line (after its comma), and nothing else writes white space, so one
 * object a line (JSON Lines) is the default.  A value at the top level
 * needs no comma: each of several is a document of its own.
 *
 *	struct json_writer w;
 *
 *	json__init(&w, stdout);
 *	json__obj_begin(&w);
 *	json__str_field(&w, "name", name);
 *	json__key(&w, "rows");
 *	json__arr_begin(&w);
 *	for (i = 0; i < n; i++) {
 *		json__nl(&w);			// each row on its own line
 *		json__obj_begin(&w);
 *		json__u64_field(&w, "count", rows[i].count);
 *		json__obj_end(&w);
 *	}
 *	json__arr_end(&w);
 *	json__obj_end(&w);
 *	fputc('\n', stdout);
 *
 * Writes go to the caller's FILE; its error flag (ferror) is the only
 * failure.  No allocation: the state is the struct, on the caller's side.
 */
#ifndef FRUGAL_JSON_H
#define FRUGAL_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json_writer {
	FILE *f;
	unsigned int depth;	/* objects and arrays open */
	bool first;		/* nothing written yet in the innermost one */
	bool named;		/* a member's name written, its value next */
	bool nl;		/* a newline before the next member or element */
};

void json__init(struct json_writer *w, FILE *f);

/* The next member or element begins a line (after its comma). */
void json__nl(struct json_writer *w);

void json__obj_begin(struct json_writer *w);
void json__obj_end(struct json_writer *w);
void json__arr_begin(struct json_writer *w);
void json__arr_end(struct json_writer *w);

/* A member's name, in an object; its value is written next. */
void json__key(struct json_writer *w, const char *name);

/* Values: an element of an array, a member's value after json__key, or a
 * document at the top level. */
void json__str(struct json_writer *w, const char *s);
void json__u64(struct json_writer *w, uint64_t v);
void json__i64(struct json_writer *w, int64_t v);
void json__bool(struct json_writer *w, bool v);
void json__null(struct json_writer *w);
/* V with DECIMALS digits after the point (printf's %.*f); null if not finite. */
void json__fixed(struct json_writer *w, double v, int decimals);

/* A member: its name and its value. */
void json__str_field(struct json_writer *w, const char *name, const char *s);
void json__u64_field(struct json_writer *w, const char *name, uint64_t v);
void json__i64_field(struct json_writer *w, const char *name, int64_t v);
void json__bool_field(struct json_writer *w, const char *name, bool v);
void json__fixed_field(struct json_writer *w, const char *name, double v, int decimals);

/* S as a JSON string, quotes included, to F (the escaping above). */
void json_put_str(FILE *f, const char *s);

#endif
