// SPDX-License-Identifier: GPL-2.0
/*
 * The text inputs of `frugal btf abi` (btf/abi/abi_lists_int.h) over arbitrary
 * bytes.  The first byte picks the parser: a --symbols list, a
 * Module.symvers (for module "vmlinux", or every line), or suppressions.
 * Invariants:
 *  - a list's names are non-empty, inside the buffer, with no newline,
 *    no '#' and no blank at either end;
 *  - a symvers name has no blank, tab or newline; a rejected file says
 *    "LINE: what", LINE within the file's lines;
 *  - a suppressions file that parses has rules that each name something,
 *    and a rule's exact name (without a regexp) is suppressed by the set;
 *    a rejected one says "LINE: what" like symvers.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "btf/abi/abi_lists_int.h"

struct seen {
	const char *buf;
	size_t len, n;
	int mode;
};

static int on_name(void *ctx, const char *name, size_t len)
{
	struct seen *s = ctx;

	if (!len || name < s->buf || name + len > s->buf + s->len)
		abort();
	if (memchr(name, '\n', len) || (s->mode == 0 && memchr(name, '#', len)))
		abort();
	if (s->mode == 0 && (name[0] == ' ' || name[0] == '\t' || name[len - 1] == ' ' ||
			     name[len - 1] == '\t'))
		abort();
	if (s->mode == 1 && (memchr(name, '\t', len) || memchr(name, ' ', len)))
		abort();
	s->n++;
	return 0;
}

static size_t count_lines(const char *buf, size_t len)
{
	size_t i, n = len && buf[len - 1] != '\n';

	for (i = 0; i < len; i++)
		n += buf[i] == '\n';
	return n;
}

/* WHY is "LINE: what", 1 <= LINE <= the file's lines. */
static void check_why(const char *why, const char *buf, size_t len)
{
	char *end;
	unsigned long line = strtoul(why, &end, 10);

	if (end == why || strncmp(end, ": ", 2) || !line || line > count_lines(buf, len))
		abort();
}

static void check_supp(const char *buf, size_t len)
{
	struct abi_supp sp = {};
	const struct abi_supp_rule *r;
	char why[256] = "";
	size_t i;
	int err = abi_supp__parse(&sp, buf, len, why, sizeof(why));

	if (err == -EINVAL)
		check_why(why, buf, len);
	else if (err)
		abort();
	for (i = 0; !err && i < sp.nrules; i++) {
		r = &sp.rules[i];
		if (!r->name && !r->has_re)
			abort();
		if (!r->name || r->has_re)
			continue;
		if (r->kind == ABI_SUPP_TYPE ? !abi_supp__type(&sp, r->name) :
		    !abi_supp__symbol(&sp, r->name, r->kind == ABI_SUPP_FUNCTION))
			abort();
	}
	abi_supp__symbol(&sp, "tcp_sendmsg", true);
	abi_supp__type(&sp, "struct sk_buff");
	abi_supp__free(&sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct seen s = { 0 };
	char why[256] = "";
	int err;

	if (size < 1)
		return 0;
	s.mode = data[0] % 4;
	s.buf = (const char *)data + 1;
	s.len = size - 1;
	switch (s.mode) {
	case 0:
		if (abi_list__names(s.buf, s.len, on_name, &s))
			abort();
		break;
	case 1:
	case 2:
		err = abi_list__symvers(s.buf, s.len, s.mode == 1 ? "vmlinux" : NULL, on_name,
					&s, why, sizeof(why));
		if (err == -EINVAL)
			check_why(why, s.buf, s.len);
		else if (err)
			abort();
		if (!err && s.n > count_lines(s.buf, s.len))
			abort();
		/* Every CRC 0 is said of a file with lines only: every line (mode 2) a name. */
		if (!err && s.mode == 2 && abi_list__symvers_no_crcs(s.buf, s.len) && !s.n)
			abort();
		break;
	default:
		check_supp(s.buf, s.len);
	}
	return 0;
}
