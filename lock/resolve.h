/* SPDX-License-Identifier: GPL-2.0 */
/* -p/--tid, -L, -S and -G against the running system (resolve.c). */
#ifndef FRUGAL_LOCK_RESOLVE_H
#define FRUGAL_LOCK_RESOLVE_H

struct lock_filters;
struct lock_opts;

/*
 * Check that O's -p processes exist, turn -L's symbols into addresses,
 * -S's words into the text ranges of the kernel functions they name and
 * -G's paths into cgroup ids, all into F.  0, or an exit code once the
 * reason is printed; either way F is the caller's to free.
 */
int lock_filters__resolve(struct lock_filters *f, const struct lock_opts *o);
void lock_filters__free(struct lock_filters *f);

#endif
