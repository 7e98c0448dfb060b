/* SPDX-License-Identifier: GPL-2.0 */
/* Cgroups by path and by id (cgroup.c), on the v2 hierarchy. */
#ifndef FRUGAL_LOCK_CGROUP_H
#define FRUGAL_LOCK_CGROUP_H

#include <stddef.h>
#include <stdint.h>

struct lock_row;

/* The id of the cgroup at PATH below the v2 root ("/a/b").  0 or -errno. */
int lock_cgroup_id(const char *path, uint64_t *id);
/* The cgroup path of each of ROWS' keys, NULL where not found; NULL if no memory. */
char **lock_cgroup_names(struct lock_row **rows, size_t n);
void lock_cgroup_names_free(char **names, size_t n);

#endif
