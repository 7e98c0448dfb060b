/* SPDX-License-Identifier: GPL-2.0 */
/* Lock types (types.c): their names as perf prints them, and -Y's words. */
#ifndef FRUGAL_LOCK_TYPES_H
#define FRUGAL_LOCK_TYPES_H

#include <stdint.h>

/* Type name as perf prints it ("rwsem:W", "mutex", ...). */
const char *lock_type_name(uint32_t flags);
/* Parse -Y into a mask over (flags & LCB_F_MASK).  0 or -EINVAL. */
int lock_type_parse(const char *arg, uint64_t *mask);
/* -Y's Ith name (a cli_words_fn), NULL past the last; names repeat. */
const char *lock_type__word(unsigned int i);

#endif
