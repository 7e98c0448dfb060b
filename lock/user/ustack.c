// SPDX-License-Identifier: GPL-2.0
/*
 * -U's user stacks: a futex wait's registers and stack copy (futex.bpf.c)
 * unwound with the DWARF CFI of each mapping (.eh_frame, .debug_frame),
 * then named from each mapping's ELF: .symtab/.dynsym, MiniDebugInfo
 * (.gnu_debugdata), a debug file under /usr/lib/debug/.build-id or by
 * .gnu_debuglink.  All of it is elfutils' libdwfl, which reads the files
 * through mmap and caches each by build-id within a process's Dwfl.
 *
 * A process's Dwfl (its /proc/PID/maps) is made at its first wait and kept
 * to the end, so the frames of a process that exits before the report are
 * already named: each distinct frame becomes a token, an index into one
 * table of names, and a row's stack holds tokens.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <elfutils/libdwfl.h>

#include "cli/cli.h"
#include "lib/array.h"
#include "lib/hash.h"
#include "lib/idxmap.h"
#include "lock/user/ucfi_int.h"
#include "lock/user/ulibc_int.h"
#include "lock/user/user.h"

/* Processes whose Dwfl is kept; past it, the oldest half is dropped. */
#define MAX_PROCS	256

struct uframe {
	uint64_t h;		/* hash of the module's path and the offset in it */
	char *name;		/* "func+0xoff (binary)" */
	char *func;		/* "func", or the address */
	bool lockfn;		/* the C library's locking code: not a caller */
};

struct uproc {
	uint32_t tgid;
	uint64_t mm;		/* its address space (0: unknown): exec makes another */
	Dwfl *dwfl;		/* NULL: its maps could not be read */
	double made;		/* when (cli_now), to re-read maps after a dlopen */
};

struct lock_ustacks {
	struct uproc *procs;
	size_t nr_procs, cap_procs;
	struct uframe *frames;
	size_t nr_frames, cap_frames;
	struct idxmap frame_map;	/* frame hash -> index into frames */
	struct lock_cfi_rule *rules;		/* memoized, in the order found */
	size_t nr_rules, cap_rules;
	struct idxmap rule_map;	/* code address in a module -> index into rules */
	bool check;			/* --stack-check: libdwfl unwinds each stack too */
	uint64_t walked, by_dwfl, mismatches;
	/* the record being unwound, for the callbacks */
	const struct lock_urec_begin *rec;
	uint64_t *out;
	unsigned int n, max;
	enum lock_utype type;
	uint64_t reach;			/* bytes of the copy the unwinder read */
	bool overrun;			/* it asked past the copy */
	struct uproc *cur;
	uint64_t unwound, frames_total, failed;
};

static char *debuginfo_path;
static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* ---- the thread state dwfl unwinds: the record's ---- */

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct lock_ustacks *u = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = u;
	return u->rec->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	struct lock_ustacks *u = arg;

	(void)dwfl;
	*thread_argp = u;
	return (uint32_t)tid == u->rec->tid;
}

/* Only the copy: live memory may have changed since the wait began. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	struct lock_ustacks *u = arg;
	const struct lock_urec_begin *r = u->rec;
	uint64_t sp = r->regs[7];

	(void)dwfl;
	if (addr < sp || addr - sp > r->stack_size || r->stack_size - (addr - sp) < 8) {
		u->overrun |= addr >= sp && addr - sp < (1 << 20);
		return false;
	}
	memcpy(result, r->stack + (addr - sp), 8);
	if (addr - sp + 8 > u->reach)
		u->reach = addr - sp + 8;
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct lock_ustacks *u = arg;
	Dwarf_Word regs[LOCK_UREGS];

	memcpy(regs, u->rec->regs, sizeof(regs));
	return dwfl_thread_state_registers(thread, 0, LOCK_UREGS, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* ---- processes ---- */

static Dwfl *proc_dwfl(struct lock_ustacks *u, uint32_t tgid)
{
	Dwfl *d = dwfl_begin(&proc_callbacks);

	if (!d)
		return NULL;
	if (dwfl_linux_proc_report(d, tgid) || dwfl_report_end(d, NULL, NULL) ||
	    !dwfl_attach_state(d, NULL, tgid, &thread_callbacks, u)) {
		dwfl_end(d);
		return NULL;
	}
	return d;
}

static struct uproc *proc_get(struct lock_ustacks *u, uint32_t tgid, uint64_t mm)
{
	struct uproc *p;
	size_t i;

