// SPDX-License-Identifier: GPL-2.0
/*
 * recq: order and bytes kept across chunks, a full queue blocks its writer
 * until the reader makes room, cancel wakes it, and a small buffer leaves
 * the record in place.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/recq.h"
#include "tests/test.h"

/* Record I: I % 3000 + 1 bytes, each byte (I + J) & 0xff. */
static size_t len_of(unsigned int i)
{
	return i % 3000 + 1;
}

static void fill(unsigned char *b, unsigned int i)
{
	for (size_t j = 0; j < len_of(i); j++)
		b[j] = (unsigned char)(i + j);
}

static int same(const unsigned char *b, size_t n, unsigned int i)
{
	if (n != len_of(i))
		return 0;
	for (size_t j = 0; j < n; j++)
		if (b[j] != (unsigned char)(i + j))
			return 0;
	return 1;
}

#define NR 20000	/* about 30 MB through a 256 KB queue */

struct writer {
	struct recq *q;
	int err;
};

static void *write_all(void *arg)
{
	struct writer *w = arg;
	unsigned char b[3000];

	for (unsigned int i = 0; i < NR && !w->err; i++) {
		fill(b, i);
		w->err = recq__push(w->q, b, len_of(i));
	}
	return NULL;
}

static void *push_one(void *arg)
{
	struct writer *w = arg;
	unsigned char b[64] = { 0 };

	w->err = recq__push(w->q, b, sizeof(b));
	return NULL;
}

int main(void)
{
	unsigned char b[3000];
	struct writer w;
	struct recq *q;
	pthread_t t;
	ssize_t n;

	TEST_BEGIN("recq: one thread, records back in order, across chunks");
	q = recq__new(64U << 20);
	CHECK(q != NULL, "recq__new");
	for (unsigned int i = 0; i < 1000; i++) {
		fill(b, i);
		CHECK_EQ(recq__push(q, b, len_of(i)), 0);
	}
	for (unsigned int i = 0; i < 1000; i++) {
		n = recq__pop(q, b, sizeof(b));
		if (!CHECK(n > 0 && same(b, n, i), "record %u (%zd bytes)", i, n))
			break;
	}
	CHECK_EQ(recq__pop(q, b, sizeof(b)), 0);
	CHECK(recq__peak(q) >= 1000 * 8, "peak %zu", recq__peak(q));
	TEST_END();

	TEST_BEGIN("recq: a buffer too small leaves the record; bad lengths refused");
	fill(b, 99);
	CHECK_EQ(recq__push(q, b, len_of(99)), 0);
	CHECK_EQ(recq__pop(q, b, 10), -ENOSPC);
	n = recq__pop(q, b, sizeof(b));
	CHECK(n > 0 && same(b, n, 99), "the record after -ENOSPC");
	CHECK_EQ(recq__push(q, b, 0), -EINVAL);
	CHECK_EQ(recq__push(q, b, RECQ_MAX + 1), -EINVAL);
	recq__free(q);
	TEST_END();

	TEST_BEGIN("recq: a writer through a small queue, every record in order");
	q = recq__new(256U << 10);
	w = (struct writer){ q, 0 };
	pthread_create(&t, NULL, write_all, &w);
	for (unsigned int i = 0; i < NR;) {
		n = recq__pop(q, b, sizeof(b));
		if (!n) {
			/* Empty: let the writer run (under valgrind, one
			 * thread at a time, a spinning reader starves it). */
			sched_yield();
			continue;
		}
		if (!CHECK(n > 0 && same(b, n, i), "record %u (%zd bytes)", i, n))
			break;
		i++;
	}
	pthread_join(t, NULL);
	CHECK_EQ(w.err, 0);
	CHECK(recq__peak(q) <= (256U << 10), "peak %zu above the limit", recq__peak(q));
	recq__free(q);
	TEST_END();

	TEST_BEGIN("recq: cancel wakes a writer blocked on a full queue");
	q = recq__new(100);
	CHECK_EQ(recq__push(q, b, 64), 0);
	w = (struct writer){ q, 1 };
	pthread_create(&t, NULL, push_one, &w);
	recq__cancel(q);
	pthread_join(t, NULL);
	CHECK_EQ(w.err, -ECANCELED);
	CHECK_EQ(recq__push(q, b, 8), -ECANCELED);
	n = recq__pop(q, b, sizeof(b));
	CHECK_EQ(n, 64);
	recq__free(q);
	TEST_END();
	TEST_EXIT();
}
