/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded queue of records of any length, from one thread to another:
 * a reader that must empty a kernel buffer at once hands what it read to
 * a thread that takes its time.  Records sit in mmap'd chunks that go back
 * to the system as soon as they are read, so an idle queue holds at most
 * one chunk.  A full queue blocks its writer: the kernel buffer behind it
 * then fills and counts its own losses, so nothing is dropped silently.
 */
#ifndef FRUGAL_RECQ_H
#define FRUGAL_RECQ_H

#include <stddef.h>
#include <sys/types.h>

struct recq;

/* A queue of at most LIMIT bytes of records; NULL with errno set. */
struct recq *recq__new(size_t limit);
void recq__free(struct recq *q);

/*
 * Append LEN bytes (1 to RECQ_MAX).  While the queue is full this waits
 * for the reader; 0, -EINVAL for a bad length, -ENOMEM, or -ECANCELED
 * once recq__cancel was called (the record is then not queued).
 */
#define RECQ_MAX (1U << 20)
int recq__push(struct recq *q, const void *data, size_t len);

/* The oldest record into BUF (CAP bytes): its length, 0 when the queue is
 * empty, or -ENOSPC (the record stays) when CAP is too small. */
ssize_t recq__pop(struct recq *q, void *buf, size_t cap);

/* Wake a waiting writer and make every later push fail. */
void recq__cancel(struct recq *q);

/* The most bytes of records the queue has held at once. */
size_t recq__peak(struct recq *q);

#endif
