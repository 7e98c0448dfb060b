/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -l: what holds a lock (objdesc.c).  The loader's half: where each kind
 * of object keeps its locks and the offsets lock.bpf.c's describe() reads,
 * from the kernel's BTF.  The report's half: a described object's member
 * path, struct and description ("/var/log/app.log", "postgres (pid 1234)",
 * "tcp 127.0.0.1:5432 -> 127.0.0.1:40000", "CPU 3's run queue").
 */
#ifndef FRUGAL_LOCK_OBJDESC_H
#define FRUGAL_LOCK_OBJDESC_H

#include <stddef.h>
#include <stdint.h>

#include "lock/lock.h"

/*
 * Fill the probe table and the offsets from the kernel's BTF (BTF_PATH:
 * NULL for the kernel's own).  A kind whose facts the BTF lacks is left
 * out and -v says so, one line each.  The number of kinds described, or
 * -errno when the BTF cannot be read.
 */
int lock_obj__setup(const char *btf_path, struct lock_obj_probe probes[LOCK_OBJ_PROBES],
		    struct lock_obj_facts *facts);

/* O's member path in its struct ("f_pos_lock"), its struct ("file"), and
 * the lock's offset there; "" and -1 for an undescribed O. */
const char *lock_obj__member(const struct lock_obj *o);
const char *lock_obj__type(const struct lock_obj *o);
int64_t lock_obj__offset(const struct lock_obj *o);

/* O described into BUF (always terminated); its length, 0 if undescribed. */
size_t lock_obj__name(const struct lock_obj *o, char *buf, size_t size);

#endif
