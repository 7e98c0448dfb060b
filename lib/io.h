/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reads and writes that a signal does not cut short: each retries on
 * EINTR, and the _full ones go on until every byte has moved.
 */
#ifndef FRUGAL_IO_H
#define FRUGAL_IO_H

#include <stddef.h>
#include <sys/types.h>

/* One read(2), retried on EINTR: the bytes read (0 at the end), or -errno. */
ssize_t io__read(int fd, void *buf, size_t len);
/* LEN bytes, or fewer at the end of the file: the count, or -errno. */
ssize_t io__read_full(int fd, void *buf, size_t len);
/* All LEN bytes: 0, or -errno. */
int io__write_full(int fd, const void *buf, size_t len);
/* LEN bytes at OFF: 0, -errno, or -ENODATA when the file ends first. */
int io__pread_full(int fd, void *buf, size_t len, off_t off);
/* LEN bytes at OFF: 0, or -errno. */
int io__pwrite_full(int fd, const void *buf, size_t len, off_t off);

#endif
