// SPDX-License-Identifier: GPL-2.0
/*
 * The record queue (recq.h): a list of mmap'd chunks, written at the tail,
 * read at the head, under one mutex.  Each record is its length (8 bytes,
 * keeping the next one aligned) and its bytes, rounded up to 8.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/recq.h"

#define CHUNK (1U << 20)

struct chunk {
	struct chunk *next;
	size_t size, rd, wr;	/* bytes of data[]; read and write offsets */
	unsigned char data[];
};

struct recq {
	pthread_mutex_t mu;
	pthread_cond_t space;
	struct chunk *head, *tail;
	size_t limit, bytes, peak;
	bool cancelled;
};

static size_t rec_size(size_t len)
{
	return sizeof(uint64_t) + ((len + 7) & ~(size_t)7);
}

struct recq *recq__new(size_t limit)
{
	struct recq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->limit = limit;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->space, NULL);
	return q;
}

static void chunk_free(struct chunk *c)
{
	munmap(c, sizeof(*c) + c->size);
}

void recq__free(struct recq *q)
{
	struct chunk *c, *next;

	if (!q)
		return;
	for (c = q->head; c; c = next) {
		next = c->next;
		chunk_free(c);
	}
	pthread_cond_destroy(&q->space);
	pthread_mutex_destroy(&q->mu);
	free(q);
}

static struct chunk *chunk_new(size_t need)
{
	size_t size = need > CHUNK - sizeof(struct chunk) ? need : CHUNK - sizeof(struct chunk);
	struct chunk *c = mmap(NULL, sizeof(*c) + size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (c == MAP_FAILED)
		return NULL;
	c->next = NULL;
	c->size = size;
	c->rd = c->wr = 0;
	return c;
}

int recq__push(struct recq *q, const void *data, size_t len)
{
	size_t need = rec_size(len);
	struct chunk *c;
	uint64_t n = len;
	int err = 0;

	if (!len || len > RECQ_MAX)
		return -EINVAL;
	pthread_mutex_lock(&q->mu);
	/* A record bigger than the whole limit still goes into an empty queue. */
	while (!q->cancelled && q->bytes && q->bytes + need > q->limit)
		pthread_cond_wait(&q->space, &q->mu);
	if (q->cancelled) {
		err = -ECANCELED;
		goto out;
	}
	c = q->tail;
	if (!c || c->size - c->wr < need) {
		c = chunk_new(need);
		if (!c) {
			err = -ENOMEM;
			goto out;
		}
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
	}
	memcpy(c->data + c->wr, &n, sizeof(n));
	memcpy(c->data + c->wr + sizeof(n), data, len);
	c->wr += need;
	q->bytes += need;
	if (q->bytes > q->peak)
		q->peak = q->bytes;
out:
	pthread_mutex_unlock(&q->mu);
	return err;
}

ssize_t recq__pop(struct recq *q, void *buf, size_t cap)
{
	struct chunk *c;
	ssize_t ret = 0;
	uint64_t n;

	pthread_mutex_lock(&q->mu);
	while ((c = q->head) && c->rd == c->wr && c->next) {
		q->head = c->next;
		chunk_free(c);
	}
	if (!c || c->rd == c->wr)
		goto out;
	memcpy(&n, c->data + c->rd, sizeof(n));
	if (n > cap) {
		ret = -ENOSPC;
		goto out;
	}
	memcpy(buf, c->data + c->rd + sizeof(n), n);
	c->rd += rec_size(n);
	q->bytes -= rec_size(n);
	ret = (ssize_t)n;
	/* A chunk read to its end: the next one's turn, or this one starts
	 * over when it is the last. */
	if (c->rd == c->wr) {
		if (c->next) {
			q->head = c->next;
			chunk_free(c);
		} else {
			c->rd = c->wr = 0;
		}
	}
	pthread_cond_signal(&q->space);
out:
	pthread_mutex_unlock(&q->mu);
	return ret;
}

void recq__cancel(struct recq *q)
{
	pthread_mutex_lock(&q->mu);
	q->cancelled = true;
	pthread_cond_broadcast(&q->space);
	pthread_mutex_unlock(&q->mu);
}

size_t recq__peak(struct recq *q)
{
	size_t peak;

	pthread_mutex_lock(&q->mu);
	peak = q->peak;
	pthread_mutex_unlock(&q->mu);
	return peak;
}
