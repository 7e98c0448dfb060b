/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The begin program's stack walker, included by lock.bpf.c only (after its
 * maps, its small helpers and objdesc.bpf.h; its bpf_loop bodies keep their
 * place in the object): the frame-size facts and their maps, the walk, the
 * learning from the kernel's unwinds, and get_stack(), which the begin's
 * key_of() calls.  Why it walks: the comment below.
 */
#ifndef FRUGAL_LOCK_WALKER_BPF_H
#define FRUGAL_LOCK_WALKER_BPF_H

/*
 * The stack walker.  Unwinding is most of an event's cost: the kernel's ORC
 * unwinder spends ~100 ns a frame, on the helper's and the tracepoint's
 * frames too.  But where the caller's return address sits above it is, for
 * almost every kernel function, a constant of the code at that address: the
 * size of the frame.  We learn those sizes from the kernel's own unwinds -
 * the positions of consecutive frames in a window of the stack - and then
 * walk: read a return address, look up its frame size, step, read the next.
 * A fact is walked only once a second unwind has confirmed it.  A frame seen
 * with two different sizes whose caller stayed at the same distance from the
 * stack's top is the system call entry's (do_syscall_64, which the kernel's
 * random stack offset resizes on every call, under the entry code's frame
 * right below pt_regs): its caller is taken from that place.  Any other
 * frame seen with two sizes is frame pointer based (a realigned stack,
 * alloca): its caller's slot is found through the %rbp saved below it, at a
 * place that depends on the code under it, so that place is learned per
 * path (a hash of the frames up to it) and confirmed the same way; a path
 * where even that varies is marked dynamic and never walked through.  Any
 * frame not learned yet sends the event back to the kernel's unwinder,
 * which teaches us more.  --stack-check unwinds every time anyway and
 * counts the walked stacks that differ.
 *
 * A fact is one u64, so that CPUs learning at once cannot tear it: the low
 * half of the return address (kernel text is in the top 2 GB, whose high
 * half is all ones), the frame size in words, the caller's distance from
 * the stack's top, and flags.
 */
#define FACT_END	1ULL	/* the stack ends after this frame */
#define FACT_DYNAMIC	2ULL	/* the size was seen to vary: do not walk */
#define FACT_TOP	4ULL	/* the caller's slot is a fixed number of words
				 * below the stack's top (FACT_DIST): the entry
				 * frame, whose size the kernel randomizes */
#define FACT_BOTH	8ULL	/* a size, only ever seen with the caller at
				 * FACT_DIST: walked only where both agree */
#define FACT_NEW	16ULL	/* seen once: not walked until seen again */
#define FACT_BP		32ULL	/* frame pointer based (a realigned stack): the
				 * caller's slot is found through the %rbp saved
				 * below, at a place a path fact gives */
/* Bits 8-15: the caller's slot's distance in words from the stack's top
 * when it was first seen, 0 if farther than 255. */
#define FACT_DIST(f)	(((f) >> 8) & 0xff)
#define TEXT_MIN	0xffffffff80000000ULL

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LOCK_FRAME_FACTS);
	__type(key, __u32);
	__type(value, __u64);
} frame_facts SEC(".maps");

/*
 * Path facts, for frame pointer based frames: where below the frame's slot
 * its %rbp was saved depends on the code under it (who saved it), so it is
 * keyed by a hash of every frame from the tracepoint up to this one, and
 * holds [hash's low half | words below | flags].
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LOCK_FRAME_FACTS);
	__type(key, __u32);
	__type(value, __u64);
} path_facts SEC(".maps");

static __always_inline __u64 path_mix(__u64 h, __u64 ip)
{
	h = (h ^ ip) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

#define PATH_SEED	0x9e3779b97f4a7c15ULL

struct stack_window {
	__u64 w[LOCK_STACK_WINDOW / 8];
};

/* One per CPU for each program of a pair (the second can interrupt the first). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct stack_window);
} window SEC(".maps");

/*
 * What lies below the window is the same code every time (the program and
 * bpf_trace_run*): the frames the unwinder reports there, and the window
 * word holding the first frame above (the tracepoint's call site, or the
 * tracepoint iterator's when several probes are attached), learned once.  walk_off: they were
 * seen to differ, so walking is off.
 */
