/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -U: the C library's locking code, told by names (ulibc.c): which user
 * frames are the library's and not the program's (the report shows the
 * program's caller on top), and which primitive they name.
 */
#ifndef FRUGAL_LOCK_ULIBC_H
#define FRUGAL_LOCK_ULIBC_H

#include <stdbool.h>

#include "lock/lock.h"

/* Is function F (a symbol name) one of the locking or futex-wait code of
 * glibc or musl, public or internal? */
bool lock_ulibc__lock_func(const char *f);
/*
 * The C library by its file name: glibc (libpthread before 2.34), musl.
 * Its waits begin in internals that are local symbols (__lll_lock_wait,
 * __futex_abstimed_wait_common, __pthread_clockjoin_ex): named from
 * .symtab, which a distribution strips into its debug package and, like
 * Debian, may not keep as MiniDebugInfo.  Without them, .dynsym names only
 * the exported entries (pthread_mutex_lock).
 * BIN is the file name without its directory (NULL: false).
 */
bool lock_ulibc__is_libc(const char *bin);
/* What a locking function tells of the primitive: LOCK_U_NR if nothing. */
enum lock_utype lock_ulibc__type_of(const char *f);

#endif
