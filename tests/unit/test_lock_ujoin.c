// SPDX-License-Identifier: GPL-2.0
/*
 * -U's join (lock/user/ujoin.c) fed records as the buffers hand them: a wait's
 * begin and end in either order, joined into its row by sequence number;
 * halves left pending counted; many waits with their ends reversed; the
 * kernel's lost-record counts; -Y's filter; malformed records ignored.
 * Task mode (-t): rows by thread, so no stack has to be unwound.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/ucollect_int.h"
#include "lock/user/user.h"
#include "tests/test.h"

/* A sample record of the buffers around DATA (LEN bytes); RAW_LEN is what it claims. */
static void feed(struct lock_ucollect *u, const void *data, uint32_t len, uint32_t raw_len)
{
	static unsigned char buf[sizeof(struct perf_event_header) + 8 +
				 sizeof(struct lock_urec_begin)];
	struct perf_event_header h = { .type = PERF_RECORD_SAMPLE };

	h.size = (uint16_t)(sizeof(h) + sizeof(uint32_t) + len);
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &raw_len, sizeof(raw_len));
	memcpy(buf + sizeof(h) + sizeof(raw_len), data, len);
	lock_ujoin__take(u, (const struct perf_event_header *)buf);
}

static void begin(struct lock_ucollect *u, uint64_t seq, uint32_t tid, const char *comm)
{
	static struct lock_urec_begin b;
	uint32_t len = (uint32_t)offsetof(struct lock_urec_begin, stack);

	memset(&b, 0, sizeof(b));
	b.kind = LOCK_REC_UBEGIN;
	b.seq = seq;
	b.tid = tid;
	b.tgid = (uint32_t)getpid();
	strncpy(b.comm, comm, sizeof(b.comm) - 1);
	feed(u, &b, len, len);
}

static void end(struct lock_ucollect *u, uint64_t seq, uint64_t ns)
{
	struct lock_urec_end e = { .kind = LOCK_REC_UEND, .seq = seq, .ns = ns };

	feed(u, &e, sizeof(e), sizeof(e));
}

/* Row of thread TID, or NULL. */
static const struct lock_row *row_of(struct lock_ucollect *u, uint32_t tid)
{
	static struct lock_row r;
	struct lock_row **rows = lock_table__sorted(u->table, LOCK_SORT_CONTENDED);
	const struct lock_row *found = NULL;

	for (size_t i = 0; rows && i < lock_table__len(u->table); i++)
		if (rows[i]->key == (LOCK_KEY_USER | tid)) {
			r = *rows[i];
			found = &r;
		}
	free(rows);
	return found;
}

/* U as ucollect.c makes it for CFG, without its programs: the join alone. */
static int setup(struct lock_ucollect *u, const struct lock_collect_cfg *cfg)
{
	lock_ujoin__init(u, cfg);
	u->st = lock_ustacks__new(NULL, false);
	u->rec = malloc(sizeof(*u->rec));
	u->table = lock_table__new(0);
	return u->st && u->rec && u->table ? 0 : -1;
}

static void teardown(struct lock_ucollect *u)
{
	lock_ujoin__free(u);
	lock_table__free(u->table);
	lock_ustacks__free(u->st);
	free(u->rec);
}