__u32 first_slot;		/* 1 + window word of the first frame; 0: unknown */
__u32 nr_below;
__u64 below[2];
bool walk_off;

static __always_inline __u32 fact_index(__u64 ip)
{
	return (ip * 0x9e3779b97f4a7c15ULL) >> 52;	/* 4096 entries */
}

/*
 * Facts sit in buckets of two slots (an index and its neighbour), so that
 * two frames whose addresses hash alike both keep theirs.  With one slot
 * each, Debian's 7.3 build has two of the busiest frames of an mmap_lock
 * wait (rwsem_down_write_slowpath+0x4dd and vm_mmap_pgoff+0xe0) on one
 * index, whatever the KASLR offset: each unwind erased the other's fact
 * and a third of the stacks went back to the kernel's unwinder.
 *
 * fact_find: KEY's slot in MAP (frame_facts by address, path_facts by path
 * hash), or NULL.  fact_claim: that slot, else an empty one, else one whose
 * fact is not confirmed yet, else the first: the caller writes KEY's fact
 * there (a slot holding another key's reads as no fact).
 */
static __always_inline __u64 *fact_find(void *map, __u64 key)
{
	__u32 idx = fact_index(key), idx2 = idx ^ 1;
	__u64 *f = bpf_map_lookup_elem(map, &idx);

	if (f && *f >> 32 == (key & 0xffffffff))
		return f;
	f = bpf_map_lookup_elem(map, &idx2);
	return f && *f >> 32 == (key & 0xffffffff) ? f : NULL;
}

static __always_inline __u64 *fact_claim(void *map, __u64 key)
{
	__u32 idx = fact_index(key), idx2 = idx ^ 1;
	__u64 *f = bpf_map_lookup_elem(map, &idx), *g = bpf_map_lookup_elem(map, &idx2);

	if (!f || !g)
		return NULL;
	if (*f >> 32 == (key & 0xffffffff))
		return f;
	if (*g >> 32 == (key & 0xffffffff))
		return g;
	if (!*f)
		return f;
	if (!*g)
		return g;
	return (*f & FACT_NEW) || !(*g & FACT_NEW) ? f : g;
}

static __always_inline __u64 fact_make(__u64 ip, __u32 words, __u64 flags)
{
	return ip << 32 | (__u64)(words & 0xffff) << 16 | flags;
}

struct where {
	__u64 sp;		/* the tracepoint's arguments */
	__u64 stk;		/* the current task's stack; 0: unknown */
};

/* Where the window starts (above the tracepoint's two arguments) and how
 * many words of it lie on this task's stack; 0 when on another stack (an
 * interrupt's: the frames beyond it are elsewhere). */
static __always_inline __u32 window_of(const struct where *w, __u64 *basep, __u32 *topp)
{
	__u64 base = w->sp + 2 * sizeof(__u64), stk = w->stk;
	__u64 left;

	if (!stk || base < stk || base >= stk + LOCK_THREAD_SIZE)
		return 0;
	left = (stk + LOCK_THREAD_SIZE - base) / 8;
	*basep = base;
	*topp = left;		/* words from the window's start to the stack's top */
	return left < LOCK_STACK_WINDOW / 8 ? left : LOCK_STACK_WINDOW / 8;
}

/* A walk's state, shared by the turns of its loop. */
struct walk_ctx {
	__u64 *stack;
	__u64 base, path;
	__u32 top, pos;
	__u32 n;		/* frames walked, when the stack ended sooner */
	bool failed;
};

/*
 * bpf_loop body: frame K.  A loop body rather than an unrolled loop: the
 * verifier then checks one frame, not every combination of fact kinds over
 * max_stack frames (which made loading take ~100 ms).
 *
 * The body never branches on a value an earlier turn of it wrote that
 * started as a constant: a verifier before Linux 6.7 checks a callback
 * once, from the state of its first call, and removes as dead a branch
 * that state cannot take.  An "ended" flag read here was exactly that on
 * 6.1: its branch was gone, and the walk wrote the stack's last frame
 * into every slot after it.  So the end stops the loop, and walk_stack
 * zeroes the rest.
 */
