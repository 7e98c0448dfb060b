// SPDX-License-Identifier: GPL-2.0
/* The JSON writer: see json.h for the escaping and why. */
#include <inttypes.h>
#include <math.h>

#include "lib/json.h"
#include "lib/utf8.h"

void json_put_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t cp;
	int n;

	fputc('"', f);
	for (; *s; s += n ? n : 1) {
		n = utf8_dec(s, &cp);
		if (!n)
			fputs("\\ufffd", f);
		else if (cp == '"' || cp == '\\')
			fprintf(f, "\\%c", (char)cp);
		else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			fprintf(f, "\\u%04" PRIx32, cp);
		else
			fwrite(s, 1, n, f);
	}
	fputc('"', f);
}

void json__init(struct json_writer *w, FILE *f)
{
	w->f = f;
	w->depth = 0;
	w->first = true;
	w->named = false;
	w->nl = false;
}

void json__nl(struct json_writer *w)
{
	w->nl = true;
}

/* Before a member's name or a value: its comma and newline, if any. */
static void sep(struct json_writer *w)
{
	if (w->named) {		/* a member's value: right after its name */
		w->named = false;
		return;
	}
	if (w->depth && !w->first)
		fputc(',', w->f);
	if (w->nl)
		fputc('\n', w->f);
	w->nl = false;
	w->first = false;
}

static void begin(struct json_writer *w, char c)
{
	sep(w);
	fputc(c, w->f);
	w->depth++;
	w->first = true;
}

static void end(struct json_writer *w, char c)
{
	if (w->depth)
		w->depth--;
	fputc(c, w->f);
	w->first = false;	/* its parent has a member or element now */
	w->named = false;
	w->nl = false;
}

void json__obj_begin(struct json_writer *w)
{
	begin(w, '{');
}

void json__obj_end(struct json_writer *w)
{
	end(w, '}');
}

void json__arr_begin(struct json_writer *w)
{
	begin(w, '[');
}

void json__arr_end(struct json_writer *w)
{
	end(w, ']');
}

void json__key(struct json_writer *w, const char *name)
{
	sep(w);
	json_put_str(w->f, name);
	fputc(':', w->f);
	w->named = true;
}

void json__str(struct json_writer *w, const char *s)
{
	sep(w);
	json_put_str(w->f, s);
}

void json__u64(struct json_writer *w, uint64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRIu64, v);
}

void json__i64(struct json_writer *w, int64_t v)
{
	sep(w);
	fprintf(w->f, "%" PRId64, v);
}

void json__bool(struct json_writer *w, bool v)
{
	sep(w);
	fputs(v ? "true" : "false", w->f);
}

void json__null(struct json_writer *w)
{
	sep(w);
	fputs("null", w->f);
}

void json__fixed(struct json_writer *w, double v, int decimals)
{
	sep(w);
	if (isfinite(v))
		fprintf(w->f, "%.*f", decimals, v);
	else
		fputs("null", w->f);
}

void json__str_field(struct json_writer *w, const char *name, const char *s)
{
	json__key(w, name);
	json__str(w, s);
}

void json__u64_field(struct json_writer *w, const char *name, uint64_t v)
{
	json__key(w, name);
	json__u64(w, v);
}

void json__i64_field(struct json_writer *w, const char *name, int64_t v)
{
	json__key(w, name);
	json__i64(w, v);
}

void json__bool_field(struct json_writer *w, const char *name, bool v)
{
	json__key(w, name);
	json__bool(w, v);
}

void json__fixed_field(struct json_writer *w, const char *name, double v, int decimals)
{
	json__key(w, name);
	json__fixed(w, v, decimals);
}
