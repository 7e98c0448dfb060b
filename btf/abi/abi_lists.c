// SPDX-License-Identifier: GPL-2.0
/*
 * The text files of `frugal btf abi`: --symbols, --symvers and
 * --suppressions (btf/abi/abi_lists_int.h).  Lines are cut from a buffer with
 * its length, so a file with a NUL in it or no final newline is read as
 * the same lines a text editor shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "btf/abi/abi_lists_int.h"
#include "lib/array.h"
#include "lib/io.h"

/* Lists are small (Module.symvers of 6.1: 1.3 MB); a bigger file is a mistake. */
#define ABI_LIST_MAX (256u << 20)

int abi_list__read_file(const char *path, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	char *b = NULL;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = fstat(fd, &st) ? -errno : 0;
	if (!err && !S_ISREG(st.st_mode))
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	if (!err && (unsigned long long)st.st_size > ABI_LIST_MAX)
		err = -EFBIG;
	if (!err && !(b = malloc((size_t)st.st_size + 1)))
		err = -ENOMEM;
	if (!err) {
		n = io__read_full(fd, b, (size_t)st.st_size);
		if (n < 0)
			err = (int)n;
		else
			*len = (size_t)n;
	}
	close(fd);
	if (err) {
		free(b);
		return err;
	}
	b[*len] = 0;
	*buf = b;
	return 0;
}

struct cursor {
	const char *p, *end;
	unsigned int line;
};

/* The next line, without its newline (and a CR before it): false at the end. */
static bool next_line(struct cursor *c, const char **s, size_t *n)
{
	const char *nl;

	if (c->p >= c->end)
		return false;
	nl = memchr(c->p, '\n', (size_t)(c->end - c->p));
	*s = c->p;
	*n = (size_t)((nl ? nl : c->end) - c->p);
	c->p = nl ? nl + 1 : c->end;
	if (*n && (*s)[*n - 1] == '\r')
		(*n)--;
	c->line++;
	return true;
}

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Blanks cut from both ends of [*S, *S + *N). */
static void trim(const char **s, size_t *n)
{
	while (*n && blank(**s))
		(*s)++, (*n)--;
	while (*n && blank((*s)[*n - 1]))
		(*n)--;
}

int abi_list__names(const char *buf, size_t len, abi_name_fn fn, void *ctx)
{
	struct cursor c = { buf, buf + len, 0 };
	const char *s, *hash;
	size_t n;
	int err = 0;

	while (!err && next_line(&c, &s, &n)) {
		hash = memchr(s, '#', n);
		if (hash)
			n = (size_t)(hash - s);
		trim(&s, &n);
		if (n && !memchr(s, 0, n))
			err = fn(ctx, s, n);
	}
	return err;
}