	for (i = 0; i < u->nr_procs; i++) {
		p = &u->procs[i];
		if (p->tgid != tgid)
			continue;
		if (p->mm != mm) {	/* it ran exec: other mappings */
			if (p->dwfl)
				dwfl_end(p->dwfl);
			p->dwfl = proc_dwfl(u, tgid);
			p->mm = mm;
			p->made = cli_now();
		}
		return p;
	}
	if (u->nr_procs == MAX_PROCS) {
		/* The oldest half goes; their frames stay named. */
		for (i = 0; i < MAX_PROCS / 2; i++)
			if (u->procs[i].dwfl)
				dwfl_end(u->procs[i].dwfl);
		memmove(u->procs, u->procs + MAX_PROCS / 2,
			(MAX_PROCS - MAX_PROCS / 2) * sizeof(*u->procs));
		u->nr_procs -= MAX_PROCS / 2;
	}
	if (array__grow(&u->procs, &u->cap_procs, u->nr_procs + 1, sizeof(*u->procs), 16))
		return NULL;
	u->procs[u->nr_procs] = (struct uproc){ tgid, mm, proc_dwfl(u, tgid), cli_now() };
	return &u->procs[u->nr_procs++];
}

/* A pc outside every module: a library mapped since; read the maps again
 * (at most once a second per process). */
static Dwfl_Module *module_of(struct lock_ustacks *u, uint64_t pc)
{
	Dwfl_Module *m = u->cur->dwfl ? dwfl_addrmodule(u->cur->dwfl, pc) : NULL;

	if (m || cli_now() - u->cur->made < 1.0)
		return m;
	if (u->cur->dwfl)
		dwfl_end(u->cur->dwfl);
	u->cur->dwfl = proc_dwfl(u, u->cur->tgid);
	u->cur->made = cli_now();
	return u->cur->dwfl ? dwfl_addrmodule(u->cur->dwfl, pc) : NULL;
}

/* ---- frames: interned by module and offset ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* The token of the frame at PC (a return address is looked up at PC - 1). */
static uint64_t frame_token(struct lock_ustacks *u, uint64_t pc, bool activation)
{
	uint64_t look = activation ? pc : pc - 1, base = 0, off = 0, h;
	Dwfl_Module *m = module_of(u, look);
	const char *mod = NULL, *sym = NULL, *bin;
	char name[512], func[256];
	struct idxmap_probe p;
	struct uframe *f;
	GElf_Sym s;
	uint32_t j;

	if (m)
		mod = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL);
	/* Same module file, same offset: one frame, in any process.  Looked
	 * up before the symbol: dwfl_module_addrinfo searches a table. */
	h = mod ? mix(hash_fnv1a_str(mod), pc - base) : mix(u->cur->tgid, pc);
	h = mix(h, activation);
	if (idxmap__reserve(&u->frame_map, 1))
		return 0;
	idxmap__for_each_candidate(&u->frame_map, h, &p, j)
		if (u->frames[j].h == h)
			return LOCK_UFRAME_TAG | j;
	/* Nothing below changes the map: P stays where the frame goes. */
	if (m)
		sym = dwfl_module_addrinfo(m, look, &off, &s, NULL, NULL, NULL);
	if (u->nr_frames >= LOCK_UFRAME_MAX ||
	    array__grow(&u->frames, &u->cap_frames, u->nr_frames + 1, sizeof(*u->frames), 256))
		return 0;
	bin = mod ? strrchr(mod, '/') : NULL;
	bin = bin ? bin + 1 : mod;
	if (sym) {
		off += activation ? 0 : 1;
		snprintf(func, sizeof(func), "%s", sym);
		snprintf(name, sizeof(name), "%s+0x%" PRIx64 " (%s)", sym, off, bin);
	} else if (mod) {
		snprintf(func, sizeof(func), "[%s+0x%" PRIx64 "]", bin, pc - base);
		snprintf(name, sizeof(name), "0x%" PRIx64 " (%s)", pc - base, bin);
	} else {
		snprintf(func, sizeof(func), "0x%" PRIx64, pc);
		snprintf(name, sizeof(name), "0x%" PRIx64, pc);
	}
	f = &u->frames[u->nr_frames];
	f->h = h;
	f->name = strdup(name);
	f->func = strdup(func);
	/*
	 * An unnamed frame in the C library is one of its internals (a
	 * futex wait starts in its locking code): never the caller.  The
	 * row's caller is then the first frame outside it, named or not,
	 * as with the debug file; the frame itself shows as its offset.
	 */
	f->lockfn = sym ? lock_ulibc__lock_func(sym) : lock_ulibc__is_libc(bin);
	if (!f->name || !f->func) {
		free(f->name);
		free(f->func);
		return 0;
	}
	idxmap__probe_put(&u->frame_map, &p, u->nr_frames);
	return LOCK_UFRAME_TAG | u->nr_frames++;
}

/* ---- our walk: simple CFI rules, memoized ---- */