static long walk_frame(__u64 k, struct walk_ctx *w)
{
	__u64 ip = 0, fact, *f, *out;
	__u32 words, pos = w->pos;

	if (k >= LOCK_MAX_STACK || k >= max_stack)
		return 1;
	out = &w->stack[k & (LOCK_MAX_STACK - 1)];
	if (k < nr_below) {
		*out = below[k & 1];
		w->path = path_mix(w->path, *out);
		return 0;
	}
	if (pos >= w->top || bpf_probe_read_kernel(&ip, sizeof(ip), (void *)(w->base + pos * 8)) ||
	    ip < TEXT_MIN)
		goto fail;
	*out = ip;
	w->path = path_mix(w->path, ip);
	if (k + 1 >= max_stack)
		return 1;
	f = fact_find(&frame_facts, ip);
	if (!f)
		goto fail;
	fact = *f;
	if (fact >> 32 != (ip & 0xffffffff) || (fact & (FACT_DYNAMIC | FACT_NEW)))
		goto fail;
	if (fact & FACT_END) {
		w->n = k + 1;
		return 1;
	}
	words = (fact >> 16) & 0xffff;
	if (!words)
		goto fail;
	if (fact & FACT_BP) {
		__u64 pf, *p, bp = 0;

		p = fact_find(&path_facts, w->path);
		if (!p)
			goto fail;
		pf = *p;
		if (pf >> 32 != (w->path & 0xffffffff) || (pf & (FACT_DYNAMIC | FACT_NEW)))
			goto fail;
		words = (pf >> 16) & 0xffff;
		if (!words || words > pos ||
		    bpf_probe_read_kernel(&bp, sizeof(bp), (void *)(w->base + (pos - words) * 8)))
			goto fail;
		if (bp < w->base + pos * 8 || bp >= w->base + w->top * 8 || (bp & 7))
			goto fail;
		w->pos = (bp - w->base) / 8 + 1;
	} else if (fact & (FACT_TOP | FACT_BOTH)) {
		__u32 d = FACT_DIST(fact);

		if (!d || d >= w->top - pos || ((fact & FACT_BOTH) && pos + words != w->top - d))
			goto fail;
		w->pos = w->top - d;
	} else {
		w->pos = pos + words;
	}
	return 0;
fail:
	w->failed = true;
	return 1;
}

/* bpf_loop body: zero the I'th slot after the walk's last frame. */
static long zero_frame(__u64 i, struct walk_ctx *w)
{
	w->stack[(w->n + i) & (LOCK_MAX_STACK - 1)] = 0;
	return 0;
}

/*
 * Walk max_stack frames into STACK with the learned facts.  False when a
 * frame is not known (or dynamic), or the walk would leave the task's stack
 * (the window bounds only the learning: a deep stack's outer frames are
 * walked with facts learned where the stack was shallower).
 */
static __always_inline bool walk_stack(__u64 base, __u32 top, __u64 *stack)
{
	struct walk_ctx w = { .stack = stack, .base = base, .top = top, .pos = first_slot - 1,
			      .path = PATH_SEED, .n = LOCK_MAX_STACK };

	if (!first_slot || walk_off || nr_below > 2)
		return false;
	bpf_loop(LOCK_MAX_STACK, walk_frame, &w, 0);
	if (w.failed)
		return false;
	if (w.n < max_stack)
		bpf_loop(max_stack - w.n, zero_frame, &w, 0);
	return true;
}

struct find_ctx {
	const struct stack_window *win;
	__u64 v;
	__u32 from, to;
	__u32 last;			/* not bool: the verifier wants 0 or 1 back */
	__s32 at;			/* out: the word holding v, or -1 */
};

static long find_word(__u64 j, struct find_ctx *c)
{
	__u64 i = c->from + j;

	if (i >= LOCK_STACK_WINDOW / 8 || i >= c->to)
		return 1;
	if (c->win->w[i] == c->v) {
		c->at = i;
		return c->last ? 0 : 1;
	}
	return 0;
}

/*
 * The first (or, with LAST, the last) window word in [FROM, TO) holding V,
 * or -1.  A global function: the verifier checks it once, not at each of
 * its callers (which made loading slow).
 */
