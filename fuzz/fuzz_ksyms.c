// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms over an arbitrary kallsyms text, read through a memfd by its
 * /proc/self/fd path as the real loader reads /proc/kallsyms.  The first
 * byte picks a type filter; the rest is the file.  Invariants:
 *  - every kept symbol has a non-empty name without blanks, a kept type,
 *    and the table is in address order;
 *  - resolving a symbol's address finds that address at offset 0, and any
 *    address up to the next symbol resolves to the same one;
 *  - finding a symbol's name gives an address at or below its own;
 *  - the small table of ksyms__load_addrs() agrees with the full table on
 *    every wanted address, and both reject the same malformed files.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/ksyms.h"

#define MAX_WANT 8

static const char *const filters[] = { NULL, "tTwW", "dDbB", "T" };
static int memfd = -1;
static char path[64];

static void put_file(const uint8_t *data, size_t size)
{
	if (memfd < 0) {
		memfd = memfd_create("kallsyms", 0);
		if (memfd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	}
	if (ftruncate(memfd, 0) || (size && pwrite(memfd, data, size, 0) != (ssize_t)size))
		abort();
}

static void check_table(const struct ksyms *ks, const char *types)
{
	struct ksym s, r;
	uint64_t end, off, addr, prev = 0;
	size_t i, n = ksyms__count(ks), names;

	if (ksyms__mem_bytes(ks, &names) < n * 16 || names < n * 2)
		abort();		/* each name is at least one byte plus its NUL */
	for (i = 0; i < n; i++) {
		if (ksyms__at(ks, i, &s, &end))
			abort();
		if (!*s.name || strpbrk(s.name, " \t\n") || (types && !strchr(types, s.type)))
			abort();
		if (s.addr < prev)
			abort();
		prev = s.addr;
		if (ksyms__resolve(ks, s.addr, &r, &off) || r.addr != s.addr || off)
			abort();
		/* The last byte before the next symbol still belongs to this one. */
		if (end > s.addr && end - s.addr <= (1u << 20) &&
		    (ksyms__resolve(ks, end - 1, &r, &off) || r.addr != s.addr))
			abort();
		if (ksyms__find(ks, s.name, &addr) || addr > s.addr)
			abort();
	}
	if (ksyms__at(ks, n, &s, &end) != -ENOENT)
		abort();
}

/* Wanted addresses: some symbols' addresses plus small offsets from DATA. */
static size_t pick_wanted(const struct ksyms *full, const uint8_t *data, size_t size,
			  uint64_t *want, const char **names, size_t *nr_names)
{
	size_t i, n = ksyms__count(full), nw = 0;
	struct ksym s;
	uint64_t end;

	*nr_names = 0;
	for (i = 0; n && i < MAX_WANT && i < size; i++) {
		if (ksyms__at(full, (data[i] * 131u + i) % n, &s, &end))
			abort();
		want[nw++] = s.addr + data[size - 1 - i] % 64;
		if (*nr_names < 2 && (data[i] & 1))
			names[(*nr_names)++] = s.name;
	}
	names[(*nr_names)++] = "no_such_symbol";
	return nw;
}

static void check_small(const struct ksyms *full, const uint8_t *data, size_t size)
{
	const char *names[3];
	uint64_t want[MAX_WANT], off, addr;
	struct ksym a, b;
	size_t nw, nn, i;
	struct ksyms *small;

	nw = pick_wanted(full, data, size, want, names, &nn);
	small = ksyms__load_addrs(path, want, nw, names, nn);
	/* The full table loaded: the file parses and, if it has symbols, not all are 0. */
	if (!small)
		abort();
	for (i = 0; i < nw; i++) {
		if (ksyms__resolve(full, want[i], &a, &off))
			continue;
		if (ksyms__resolve(small, want[i], &b, &off) || a.addr != b.addr)
			abort();
	}
	for (i = 0; i + 1 < nn; i++)
		if (ksyms__find(small, names[i], &addr))
			abort();
	ksyms__free(small);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *types;
	struct ksyms *ks;
	uint64_t none = 0;

	if (size < 1)
		return 0;
	types = filters[data[0] % 4];
	data++, size--;
	put_file(data, size);
	ks = ksyms__load(path, types);
	if (!ks) {
		if (errno != EINVAL && errno != EPERM)
			abort();
		/* A malformed line fails the small loader the same way. */
		if (errno == EINVAL && (ks = ksyms__load_addrs(path, &none, 1, NULL, 0)))
			abort();
		return 0;
	}
	check_table(ks, types);
	if (!types)
		check_small(ks, data, size);
	ksyms__free(ks);
	return 0;
}
