/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksyms: kernel symbols from /proc/kallsyms in a compact sorted table:
 * 16 bytes per symbol (address, name offset, type) plus one arena holding
 * the names.  Lookups are a binary search.  Nothing here prints.
 */
#ifndef FRUGAL_KSYMS_H
#define FRUGAL_KSYMS_H

#include <stddef.h>
#include <stdint.h>

struct ksyms;

struct ksym {
	const char *name;
	uint64_t addr;
	char type;		/* kallsyms type letter: t, T, d, D, b, ... */
};

/*
 * Read PATH (NULL: /proc/kallsyms).  TYPES, if not NULL, lists the type
 * letters to keep (e.g. "tTwW" for code only), which keeps the table small.
 * Returns NULL with errno set: EPERM when every address reads as zero
 * (kptr_restrict hides them), EINVAL for a malformed or overlong line,
 * ENOMEM, or the error of opening or reading PATH.
 */
struct ksyms *ksyms__load(const char *path, const char *types);
void ksyms__free(struct ksyms *ks);

/*
 * A small table for known addresses: one read of PATH keeps, for each of
 * ADDRS, only the symbol that contains it, plus the symbols called one of
 * NAMES.  Memory is a few hundred bytes per address instead of megabytes
 * for the whole table.  Lookups of other addresses may name the wrong
 * symbol.  Errors as ksyms__load().
 */
struct ksyms *ksyms__load_addrs(const char *path, const uint64_t *addrs, size_t n,
				const char *const *names, size_t nr_names);

/*
 * A table built by hand, from symbols learnt elsewhere (the kernel's own
 * lookup, say): new, add in any order, then sort once before lookups.
 */
struct ksyms *ksyms__new(void);
int ksyms__add(struct ksyms *ks, uint64_t addr, char type, const char *name);
void ksyms__sort(struct ksyms *ks);

size_t ksyms__count(const struct ksyms *ks);
/* Bytes held by the table and the names, for accounting and tests. */
size_t ksyms__mem_bytes(const struct ksyms *ks, size_t *names);

/*
 * The symbol containing ADDR: the last one at or below it (of several at
 * one address, the one added first: kallsyms' canonical name), unless
 * ADDR is past the last symbol by more than KSYMS_MAX_GAP (1 MB, in
 * ksyms.c).  0 with *sym and *off set, or -ENOENT.
 */
int ksyms__resolve(const struct ksyms *ks, uint64_t addr, struct ksym *sym,
		   uint64_t *off);
/* Address of the first symbol called NAME.  0, or -ENOENT. */
int ksyms__find(const struct ksyms *ks, const char *name, uint64_t *addr);
/* The symbol at index I of the address order (0 <= I < count), its end. */
int ksyms__at(const struct ksyms *ks, size_t i, struct ksym *sym, uint64_t *end);

#endif