__noinline int window_find(const struct stack_window *win, __u64 v, __u32 from, __u32 to,
			   bool last)
{
	struct find_ctx c = { .win = win, .v = v, .from = from, .to = to, .last = last,
			      .at = -1 };

	if (!win || from >= LOCK_STACK_WINDOW / 8)
		return -1;
	bpf_loop(LOCK_STACK_WINDOW / 8, find_word, &c, 0);
	return c.at;
}

/* The slot of IP's caller by FACT, from IP's slot AT; -1 if it says nothing. */
/* Where the window lies: its first byte's address, its words, the words to
 * the stack's top.  Passed by pointer to the global functions below. */
struct window_geo {
	__u64 base;
	__u64 path;		/* hash of the frames up to the one being learned */
	__u32 nw, top;
};

static __always_inline __s32 follow_fact(const struct stack_window *win,
					 const struct window_geo *g, __u64 fact, __s32 at)
{
	__u32 words = (fact >> 16) & 0xffff;

	if (fact & (FACT_DYNAMIC | FACT_END) || !words)
		return -1;
	if (fact & FACT_BP) {
		__u64 *p = fact_find(&path_facts, g->path), pf, bp;

		if (!p)
			return -1;
		pf = *p;
		words = (pf >> 16) & 0xffff;
		if (pf >> 32 != (g->path & 0xffffffff) || (pf & FACT_DYNAMIC) || !words ||
		    words > at)
			return -1;
		bp = win->w[(at - words) & (LOCK_STACK_WINDOW / 8 - 1)];
		if (bp < g->base || (bp & 7) || (bp - g->base) / 8 + 1 >= g->nw)
			return -1;
		return (bp - g->base) / 8 + 1;
	}
	if (fact & (FACT_TOP | FACT_BOTH)) {
		__u32 d = FACT_DIST(fact), next = g->top - d;

		if (!d || d >= g->top - at || next >= g->nw ||
		    ((fact & FACT_BOTH) && at + words != next))
			return -1;
		return next;
	}
	return at + words < g->nw ? at + words : -1;
}

/* FACT_DIST's bits for a caller found in window word NEXT. */
static __always_inline __u64 dist_bits(const struct window_geo *g, __s32 next)
{
	__u32 d = g->top - next;

	return d <= 0xff ? (__u64)d << 8 : 0;
}

/* Learn (or confirm, or refute) where frame AT's %rbp was saved, for the
 * path in G; NEXT is its caller's slot. */
static __always_inline void learn_path(const struct stack_window *win,
				       const struct window_geo *g, __s32 at, __s32 next)
{
	__u64 *p = fact_claim(&path_facts, g->path), pf;
	__s32 saved;

	if (!p)
		return;
	saved = window_find(win, g->base + (next - 1) * 8, 0, at, true);
	pf = *p;
	if (pf >> 32 != (g->path & 0xffffffff))
		pf = 0;
	if (saved < 0) {
		if (pf)
			*p = pf | FACT_DYNAMIC;
		return;
	}
	if (!pf)
		*p = fact_make(g->path, at - saved, FACT_NEW);
	else if (((pf >> 16) & 0xffff) == at - saved)
		*p = pf & ~FACT_NEW;
	else
		*p = pf | FACT_DYNAMIC;
}

/*
 * IP's return address is in window word AT and its caller's (WANT) is the
 * next frame: return WANT's word.  A learned fact that fits is followed (and
 * so confirmed); else WANT is looked for, and learned from only if it is
 * there once (a stale copy of a return address in some frame's unused slot
 * must not teach a wrong size).  A size that no longer fits makes the frame
 * frame pointer based, its saved %rbp's place learned per path; unless the
 * caller stayed at the same place below the stack's top: then the frame is
 * the system call entry's (do_syscall_64), which the kernel's random stack
 * offset resizes on every call while its caller, the entry code right below
 * pt_regs, never moves.  A size seen twice with the caller at the same place
 * both times may be such a frame seen twice with the same offset (1 in 64):
 * it is walked only where the size and the place agree.  -1: stop.
 */
