// SPDX-License-Identifier: GPL-2.0
/*
 * -U's join: a wait's begin record (registers and stack, unwound and named
 * at once, while the process is surely alive) and its end record (the
 * time), by sequence number.  The two come through different CPUs'
 * buffers when the waiter migrated, so either may come first; a half
 * waits in a table until the other comes.  A row's definition (flags and
 * tail) is kept by key across -I's tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <linux/perf_event.h>

#include <bpf/bpf.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lock/request/request.h"
#include "lock/rows/rows.h"
#include "lock/user/ucollect_int.h"
#include "lock/user/user.h"
#include "lock/user/futex.skel.h"

#define FUTEX_LOCK_PI		6
#define FUTEX_WAIT_REQUEUE_PI	11
#define FUTEX_LOCK_PI2		13

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

/* ---- the pending halves, by sequence number ---- */

/* The pending half of SEQ, or NULL; P then says where it was found. */
static struct pend *pend_find(struct lock_ucollect *u, uint64_t seq, struct idxmap_probe *p)
{
	uint32_t i;

	idxmap__for_each_candidate(&u->pend_map, seq, p, i)
		if (u->pend[i].seq == seq)
			return &u->pend[i];
	return NULL;
}

/* A new pending entry of SEQ, zeroed: a freed one reused, else one more. */
static struct pend *pend_add(struct lock_ucollect *u, uint64_t seq)
{
	uint32_t i;

	if (u->nr_free) {
		i = u->pend_free[u->nr_free - 1];
	} else {
		if (array__grow(&u->pend, &u->pend_cap, u->nr_pend + 1, sizeof(*u->pend), 1024))
			return NULL;
		i = u->nr_pend;
	}
	if (idxmap__add(&u->pend_map, seq, i))
		return NULL;
	if (u->nr_free)
		u->nr_free--;
	else
		u->nr_pend++;
	memset(&u->pend[i], 0, sizeof(u->pend[i]));
	u->pend[i].seq = seq;
	return &u->pend[i];
}

/* The entry P found, removed: its index goes to the free list.  0 or -ENOMEM. */
static int pend_del(struct lock_ucollect *u, struct pend *e, const struct idxmap_probe *p)
{
	if (array__grow(&u->pend_free, &u->free_cap, u->nr_free + 1, sizeof(*u->pend_free),
			1024))
		return -ENOMEM;
	idxmap__probe_del(&u->pend_map, p);
	e->seq = 0;
	u->pend_free[u->nr_free++] = e - u->pend;
	return 0;
}

/* ---- row definitions, by key ---- */

static struct udef *def_at(struct lock_ucollect *u, size_t i)
{
	return (struct udef *)(u->defs + i * u->def_size);
}

static struct udef *def_find(struct lock_ucollect *u, uint64_t key, struct idxmap_probe *p)
{
	uint32_t i;

	idxmap__for_each_candidate(&u->def_map, key, p, i)
		if (def_at(u, i)->key == key)
			return def_at(u, i);
	return NULL;
}

static int def_put(struct lock_ucollect *u, uint64_t key, uint32_t flags, const void *tail)
{
	struct idxmap_probe p;
	struct udef *d;

	if (idxmap__reserve(&u->def_map, 1))
		return -ENOMEM;
	if (def_find(u, key, &p))
		return 0;
	if (array__grow(&u->defs, &u->cap_defs, u->nr_defs + 1, u->def_size, 64))
		return -ENOMEM;
	d = def_at(u, u->nr_defs);
	d->key = key;
	d->flags = flags;
	memcpy(d->tail, tail, u->tail_size);
	idxmap__probe_put(&u->def_map, &p, u->nr_defs++);
	return 0;
}

/* ---- records ---- */

static int add_wait(struct lock_ucollect *u, uint64_t key, uint32_t flags, uint64_t ns)
{
	struct lock_stat st = { ns, ns, ns, 1, flags };
	struct idxmap_probe p;
	struct udef *d = def_find(u, key, &p);

	u->merged++;
	return lock_table__add(u->table, key, &st, d && u->tail_size ? d->tail : NULL,
			       u->tail_size);
}