static uint64_t rule_key(struct lock_ustacks *u, uint64_t look, Dwfl_Module **mp)
{
	Dwfl_Module *m = module_of(u, look);
	const char *mod;
	Dwarf_Addr base = 0;

	*mp = m;
	if (!m || !(mod = dwfl_module_info(m, NULL, &base, NULL, NULL, NULL, NULL, NULL)))
		return 0;
	return mix(hash_fnv1a_str(mod), look - base) | 1;
}

static const struct lock_cfi_rule *rule_of(struct lock_ustacks *u, uint64_t look)
{
	static const struct lock_cfi_rule bad = { .kind = LOCK_CFI_BAD };
	Dwfl_Module *m;
	uint64_t key = rule_key(u, look, &m);
	Dwarf_Addr bias;
	Dwarf_Frame *f = NULL;
	Dwarf_CFI *cfi;
	struct idxmap_probe p;
	struct lock_cfi_rule *r;
	uint32_t j;

	if (!key)
		return &bad;
	if (idxmap__reserve(&u->rule_map, 1) ||
	    array__grow(&u->rules, &u->cap_rules, u->nr_rules + 1, sizeof(*u->rules), 1024))
		return &bad;
	idxmap__for_each_candidate(&u->rule_map, key, &p, j)
		if (u->rules[j].key == key)
			return &u->rules[j];
	r = &u->rules[u->nr_rules];
	memset(r, 0, sizeof(*r));
	r->key = key;
	r->kind = LOCK_CFI_BAD;
	idxmap__probe_put(&u->rule_map, &p, u->nr_rules++);
	cfi = dwfl_module_eh_cfi(m, &bias);
	if (!cfi || dwarf_cfi_addrframe(cfi, look - bias, &f)) {
		cfi = dwfl_module_dwarf_cfi(m, &bias);
		if (cfi && dwarf_cfi_addrframe(cfi, look - bias, &f))
			f = NULL;
	}
	if (f)
		lock_cfi__parse(f, r);
	free(f);
	return r;
}

static bool read_word(struct lock_ustacks *u, uint64_t addr, uint64_t *v)
{
	Dwarf_Word w;

	if (!memory_read(NULL, addr, &w, u))
		return false;
	*v = w;
	return true;
}

static void add_frame(struct lock_ustacks *u, uint64_t tok)
{
	if (u->type == LOCK_U_NR) {
		const struct uframe *f = &u->frames[tok & ~LOCK_UFRAME_TAG];

		if (f->lockfn)
			u->type = lock_ulibc__type_of(f->func);
	}
	u->out[u->n++] = tok;
}

/*
 * The stack by the memoized rules: the frames dwfl_getthread_frames would
 * give (tests/lock/user.sh checks it with --stack-check), or -1 if a frame
 * needs more than a simple rule (a signal frame, a PLT entry).
 */
static bool read_stack(void *ctx, uint64_t addr, uint64_t *v)
{
	return read_word(ctx, addr, v);
}

static int walk(struct lock_ustacks *u)
{
	const struct lock_urec_begin *r = u->rec;
	struct lock_cfi_regs regs = { r->regs[16], r->regs[7], r->regs[6] };
	bool act = true;
	uint64_t tok;

	while (u->n < u->max && regs.pc) {
		const struct lock_cfi_rule *rl = rule_of(u, act ? regs.pc : regs.pc - 1);

		if (rl->kind == LOCK_CFI_BAD)
			return -1;
		tok = frame_token(u, regs.pc, act);
		if (!tok)
			return -1;
		add_frame(u, tok);
		if (rl->kind == LOCK_CFI_END || !lock_cfi__step(rl, &regs, read_stack, u))
			break;
		act = false;
	}
	return u->n;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
	struct lock_ustacks *u = arg;
	bool activation = false;
	Dwarf_Addr pc;
	uint64_t tok;

	if (u->n >= u->max || !dwfl_frame_pc(state, &pc, &activation) || !pc)
		return DWARF_CB_ABORT;
	/* The innermost frame is the syscall instruction: the next is its return. */
	tok = frame_token(u, pc, activation || u->n == 0);
	if (!tok)
		return DWARF_CB_ABORT;
	add_frame(u, tok);
	return DWARF_CB_OK;
}

struct lock_ustacks *lock_ustacks__new(const char *debug_dir, bool check)
{
	struct lock_ustacks *u;

	static char path[4096];