__noinline int learn_frame(const struct stack_window *win, const struct window_geo *g,
			   __u64 ip, int at, __u64 want)
{
	__u64 *f = fact_claim(&frame_facts, ip), fact;
	__s32 next, again;

	/* A global function, checked once by the verifier (see window_find). */
	if (!f || !win || !g || at < 0 || at >= LOCK_STACK_WINDOW / 8)
		return -1;
	fact = *f;
	if (fact >> 32 != (ip & 0xffffffff))
		fact = 0;
	next = fact ? follow_fact(win, g, fact, at) : -1;
	if (next > at && win->w[next & (LOCK_STACK_WINDOW / 8 - 1)] == want) {
		if (fact & FACT_BP)
			learn_path(win, g, at, next);	/* confirms it */
		else if ((fact & (FACT_NEW | FACT_TOP)) == FACT_NEW && FACT_DIST(fact) &&
			 dist_bits(g, next) >> 8 == FACT_DIST(fact))
			*f = (fact & ~FACT_NEW) | FACT_BOTH;	/* a size, or a place? */
		else if (fact & FACT_NEW)
			*f = fact & ~FACT_NEW;		/* confirmed */
		return next;
	}
	if (fact & FACT_DYNAMIC)
		return -1;
	if (want < TEXT_MIN)
		return -1;
	next = window_find(win, want, at + 1, g->nw, false);
	if (next < 0)
		return -1;
	again = window_find(win, want, next + 1, g->nw, false);
	if (again >= 0)
		return -1;
	if (!fact) {
		*f = fact_make(ip, next - at, FACT_NEW | dist_bits(g, next));
	} else if (fact & FACT_BP) {
		learn_path(win, g, at, next);		/* a new path, or refuted */
	} else if (!(fact & FACT_TOP) && ((fact >> 16) & 0xffff) == next - at) {
		*f = fact_make(ip, next - at, 0);	/* FACT_BOTH, and the place moved */
	} else if (!(fact & FACT_TOP) && FACT_DIST(fact) &&
		   dist_bits(g, next) >> 8 == FACT_DIST(fact)) {
		/* Two sizes, one place: the entry frame. */
		*f = fact_make(ip, 1, FACT_TOP | FACT_NEW | dist_bits(g, next));
	} else {
		/* Two sizes (or a place that moved): frame pointer based. */
		*f = fact_make(ip, 1, FACT_BP);
		learn_path(win, g, at, next);
	}
	return next;
}

static __always_inline void learn_end(__u64 ip)
{
	__u64 *f = fact_claim(&frame_facts, ip);

	if (!f)
		return;
	if (*f >> 32 != (ip & 0xffffffff))
		*f = fact_make(ip, 0, FACT_END | FACT_NEW);
	else if (!(*f & FACT_END))
		*f |= FACT_DYNAMIC;
	else
		*f &= ~FACT_NEW;
}

struct learn_ctx {
	const struct stack_window *win;
	const __u64 *stack;
	struct window_geo geo;
	__u32 k0, n;
	__s32 at;
};

/* bpf_loop body: learn the frame after frame k0 + i (see walk_frame). */
static long learn_one(__u64 i, struct learn_ctx *c)
{
	__u64 k = c->k0 + i;

	if (k + 1 >= c->n || k + 1 >= LOCK_MAX_STACK)
		return 1;
	c->geo.path = path_mix(c->geo.path, c->stack[k & (LOCK_MAX_STACK - 1)]);
	c->at = learn_frame(c->win, &c->geo, c->stack[k & (LOCK_MAX_STACK - 1)], c->at,
			    c->stack[(k + 1) & (LOCK_MAX_STACK - 1)]);
	return c->at < 0;
}

/*
 * Learn from an unwound STACK of N frames: find the first one in the window
 * (the frames below it are the same code every time), then each next one.
 */