static int set_why(char *why, size_t whylen, unsigned int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int set_why(char *why, size_t whylen, unsigned int line, const char *fmt, ...)
{
	size_t n;
	va_list ap;
	int k;

	k = snprintf(why, whylen, "%u: ", line);
	n = k < 0 ? 0 : (size_t)k < whylen ? (size_t)k : whylen;
	va_start(ap, fmt);
	vsnprintf(why + n, whylen - n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Split a symvers line at tabs: its fields, or -1 when not 4 or 5. */
static int symvers_fields(const char *s, size_t n, const char **f, size_t *fl)
{
	const char *end = s + n, *tab;
	int k = 0;

	for (;;) {
		if (k == 5)
			return -1;
		tab = memchr(s, '\t', (size_t)(end - s));
		f[k] = s;
		fl[k++] = (size_t)((tab ? tab : end) - s);
		if (!tab)
			break;
		s = tab + 1;
	}
	return k < 4 ? -1 : k;
}

/* The MODULE column's last component is MOD ("drivers/net/tun" is "tun"). */
static bool module_is(const char *col, size_t n, const char *mod)
{
	const char *slash = col + n;

	while (slash > col && slash[-1] != '/')
		slash--;
	n -= (size_t)(slash - col);
	return strlen(mod) == n && !memcmp(slash, mod, n);
}

/* Two passes: check every line and see whether MODULE is named; then hand out names. */
int abi_list__symvers(const char *buf, size_t len, const char *module, abi_name_fn fn,
		      void *ctx, char *why, size_t whylen)
{
	struct cursor c = { buf, buf + len, 0 };
	const char *s, *f[5];
	size_t n, fl[5];
	bool named = false, pass2 = false;
	int err = 0;

again:
	while (!err && next_line(&c, &s, &n)) {
		if (!n)
			continue;
		if (symvers_fields(s, n, f, fl) < 0)
			return set_why(why, whylen, c.line, "expected CRC, symbol, module and "
				       "export type separated by tabs");
		if (!fl[1] || memchr(f[1], ' ', fl[1]) || memchr(f[1], 0, fl[1]))
			return set_why(why, whylen, c.line, "no symbol name or a blank in it");
		if (!pass2)
			named |= module && module_is(f[2], fl[2], module);
		else if (!named || module_is(f[2], fl[2], module))
			err = fn(ctx, f[1], fl[1]);
	}
	if (!err && !pass2) {
		pass2 = true;
		c.p = buf;
		c.line = 0;
		goto again;
	}
	return err;
}

/* A CRC column's value is zero: "0x00000000", or any run of zeros after "0x". */
static bool crc_is_zero(const char *s, size_t n)
{
	size_t i = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0;

	while (i < n && s[i] == '0')
		i++;
	return i == n;
}

bool abi_list__symvers_no_crcs(const char *buf, size_t len)
{
	struct cursor c = { buf, buf + len, 0 };
	const char *s, *tab;
	size_t n;
	bool any = false;

	while (next_line(&c, &s, &n)) {
		if (!n)
			continue;
		tab = memchr(s, '\t', n);
		if (!crc_is_zero(s, tab ? (size_t)(tab - s) : n))
			return false;
		any = true;
	}
	return any;
}

/* ---- suppressions ---- */

static const char *const sections[] = {
	[ABI_SUPP_FUNCTION] = "suppress_function",
	[ABI_SUPP_VARIABLE] = "suppress_variable",
	[ABI_SUPP_TYPE] = "suppress_type",
};

static bool is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && !memcmp(s, word, n);
}

static int supp_section(struct abi_supp *sp, const char *s, size_t n, unsigned int line,
			char *why, size_t whylen)
{
	struct abi_supp_rule *r;
	size_t k;

	for (k = 0; k < sizeof(sections) / sizeof(sections[0]); k++)
		if (is(s, n, sections[k]))
			break;
	if (k == sizeof(sections) / sizeof(sections[0]))
		return set_why(why, whylen, line, "section [%.*s] is not supported (frugal "
			       "reads [suppress_function], [suppress_variable], [suppress_type])",
			       (int)(n > 64 ? 64 : n), s);
	if (array__grow(&sp->rules, &sp->cap, sp->nrules + 1, sizeof(*sp->rules), 16))
		return -ENOMEM;
	r = &sp->rules[sp->nrules++];
	memset(r, 0, sizeof(*r));
	r->kind = (enum abi_supp_kind)k;
	r->line = line;
	return 0;
}

/* A value: blanks trimmed, then one pair of double quotes around it dropped. */
static char *supp_value(const char *s, size_t n)
{
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	return strndup(s, n);
}

/*
 * glibc's regcomp copies a repeated part once per count of a bound and
 * once more per '+', so nested ones multiply: the fuzzer found "s++++..."
 * and "((a{255}){255}){255}" taking gigabytes.  Its time then grows about
 * as the cube of that expanded length: "(.*)*" 1,500 times took 14 s, 200
 * times 40 ms.  A back-reference makes regexec exponential.  Suppressions
 * name symbols, so each pattern may expand to ABI_RE_MAX_COST (length,
 * doubled per '+', times each bound) and a file's patterns together to
 * ABI_RE_FILE_COST: room for any sane pattern, at most about a second.
 */
#define ABI_RE_MAX_COST		1024u
#define ABI_RE_FILE_COST	(16u * ABI_RE_MAX_COST)

/* The pattern's expanded length, capped just past ABI_RE_MAX_COST; *BACKREF if it has one. */
static unsigned long long regex_cost(const char *v, bool *backref)
{
	unsigned long long cost = strlen(v) + 1;
	unsigned long k;
	const char *p;
	char *end;

	*backref = false;
	for (p = v; *p && cost <= ABI_RE_MAX_COST; p++) {
		if (*p == '\\' && p[1] >= '1' && p[1] <= '9')
			*backref = true;
		if (*p == '+')
			cost *= 2;
		if (*p != '{')
			continue;
		for (p++; (*p >= '0' && *p <= '9') || *p == ','; p++) {
			if (*p == ',')
				continue;
			k = strtoul(p, &end, 10);
			cost *= k < ABI_RE_MAX_COST ? k + 1 : ABI_RE_MAX_COST;
			p = end - 1;
		}
		p--;
	}
	return cost;
}

static int supp_property(struct abi_supp *sp, const char *key, size_t kn, const char *val,
			 size_t vn, unsigned int line, char *why, size_t whylen)
{
	struct abi_supp_rule *r = &sp->rules[sp->nrules - 1];
	char **dst = NULL, *v, msg[128];
	unsigned long long cost;
	bool backref;
	int rc;

	if (is(key, kn, "name") || is(key, kn, "symbol_name"))
		dst = &r->name;
	else if (is(key, kn, "label") || is(key, kn, "reason"))
		dst = &r->reason;
	else if (!is(key, kn, "name_regexp") && !is(key, kn, "symbol_name_regexp"))
		return set_why(why, whylen, line, "property '%.*s' is not supported (frugal reads "
			       "name, name_regexp, symbol_name, symbol_name_regexp, label, reason)",
			       (int)(kn > 64 ? 64 : kn), key);
	if (!vn || memchr(val, 0, vn))
		return set_why(why, whylen, line, "'%.*s' has no value", (int)kn, key);
	if (dst && *dst)
		return set_why(why, whylen, line, "'%.*s' given twice", (int)kn, key);
	if (!dst && r->has_re)
		return set_why(why, whylen, line, "a second regular expression");
	v = supp_value(val, vn);
	if (!v)
		return -ENOMEM;
	if (dst) {
		*dst = v;
		return 0;
	}
	cost = regex_cost(v, &backref);
	if (backref || cost > ABI_RE_MAX_COST || sp->re_cost + cost > ABI_RE_FILE_COST) {
		free(v);
		if (backref)
			return set_why(why, whylen, line, "regular expression too costly: "
				       "a back-reference");
		if (cost > ABI_RE_MAX_COST)
			return set_why(why, whylen, line, "regular expression too costly: over %u "
				       "characters with its repetitions ('+', {n,m}) expanded",
				       ABI_RE_MAX_COST);
		return set_why(why, whylen, line, "regular expression too costly: the file's "
			       "patterns expand to over %u characters together", ABI_RE_FILE_COST);
	}
	sp->re_cost += cost;
	rc = regcomp(&r->re, v, REG_EXTENDED | REG_NOSUB);
	free(v);
	if (rc) {
		regerror(rc, &r->re, msg, sizeof(msg));
		return set_why(why, whylen, line, "bad regular expression: %s", msg);
	}
	r->has_re = true;
	return 0;
}

static int supp_check_last(const struct abi_supp *sp, size_t first, char *why, size_t whylen)
{
	const struct abi_supp_rule *r;

	if (sp->nrules <= first)
		return 0;
	r = &sp->rules[sp->nrules - 1];
	if (!r->name && !r->has_re)
		return set_why(why, whylen, r->line, "[%s] names nothing: give name or "
			       "name_regexp", sections[r->kind]);
	return 0;
}

int abi_supp__parse(struct abi_supp *sp, const char *buf, size_t len, char *why, size_t whylen)
{
	struct cursor c = { buf, buf + len, 0 };
	size_t first = sp->nrules, n, kn, vn;
	const char *s, *eq, *key, *val;
	int err = 0;

	sp->re_cost = 0;
	while (!err && next_line(&c, &s, &n)) {
		trim(&s, &n);
		if (!n || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			if (s[n - 1] != ']' || n < 3)
				return set_why(why, whylen, c.line, "a section is '[name]'");
			err = supp_check_last(sp, first, why, whylen);
			if (!err)
				err = supp_section(sp, s + 1, n - 2, c.line, why, whylen);
			continue;
		}
		eq = memchr(s, '=', n);
		if (!eq)
			return set_why(why, whylen, c.line, "expected '[section]' or "
				       "'property = value'");
		if (sp->nrules == first)
			return set_why(why, whylen, c.line, "a property before any section");
		key = s;
		kn = (size_t)(eq - s);
		trim(&key, &kn);
		val = eq + 1;
		vn = (size_t)(s + n - val);
		trim(&val, &vn);
		err = supp_property(sp, key, kn, val, vn, c.line, why, whylen);
	}
	if (!err)
		err = supp_check_last(sp, first, why, whylen);
	return err;
}

static bool rule_matches(const struct abi_supp_rule *r, const char *name)
{
	if (r->name && strcmp(r->name, name))
		return false;
	return !r->has_re || !regexec(&r->re, name, 0, NULL, 0);
}

bool abi_supp__symbol(const struct abi_supp *sp, const char *name, bool is_func)
{
	enum abi_supp_kind want = is_func ? ABI_SUPP_FUNCTION : ABI_SUPP_VARIABLE;
	size_t i;

	for (i = 0; i < sp->nrules; i++)
		if (sp->rules[i].kind == want && rule_matches(&sp->rules[i], name))
			return true;
	return false;
}

bool abi_supp__type(const struct abi_supp *sp, const char *name)
{
	const char *bare = strchr(name, ' ');
	size_t i;

	for (i = 0; i < sp->nrules; i++) {
		if (sp->rules[i].kind != ABI_SUPP_TYPE)
			continue;
		if (rule_matches(&sp->rules[i], name) || (bare && rule_matches(&sp->rules[i], bare + 1)))
			return true;
	}
	return false;
}

void abi_supp__free(struct abi_supp *sp)
{
	size_t i;

	for (i = 0; i < sp->nrules; i++) {
		free(sp->rules[i].name);
		free(sp->rules[i].reason);
		if (sp->rules[i].has_re)
			regfree(&sp->rules[i].re);
	}
	free(sp->rules);
	sp->rules = NULL;
	sp->nrules = sp->cap = 0;
}
