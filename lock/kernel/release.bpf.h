/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -o at release: the holders that released a lock during a wait, included
 * by lock.bpf.c only (after the rows' helpers: holder_row() makes rows as
 * new_row() does).  The release program's on_release(), the begin's
 * note_acquired() and track_releases(), the end's charge_releases().
 */
#ifndef FRUGAL_LOCK_RELEASE_BPF_H
#define FRUGAL_LOCK_RELEASE_BPF_H

/* ---- Holders at release (-o, where the kernel has lock:contended_release) ----
 *
 * A holder about to release a lock that has waiters fires
 * lock:contended_release, in its own context: it appends itself, the time
 * and when its hold began (SINCE) to the lock's ring (struct
 * lock_releases), if a traced task waits on that lock (its begin made the
 * entry).  SINCE is the lock's previous reported release, or its last
 * contended acquisition (any task's) if that came later: the kernel
 * reports a release only when a waiter sleeps in the lock's wait list,
 * not while all of them spin.  A wait's end reads the ring back from the newest
 * release to the first after its begin, and charges each holder its part
 * of the wait, from SINCE (or the wait's begin) to its release; the
 * newest one also the rest up to the end (the wake-up its release
 * caused).  The newest holder's share is the wait's main one, which goes
 * where an end's wait always goes (its row, or the buffers); each other
 * share adds to its holder's row and counts LC_SHARES.  What no kept
 * release covers (more releases than the ring keeps: LC_REL_LOST; a hold
 * whose release went unreported) is charged to the owner at the wait's
 * begin, and so is a wait no release ended (a spinning mutex waiter takes
 * the lock without one: LC_REL_NONE).
 */

/*
 * The holder's row, found or made, with its name; 1 + its index, or 0
 * when the table is full.  -v: its stack at its longest hold (HOLD) so
 * far, where it made waiters wait most: taken again only when a hold is
 * longer.  Only the holder's own task writes its row's definition.
 */
static __always_inline __u32 holder_row(void *ctx, __u32 pid, __u64 hold)
{
	struct lock_slot s = { .key = pid };
	struct lock_rec_def *d;
	__u32 *p = bpf_map_lookup_elem(&row_of, &s.key);

	if (p) {
		__u32 row = *p;

		d = bpf_map_lookup_elem(&row_defs, &row);
		if (owner_stacks && d && (hold > d->tail.owner.hold_ns || !d->tail.owner.stack[0])) {
			d->tail.owner.hold_ns = hold;
			if (bpf_get_stack(ctx, d->tail.owner.stack, sizeof(d->tail.owner.stack),
					  0) <= 0)
				d->tail.owner.stack[0] = 0;
		}
		return row + 1;
	}
	d = bpf_map_lookup_elem(&scratch, &(__u32){ SCRATCH_RELEASE });
	if (!d)
		return 0;
	d->key = pid;
	d->flags = LOCK_F_HOLDER;
	if (owner_stacks) {
		__builtin_memset(d->tail.owner.stack, 0, sizeof(d->tail.owner.stack));
		bpf_get_stack(ctx, d->tail.owner.stack, sizeof(d->tail.owner.stack), 0);
		bpf_get_current_comm(d->tail.owner.comm, sizeof(d->tail.owner.comm));
		d->tail.owner.hold_ns = hold;
	} else {
		bpf_get_current_comm(d->tail.comm, sizeof(d->tail.comm));
	}
	new_row(ctx, d, &s);
	return s.row;
}

static __always_inline void on_hold(void *ctx, struct lock_releases *rs, __u64 lock);

static __always_inline void on_release(void *ctx, __u64 lock)
{
	struct lock_releases *rs = bpf_map_lookup_elem(&releases, &lock);
	struct lock_release *r;
	__u32 pid, row, i;
	__u64 now, since;

	if (!rs)
		return;
	if (hold_mode) {
		on_hold(ctx, rs, lock);
		return;
	}
	pid = (__u32)bpf_get_current_pid_tgid();
	now = bpf_ktime_get_ns();
	since = __sync_lock_test_and_set(&rs->last, now);
	/* A hold began at the last contended acquisition, if that came later
	 * (the holder's own; or another's, whose release went unreported). */
	if (rs->acq_ts > since)
		since = rs->acq_ts;
	row = holder_row(ctx, pid, since ? now - since : 0);
	i = __sync_fetch_and_add(&rs->seq, 1);
	r = &rs->r[i & (LOCK_RELEASES - 1)];
	r->seq = 0;
	barrier();
	r->row = row;
	r->key = pid;
	r->ts = now;
	r->since = since;
	barrier();
	r->seq = i + 1;
	count(LC_RELEASES);
}

/*
 * At any task's end that took a lock a traced task waits on: a hold
 * begins now.  A release the kernel did not report before it (no waiter
 * slept in the wait list: a mutex's or an rwsem's waiters may all spin)
 * then does not stretch the next reported holder's share back over the
 * previous hold.
 */
static __always_inline void note_acquired(__u64 lock, __u64 now)
{
	struct lock_releases *rs = bpf_map_lookup_elem(&releases, &lock);

	if (!rs)
		return;
	rs->acq_ts = now;
	rs->acq_pid = (__u32)bpf_get_current_pid_tgid();
}

/* At a begin: the lock's entry, made if there is none, with its type. */
static __always_inline void track_releases(__u64 lock, __u32 flags)
{
	struct lock_releases *rs = bpf_map_lookup_elem(&releases, &lock);

	if (rs)
		return;
	if (bpf_map_update_elem(&releases, &lock, &no_releases, BPF_NOEXIST))
		return;
	rs = bpf_map_lookup_elem(&releases, &lock);
	if (!rs)
		return;
	rs->born = bpf_ktime_get_ns();
	rs->flags = flags;
}

