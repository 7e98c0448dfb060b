/* SPDX-License-Identifier: GPL-2.0 */
/* Crash-safe output of the encoder (see encode_write.c). */
#ifndef FRUGAL_BTF_ENCODE_WRITE_INT_H
#define FRUGAL_BTF_ENCODE_WRITE_INT_H

#include <stddef.h>

#include "lib/elf_file.h"

/* Write DATA as the whole of PATH.  0 or -errno; PATH untouched on error. */
int enc_write_raw(const char *path, const void *data, size_t len);
/* Replace EF (opened from PATH) by a copy whose .BTF section holds BTF. */
int enc_write_elf(const struct elf_file *ef, const char *path, const void *btf, size_t len);

#endif