	/* elfutils' own default with DEBUG_DIR for /usr/lib/debug: the
	 * binary's directory and its .debug/ (as gdb keeps them whatever its
	 * debug-file-directory), then each of DEBUG_DIR's, for .build-id/ and
	 * by .gnu_debuglink. */
	if (debug_dir) {
		if (snprintf(path, sizeof(path), ":.debug%s%s", *debug_dir ? ":" : "",
			     debug_dir) >= (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		debuginfo_path = path;
	}
	u = calloc(1, sizeof(*u));
	if (u)
		u->check = check;
	return u;
}

void lock_ustacks__free(struct lock_ustacks *u)
{
	size_t i;

	if (!u)
		return;
	for (i = 0; i < u->nr_procs; i++)
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
	for (i = 0; i < u->nr_frames; i++) {
		free(u->frames[i].name);
		free(u->frames[i].func);
	}
	free(u->procs);
	free(u->rules);
	free(u->frames);
	idxmap__free(&u->frame_map);
	idxmap__free(&u->rule_map);
	free(u);
}

int lock_ustacks__proc(struct lock_ustacks *u, uint32_t tgid, uint64_t mm)
{
	return proc_get(u, tgid, mm) ? 0 : -ENOMEM;
}

/* Our walk, or libdwfl's where it cannot; with --stack-check both, compared. */
static void unwind(struct lock_ustacks *u)
{
	uint64_t mine[LOCK_MAX_STACK];
	unsigned int n;

	if (walk(u) >= 0) {
		u->walked++;
		if (!u->check)
			return;
		n = u->n;
		memcpy(mine, u->out, n * sizeof(*mine));
	} else {
		n = (unsigned int)-1;
	}
	u->n = 0;
	u->type = LOCK_U_NR;
	dwfl_getthread_frames(u->cur->dwfl, u->rec->tid, on_frame, u);
	if (n == (unsigned int)-1) {
		u->by_dwfl++;
	} else if (n != u->n || memcmp(mine, u->out, n * sizeof(*mine))) {
		if (!u->mismatches++)
			cli_log("lock: -U: first walked stack that differed: %u frames walked, "
				"%u unwound by libdwfl\n", n, u->n);
	}
}

int lock_ustacks__unwind(struct lock_ustacks *u, const struct lock_urec_begin *r,
			 uint64_t *frames, unsigned int max, enum lock_utype *type,
			 uint32_t *reach, bool *overrun)
{
	u->rec = r;
	u->reach = 0;
	u->overrun = false;
	u->out = frames;
	u->n = 0;
	u->max = max;
	u->type = LOCK_U_NR;
	u->cur = proc_get(u, r->tgid, r->mm);
	if (!u->cur)
		return -ENOMEM;
	if (u->cur->dwfl && r->stack_size)
		unwind(u);
	/* No maps or no CFI: at least where it waited. */
	if (!u->n && max && r->regs[16]) {
		uint64_t tok = frame_token(u, r->regs[16], true);

		if (tok)
			frames[u->n++] = tok;
	}
	u->unwound++;
	u->frames_total += u->n;
	u->failed += u->n <= 1;
	*type = u->type;
	*reach = u->reach;
	/* Past the copy, with frames still to find (not a full stack's end). */
	*overrun = u->overrun && u->n < max;
	return u->n;
}

/* The data symbol at ADDR in TGID ("fixture_lock+0x8"), or "". */
void lock_ustacks__data_name(struct lock_ustacks *u, const struct lock_urec_begin *r,
			     char *buf, size_t size)
{
	struct uproc *p = proc_get(u, r->tgid, r->mm);
	uint64_t addr = r->uaddr;
	Dwfl_Module *m = p && p->dwfl ? dwfl_addrmodule(p->dwfl, addr) : NULL;
	const char *sym;
	GElf_Off off;
	GElf_Sym s;

	buf[0] = '\0';
	if (!m || !(sym = dwfl_module_addrinfo(m, addr, &off, &s, NULL, NULL, NULL)) ||
	    GELF_ST_TYPE(s.st_info) != STT_OBJECT)
		return;
	snprintf(buf, size, off ? "%s+0x%" PRIx64 : "%s", sym, (uint64_t)off);
}

bool lock_ustacks__frame(const struct lock_ustacks *u, uint64_t tok, const char **name,
			 const char **func, bool *lockfn)
{
	uint64_t i = tok & ~LOCK_UFRAME_TAG;

	if (!u || (tok & LOCK_UFRAME_TAG_MASK) != LOCK_UFRAME_TAG || i >= u->nr_frames)
		return false;
	*name = u->frames[i].name;
	*func = u->frames[i].func;
	*lockfn = u->frames[i].lockfn;
	return true;
}

void lock_ustacks__walk_stats(const struct lock_ustacks *u, uint64_t *walked,
			      uint64_t *by_dwfl, uint64_t *mismatches)
{
	*walked = u ? u->walked : 0;
	*by_dwfl = u ? u->by_dwfl : 0;
	*mismatches = u ? u->mismatches : 0;
}

void lock_ustacks__stats(const struct lock_ustacks *u, uint64_t *stacks, uint64_t *frames,
			 uint64_t *shallow)
{
	*stacks = u ? u->unwound : 0;
	*frames = u ? u->frames_total : 0;
	*shallow = u ? u->failed : 0;
}