/*
 * How much of a process's stack the next waits copy: twice what unwinding
 * read so far, in 512-byte steps, never less than before; the whole
 * --user-stack-size once an unwind ran past a copy.  An 8 KB copy costs
 * ~4.8 us at the wait's entry here; a fixture's 300-byte stacks ~1 us.
 */
static void copy_hint(struct lock_ucollect *u, const struct lock_urec_begin *r,
		      uint32_t reach, bool overrun)
{
	uint32_t full = u->cfg->ustack_size, cur = full, want;
	int fd;

	if (!u->skel)		/* the join driven alone (its unit test): no programs */
		return;
	fd = bpf_map__fd(u->skel->maps.ucopy);
	if (bpf_map_lookup_elem(fd, &r->tgid, &cur))
		cur = 0;	/* no hint yet: the full size was copied */
	want = overrun ? full : ((reach * 2 + 511) & ~511U);
	if (want > full)
		want = full;
	if (want < 512)
		want = 512;
	if (cur && want <= cur)
		return;
	if (!bpf_map_update_elem(fd, &r->tgid, &want, BPF_ANY))
		cli_log("lock: -U: process %u: %u bytes of stack a wait (%u read)\n",
			r->tgid, want, reach);
}

static uint64_t key_of_stack(const uint64_t *frames, unsigned int n, enum lock_utype ty)
{
	uint64_t h = hash64(ty + 1);
	unsigned int i;

	for (i = 0; i < n; i++)
		h = hash64(h ^ frames[i]) + i;
	return h ? h : 1;
}

/*
 * One half of a wait (its begin: KEY, FLAGS, FILTERED; its end: NS): with
 * the other half already here, the wait goes to its row (or to -Y's
 * count); alone, it waits for the other.
 */
static void half(struct lock_ucollect *u, uint64_t seq, uint8_t state, uint64_t key,
		 uint32_t flags, bool filtered, uint64_t ns)
{
	struct idxmap_probe hp;
	struct pend *p = pend_find(u, seq, &hp);

	if (p && p->state != state) {
		if ((u->err = pend_del(u, p, &hp)))
			return;
		if (state == P_END) {
			key = p->key;
			flags = p->flags;
			filtered = p->filtered;
		} else {
			ns = p->ns;
		}
		if (filtered)
			u->filtered++;
		else
			u->err = add_wait(u, key, flags, ns);
		return;
	}
	p = pend_add(u, seq);
	if (!p) {
		u->err = -ENOMEM;
		return;
	}
	*p = (struct pend){ .seq = seq, .key = key, .ns = ns, .flags = flags, .state = state,
			    .filtered = filtered };
}

static void on_begin(struct lock_ucollect *u, const struct lock_urec_begin *r)
{
	const struct lock_collect_cfg *cfg = u->cfg;
	uint64_t frames[LOCK_MAX_STACK] = { 0 }, key = 0;
	unsigned char tail[LOCK_MAX_STACK * sizeof(uint64_t)] = { 0 };
	unsigned int max = cfg->max_stack < LOCK_MAX_STACK ? cfg->max_stack : LOCK_MAX_STACK;
	enum lock_utype ty;
	uint32_t flags, reach;
	bool overrun;
	bool filtered;
	int n;

	n = lock_ustacks__unwind(u->st, r, frames, max, &ty, &reach, &overrun);
	if (n < 0) {
		u->err = n;
		return;
	}
	copy_hint(u, r, reach, overrun);
	if (ty == LOCK_U_NR)
		ty = r->op == FUTEX_LOCK_PI || r->op == FUTEX_LOCK_PI2 ||
		     r->op == FUTEX_WAIT_REQUEUE_PI ? LOCK_U_FUTEX_PI : LOCK_U_FUTEX;
	flags = LOCK_F_USER | (uint32_t)ty << LOCK_UTYPE_SHIFT;
	filtered = cfg->type_mask && !(cfg->type_mask & (1ULL << (LOCK_UTYPE_BIT + ty)));
	switch (cfg->mode) {
	case LOCK_AGGR_CALLER:
		key = key_of_stack(frames, n, ty);
		memcpy(tail, frames, max * sizeof(uint64_t));
		break;
	case LOCK_AGGR_TASK:
		key = LOCK_KEY_USER | r->tid;
		memcpy(tail, r->comm, LOCK_COMM_LEN);
		tail[LOCK_COMM_LEN - 1] = '\0';
		break;
	case LOCK_AGGR_ADDR:
		key = LOCK_KEY_USER | (uint64_t)(r->tgid & 0x3fff) << 48 |
		      (r->uaddr & LOCK_KEY_UADDR);
		lock_ustacks__data_name(u->st, r, (char *)tail, LOCK_SLAB_LEN);
		break;
	case LOCK_AGGR_CGROUP:
		key = LOCK_KEY_USER | r->cgroup;
		break;
	}
	if (!filtered && (u->err = def_put(u, key, flags, tail)))
		return;
	half(u, r->seq, P_BEGIN, key, flags, filtered, 0);
}

