/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The text files `frugal btf abi` reads beside the kernels: a list of
 * names (--symbols), a kernel build's Module.symvers (--symvers) and
 * suppressions (--suppressions).  Each parser works on a buffer, never
 * prints, and on a bad line writes "LINE: what is wrong" into WHY, so the
 * command prints it after the file's name and the fuzzer can call it.
 */
#ifndef FRUGAL_BTF_ABI_LISTS_INT_H
#define FRUGAL_BTF_ABI_LISTS_INT_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

/* Read all of PATH into *BUF (NUL-terminated, *LEN bytes before it): 0 or -errno. */
int abi_list__read_file(const char *path, char **buf, size_t *len);

/* One name: 0 to go on, or a negative errno that stops the parse. */
typedef int (*abi_name_fn)(void *ctx, const char *name, size_t len);

/* --symbols: a name a line; blanks around it, blank lines and '#' comments ignored. */
int abi_list__names(const char *buf, size_t len, abi_name_fn fn, void *ctx);

/*
 * Module.symvers: CRC<TAB>SYMBOL<TAB>MODULE<TAB>EXPORT_TYPE[<TAB>NAMESPACE].
 * The symbols of module MODULE (matched against the last '/' component of
 * the MODULE column, "vmlinux" for the kernel's own) when any line names
 * it; every symbol when none does, or when MODULE is NULL.  -EINVAL with
 * WHY on a malformed line.
 */
int abi_list__symvers(const char *buf, size_t len, const char *module, abi_name_fn fn,
		      void *ctx, char *why, size_t whylen);

/*
 * Whether the Module.symvers in BUF has lines and every CRC in it is 0: a
 * kernel built without CONFIG_MODVERSIONS (Debian's 7.x, which build Rust)
 * writes the column all the same.  The lines are abi_list__symvers()'s,
 * checked there first.
 */
bool abi_list__symvers_no_crcs(const char *buf, size_t len);

enum abi_supp_kind { ABI_SUPP_FUNCTION, ABI_SUPP_VARIABLE, ABI_SUPP_TYPE };

struct abi_supp_rule {
	enum abi_supp_kind kind;
	char *name;		/* exact name, or NULL */
	char *reason;		/* "label" or "reason", or NULL */
	regex_t re;		/* "name_regexp", when HAS_RE */
	bool has_re;
	unsigned int line;	/* of its section header */
};

struct abi_supp {
	struct abi_supp_rule *rules;
	size_t nrules, cap;
	unsigned long long re_cost;	/* the file being parsed: its patterns' expanded lengths */
};

/*
 * Add the rules of one suppressions file (the format in docs/btf.md):
 * 0, -ENOMEM, or -EINVAL with WHY.  Rules already added stay on failure.
 */
int abi_supp__parse(struct abi_supp *s, const char *buf, size_t len, char *why, size_t whylen);
/* Whether symbol NAME, a function (IS_FUNC) or a variable, is suppressed. */
bool abi_supp__symbol(const struct abi_supp *s, const char *name, bool is_func);
/* Whether type NAME ("struct sk_buff", or the bare "sk_buff") is suppressed. */
bool abi_supp__type(const struct abi_supp *s, const char *name);
void abi_supp__free(struct abi_supp *s);

#endif
