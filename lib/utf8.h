/* SPDX-License-Identifier: GPL-2.0 */
/*
 * UTF-8 as the text formats read it: the one decoder that says which bytes
 * of a name are characters (lib/json, the flame graph's XML, the stack
 * formats' frame names).  Names come from the kernel and the user (comms,
 * paths, cgroups, command lines) and are bytes: a writer keeps a valid
 * sequence as it is and says each other byte its own way.
 */
#ifndef FRUGAL_UTF8_H
#define FRUGAL_UTF8_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The length (1-4) of the valid UTF-8 sequence at S, its code point in
 * *CP; 0 when the byte at S does not start one: a continuation byte alone,
 * 0xc0, 0xc1 and 0xf5-0xff, an overlong form, a surrogate (U+D800-DFFF),
 * past U+10FFFF, or a sequence cut short (by a byte that does not continue
 * it, or by the string's NUL: S may end anywhere).  A NUL at S is a
 * character of length 1 (U+0000); the caller stops before it.
 */
static inline int utf8_dec(const unsigned char *s, uint32_t *cp)
{
	uint32_t c;
	int n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)	/* the NUL ends it too */
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* U+FFFD, what a byte that is not UTF-8 becomes where it cannot stay. */
#define UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * SRC into DST (SIZE bytes, SIZE > 0) as valid UTF-8: each byte that does
 * not start a valid sequence becomes U+FFFD, and a cut (DST full) falls
 * between characters, never inside one.  Returns the bytes written,
 * without the NUL that always ends DST.
 */
static inline size_t utf8_copy(char *dst, size_t size, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t len = 0, k;
	uint32_t cp;
	int n;

	for (; *s; s += n ? n : 1) {
		const char *from = (const char *)s;

		n = utf8_dec(s, &cp);
		k = n;
		if (!n) {
			from = UTF8_REPLACEMENT;
			k = 3;
		}
		if (len + k >= size)
			break;
		memcpy(dst + len, from, k);
		len += k;
	}
	dst[len] = '\0';
	return len;
}

#endif