static void on_end(struct lock_ucollect *u, const struct lock_urec_end *e)
{
	half(u, e->seq, P_END, 0, 0, false, e->ns);
}

void lock_ujoin__init(struct lock_ucollect *u, const struct lock_collect_cfg *cfg)
{
	u->cfg = cfg;
	u->tail_size = cfg->mode == LOCK_AGGR_CALLER ? cfg->max_stack * sizeof(uint64_t) :
		       cfg->mode == LOCK_AGGR_TASK ? LOCK_COMM_LEN :
		       cfg->mode == LOCK_AGGR_ADDR ? LOCK_SLAB_LEN : 0;
	u->def_size = (sizeof(struct udef) + u->tail_size + 7) & ~(size_t)7;
}

/* One record of the buffers: the program's, or the kernel's count of lost ones. */
void lock_ujoin__take(struct lock_ucollect *u, const struct perf_event_header *h)
{
	const struct { struct perf_event_header h; uint32_t size; char data[]; } *raw = (void *)h;
	const struct { struct perf_event_header h; uint64_t id, lost; } *lost = (void *)h;
	struct lock_urec_begin *b = u->rec;

	if (h->type == PERF_RECORD_LOST && h->size >= sizeof(*lost)) {
		u->lost_records += lost->lost;
		return;
	}
	if (h->type != PERF_RECORD_SAMPLE || h->size < sizeof(*raw) ||
	    raw->size > h->size - sizeof(*raw) || raw->size < sizeof(uint32_t) ||
	    raw->size > sizeof(*b))
		return;
	/* The raw data sits 4 bytes into an 8-byte aligned record: copied to
	 * aligned storage before its 64-bit fields are read. */
	memcpy(b, raw->data, raw->size);
	if (b->kind == LOCK_REC_UPROC && raw->size >= sizeof(struct lock_urec_proc)) {
		const struct lock_urec_proc *pr = (const void *)b;

		u->err = lock_ustacks__proc(u->st, pr->tgid, pr->mm);
	} else if (b->kind == LOCK_REC_UBEGIN && raw->size >= offsetof(struct lock_urec_begin, stack) &&
	    b->stack_size <= raw->size - offsetof(struct lock_urec_begin, stack))
		on_begin(u, b);
	else if (b->kind == LOCK_REC_UEND && raw->size >= sizeof(struct lock_urec_end))
		on_end(u, (const void *)b);
}

void lock_ujoin__pending(const struct lock_ucollect *u, uint64_t *open, uint64_t *unjoined)
{
	size_t k;

	*open = *unjoined = 0;
	for (k = 0; k < u->nr_pend; k++) {
		if (!u->pend[k].seq)
			continue;
		if (u->pend[k].state == P_BEGIN)
			(*open)++;
		else
			(*unjoined)++;
	}
}

void lock_ujoin__free(struct lock_ucollect *u)
{
	free(u->pend);
	free(u->pend_free);
	free(u->defs);
	idxmap__free(&u->pend_map);
	idxmap__free(&u->def_map);
	u->pend = NULL;
	u->pend_free = NULL;
	u->defs = NULL;
}