/*
 * --hold: a traced task releases LOCK, contended, at NOW.  Its hold began
 * at its own contended acquisition, if the lock's last one was its (then
 * taken: one acquisition, one hold); else the acquisition was not seen
 * (uncontended, or before the start) and it is counted.  The row is
 * keyed as a wait's would be: the holder's stack here, its task, the
 * lock, its cgroup.
 */
static __always_inline void on_hold(void *ctx, struct lock_releases *rs, __u64 lock)
{
	__u32 pid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns(), t = rs->acq_ts, ns;
	struct lock_slot s = { .lock = lock, .flags = rs->flags };
	struct lock_rec_def *d;
	__u32 *p;

	if (!is_target())
		return;
	if (rs->acq_pid != pid || !t || t > now) {
		count(LC_HOLD_NO_ACQ);
		return;
	}
	rs->acq_pid = 0;
	ns = now - t;
	d = bpf_map_lookup_elem(&scratch, &(__u32){ SCRATCH_RELEASE });
	if (!d)
		return;
	switch (aggr_mode) {
	case LOCK_AGGR_CALLER:
		__builtin_memset(d->tail.stack, 0, sizeof(d->tail.stack));
		if (bpf_get_stack(ctx, d->tail.stack, sizeof(d->tail.stack), 0) <= 0)
			count(LC_STACK_FAIL);
		s.key = hash_stack(d->tail.stack);
		break;
	case LOCK_AGGR_TASK:
		s.key = pid;
		break;
	case LOCK_AGGR_ADDR:
		s.key = lock;
		break;
	default:
		s.key = bpf_get_current_cgroup_id();
		break;
	}
	p = bpf_map_lookup_elem(&row_of, &s.key);
	if (p) {
		s.row = *p + 1;
	} else {
		d->key = s.key;
		d->flags = s.flags;
		new_row(ctx, d, &s);
	}
	if (s.row && row_add(s.row - 1, ns, s.flags))
		return;
	{
		struct lock_rec_wait r = { .kind = LOCK_REC_WAIT, .flags = s.flags, .key = s.key,
					   .ns = ns };

		count(bpf_perf_event_output(ctx, &bufs, BPF_F_CURRENT_CPU, &r, sizeof(r)) ?
		      LC_HOLD_LOST : LC_HOLD_SENT);
	}
}

/* A wait's shares: the first one found (the newest holder's) is the main
 * one, the others go to their holders' rows, or into the main one when a
 * holder has no row (the table full) or the program is nested. */
struct shares {
	__u64 main_ns, folded;
	__u32 main_row, main_key;
	bool have_main;
};

static __always_inline void share(struct shares *sh, __u32 row, __u32 key, __u64 ns,
				  __u32 flags, __u32 nest)
{
	if (!sh->have_main) {
		sh->have_main = true;
		sh->main_row = row;
		sh->main_key = key;
		sh->main_ns = ns;
	} else if (!nest && row && row_add(row - 1, ns, flags)) {
		count(LC_SHARES);
	} else {
		sh->folded += ns;
	}
}

/*
 * The end of wait S at NOW: its holders at release.  S's row and key
 * become the main share's, *NS its length; unchanged when no release
 * ended the wait.
 */
static __always_inline void charge_releases(struct lock_slot *s, __u64 now, __u64 *ns, __u32 nest)
{
	struct lock_releases *rs = bpf_map_lookup_elem(&releases, &s->lock);
	__u32 head, k, flags = s->flags & LCB_F_MASK;
	__u64 ts = 0, known = 0, wait = now - s->ts;
	struct shares sh = {};
	bool lost = false;

	if (!rs || rs->born > s->ts) {
		count(LC_REL_LOST);
		return;
	}
	head = *(volatile __u32 *)&rs->seq;
	for (k = 0; k < LOCK_RELEASES; k++) {
		__u32 idx = head - 1 - k, sq, row, key;
		struct lock_release *r = &rs->r[idx & (LOCK_RELEASES - 1)];
		__u64 since, part;

		if (k >= head)
			break;
		sq = *(volatile __u32 *)&r->seq;
		barrier();
		ts = r->ts;
		since = r->since;
		row = r->row;
		key = r->key;
		barrier();
		if (sq != *(volatile __u32 *)&r->seq || sq == 0)
			continue;	/* a holder writes it now: after our end began */
		if (sq != idx + 1) {
			lost = true;	/* written over: more releases than kept */
			break;
		}
		if (ts <= s->ts)
			break;		/* before the wait */
		if (ts > now)
			continue;	/* released after our end began */
		if (since < s->ts)
			since = s->ts;
		part = ts > since ? ts - since : 0;
		if (!sh.have_main)
			part += now - ts;
		known += part;
		share(&sh, row, key, part, flags, nest);
	}
	/* All kept releases fell inside the wait: older ones may too. */
	if (k == LOCK_RELEASES && head > LOCK_RELEASES && ts > s->ts)
		lost = true;
	count(lost ? LC_REL_LOST : sh.have_main ? LC_REL_SEEN : LC_REL_NONE);
	if (!sh.have_main)
		return;
	/* What no kept release covers (releases lost, or a hold whose
	 * release the kernel did not report): the owner at the begin's. */
	if (known < wait)
		share(&sh, s->row, (__u32)s->key, wait - known, flags, nest);
	s->row = sh.main_row;
	s->key = sh.main_key;
	*ns = sh.main_ns + sh.folded;
}

#endif