static void test_join(void)
{
	struct lock_collect_cfg cfg = { .mode = LOCK_AGGR_TASK, .max_stack = 8 };
	struct lock_ucollect u = { 0 };
	const struct lock_row *r;
	uint64_t open, unjoined, sum = 0;
	uint64_t lost[] = { 0, 0, 5 };	/* a PERF_RECORD_LOST: id, count */
	struct perf_event_header *lh = (void *)lost;

	TEST_BEGIN("lock ujoin: halves joined in either order, pending counted, losses added");
	if (!CHECK(!setup(&u, &cfg), "setup"))
		return;
	begin(&u, 1, 100, "w1");
	end(&u, 1, 500);
	end(&u, 2, 700);		/* the end first: it waits for its begin */
	begin(&u, 2, 100, "w1");
	r = row_of(&u, 100);
	CHECK(r && r->st.count == 2 && r->st.total_ns == 1200 && r->st.max_ns == 700 &&
	      !strcmp(r->comm, "w1"), "thread 100's row");
	begin(&u, 3, 101, "w2");	/* no end yet */
	end(&u, 4, 50);			/* no begin yet */
	lock_ujoin__pending(&u, &open, &unjoined);
	CHECK(open == 1 && unjoined == 1, "pending: %lu open, %lu unjoined",
	      (unsigned long)open, (unsigned long)unjoined);
	CHECK(!row_of(&u, 101), "a begin alone makes no row");
	end(&u, 3, 30);
	begin(&u, 4, 101, "w2");
	lock_ujoin__pending(&u, &open, &unjoined);
	CHECK(open == 0 && unjoined == 0, "nothing pending once both come");
	r = row_of(&u, 101);
	CHECK(r && r->st.count == 2 && r->st.total_ns == 80, "thread 101's row");

	/* 2,000 waits begun, then ended in reverse: every one joined once. */
	for (uint64_t s = 10; s < 2010; s++)
		begin(&u, s, 200 + (uint32_t)(s % 3), "many");
	for (uint64_t s = 2009; s >= 10; s--) {
		end(&u, s, s);
		sum += s;
	}
	lock_ujoin__pending(&u, &open, &unjoined);
	CHECK(open == 0 && unjoined == 0, "after the reversed ends: %lu open, %lu unjoined",
	      (unsigned long)open, (unsigned long)unjoined);
	CHECK_EQ(lock_table__sum_count(u.table), 4 + 2000);
	{
		uint64_t got = 0;

		for (uint32_t t = 200; t < 203; t++)
			got += (r = row_of(&u, t)) ? r->st.total_ns : 0;
		CHECK_EQ(got, sum);
	}
	CHECK_EQ(u.merged, 4 + 2000);

	lh->type = PERF_RECORD_LOST;
	lh->size = sizeof(lost);
	lock_ujoin__take(&u, lh);
	lock_ujoin__take(&u, lh);
	CHECK_EQ(u.lost_records, 10);
	CHECK_EQ(u.err, 0);
	teardown(&u);
	TEST_END();
}

static void test_filter_and_bad(void)
{
	/* -Y: only pthread rwlocks; these waits are plain futex waits. */
	struct lock_collect_cfg cfg = { .mode = LOCK_AGGR_TASK, .max_stack = 8,
					.type_mask = 1ULL << (LOCK_UTYPE_BIT + LOCK_U_RWLOCK_W) };
	struct lock_ucollect u = { 0 };
	struct lock_urec_end e = { .kind = LOCK_REC_UEND, .seq = 9, .ns = 1 };
	uint64_t open, unjoined;

	TEST_BEGIN("lock ujoin: -Y's filter counts, malformed records are ignored");
	if (!CHECK(!setup(&u, &cfg), "setup"))
		return;
	begin(&u, 1, 100, "w1");
	end(&u, 1, 500);
	CHECK_EQ(u.filtered, 1);
	CHECK_EQ(u.merged, 0);
	CHECK_EQ(lock_table__len(u.table), 0);
	/* A raw size past the record, and an end cut short: neither counts. */
	feed(&u, &e, sizeof(e), sizeof(e) + 64);
	feed(&u, &e, sizeof(e) - 8, sizeof(e) - 8);
	lock_ujoin__pending(&u, &open, &unjoined);
	CHECK(open == 0 && unjoined == 0, "malformed records left %lu, %lu",
	      (unsigned long)open, (unsigned long)unjoined);
	CHECK_EQ(u.err, 0);
	teardown(&u);
	TEST_END();
}

int main(void)
{
	test_join();
	test_filter_and_bad();
	TEST_EXIT();
}