static __always_inline void learn_stack(__u64 base, __u32 nw, __u32 top,
					const __u64 *stack, __u32 n, __u32 nest)
{
	__u32 k0, bytes = nw * 8;
	struct stack_window *win = bpf_map_lookup_elem(&window, &(__u32){ nest });
	struct learn_ctx lc;
	__s32 at = -1;

	if (!win || n > LOCK_MAX_STACK || n > max_stack)
		return;
	if (bytes > LOCK_STACK_WINDOW)
		bytes = LOCK_STACK_WINDOW;
	if (bytes < 8 || bpf_probe_read_kernel(win->w, bytes, (void *)base))
		return;
	for (k0 = 0; k0 < 3 && k0 < n; k0++) {
		at = stack[k0] >= TEXT_MIN ? window_find(win, stack[k0], 0, nw, false) : -1;
		if (at >= 0)
			break;
	}
	if (at < 0 || k0 > 2)
		return;
	if (!first_slot) {
		nr_below = k0;
		below[0] = k0 > 0 ? stack[0] : 0;
		below[1] = k0 > 1 ? stack[1] : 0;
		first_slot = at + 1;
	} else if (first_slot != at + 1 || nr_below != k0 ||
		   (k0 > 0 && below[0] != stack[0]) || (k0 > 1 && below[1] != stack[1])) {
		walk_off = true;
		return;
	}
	lc = (struct learn_ctx){ .win = win, .stack = stack, .k0 = k0, .n = n, .at = at,
				 .geo = { .base = base, .nw = nw, .top = top } };
	/* The path hash covers the frames below the window too, as the walk's. */
	lc.geo.path = PATH_SEED;
	for (__u32 j = 0; j < 2; j++)
		if (j < k0)
			lc.geo.path = path_mix(lc.geo.path, stack[j]);
	bpf_loop(LOCK_MAX_STACK, learn_one, &lc, 0);
	if (lc.at >= 0 && n < max_stack && n >= 1)
		learn_end(stack[(n - 1) & (LOCK_MAX_STACK - 1)]);
}

/* --stack-check: the first walked stack that differed, and the unwinder's,
 * for -v to print. */
__u64 mismatch_walked[LOCK_MISMATCH_FRAMES], mismatch_unwound[LOCK_MISMATCH_FRAMES];
__u32 mismatch_saved;

static __always_inline void save_mismatch(const __u64 *walked, const __u64 *unwound)
{
	if (__sync_fetch_and_add(&mismatch_saved, 1))
		return;
	for (__u32 i = 0; i < LOCK_MISMATCH_FRAMES && i < max_stack; i++) {
		mismatch_walked[i] = walked[i];
		mismatch_unwound[i] = unwound[i];
	}
}

/*
 * The caller's stack into STACK (max_stack frames, zero-filled): walked
 * when every frame is known, else unwound by the kernel and learned from.
 * The byte count, or <= 0 when no stack could be read.  The second
 * program of a pair (NEST) runs inside an interrupt, off the task's stack,
 * where the walker never walks: it only unwinds, and verifying it is then
 * cheap.
 */
static __always_inline long get_stack(void *ctx, const struct where *w, __u64 *stack, __u32 nest)
{
	__u32 size = max_stack * sizeof(__u64), nw = 0, top = 0;
	bool walker = use_walker && !nest;
	__u64 base = 0;
	bool walked = false;
	long n;

	if (walker) {
		nw = window_of(w, &base, &top);
		walked = nw && walk_stack(base, top, stack);
		if (walked && !stack_check) {
			count(LC_STACK_WALKED);
			return size;
		}
	}
	if (walked) {
		struct stack_window *tmp = bpf_map_lookup_elem(&window, &(__u32){ nest });

		/* --stack-check: keep the walked stack, unwind, compare. */
		if (!tmp)
			return -1;
		for (__u32 i = 0; i < LOCK_MAX_STACK && i < max_stack; i++)
			tmp->w[i] = stack[i];
		n = bpf_get_stack(ctx, stack, size, stack_skip & BPF_F_SKIP_FIELD_MASK);
		for (__u32 i = 0; i < LOCK_MAX_STACK && i < max_stack; i++) {
			if (tmp->w[i] != stack[i]) {
				count(LC_STACK_MISMATCH);
				save_mismatch(tmp->w, stack);
				break;
			}
		}
		count(LC_STACK_WALKED);
		return n;
	}
	n = bpf_get_stack(ctx, stack, size, stack_skip & BPF_F_SKIP_FIELD_MASK);
	if (use_walker)
		count(LC_STACK_UNWOUND);
	if (walker && n > 0 && nw)
		learn_stack(base, nw, top, stack, n / sizeof(__u64), nest);
	return n;
}

#endif
