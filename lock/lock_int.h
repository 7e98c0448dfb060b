/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock, user-space side: the options, the collector (BPF loading,
 * attaching, draining), the row table and the report.
 */
#ifndef FRUGAL_LOCK_INT_H
#define FRUGAL_LOCK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/io.h"
#include "lock/lock.h"

enum lock_sort {
	LOCK_SORT_CONTENDED,
	LOCK_SORT_WAIT_TOTAL,
	LOCK_SORT_WAIT_MAX,
	LOCK_SORT_WAIT_MIN,
	LOCK_SORT_AVG_WAIT,
};

/* Output fields (-F), in display order when set. */
enum lock_field {
	LOCK_FIELD_CONTENDED	= 1 << 0,
	LOCK_FIELD_WAIT_TOTAL	= 1 << 1,
	LOCK_FIELD_WAIT_MAX	= 1 << 2,
	LOCK_FIELD_WAIT_MIN	= 1 << 3,
	LOCK_FIELD_AVG_WAIT	= 1 << 4,
};
#define LOCK_FIELDS_DEFAULT (LOCK_FIELD_CONTENDED | LOCK_FIELD_WAIT_TOTAL | \
			     LOCK_FIELD_WAIT_MAX | LOCK_FIELD_AVG_WAIT)

/* The report's formats (report.c's table of them). */
enum lock_format {
	LOCK_FMT_TABLE,
	LOCK_FMT_JSON,		/* --json */
	LOCK_FMT_CSV,		/* -x SEP */
	LOCK_FMT_FOLDED,	/* --folded */
	LOCK_FMT_SVG,		/* --svg FILE */
	LOCK_FMT_PPROF,		/* --pprof FILE */
	LOCK_FMT_TOP,		/* frugal lock top: the table's rows, one accounting line */
};

/* What a stack format weighs a stack by (--weight). */
enum lock_weight {
	LOCK_WEIGHT_WAIT,	/* total wait, ns */
	LOCK_WEIGHT_CONTENDED,	/* contentions */
};

/* A report written to a file (--svg, --pprof, --output), beside stdout's. */
struct lock_file_out {
	enum lock_format format;
	const char *path;
};
#define LOCK_MAX_FILES	4

#define LOCK_MAX_TARGETS 1024
#define LOCK_MAX_ADDRS	 64
#define LOCK_MAX_CPUS	 4096
#define LOCK_MAX_CGROUPS 64

struct lock_opts {
	enum lock_aggr mode;
	enum lock_sort sort;
	unsigned int fields;
	unsigned int entries;		/* -E: 0 = all */
	unsigned int max_stack;		/* frames the kernel keeps per stack */
	unsigned int stack_skip;	/* frames the kernel skips at the top */
	unsigned int user_max_stack;	/* --max-stack as asked (the report's depth) */
	bool strip_machinery;		/* the report drops the tracing frames on top */
	bool no_stack_walk;		/* --no-stack-walk: unwind every stack */
	bool stack_check;		/* --stack-check: walk and unwind, count differences */
	unsigned int map_entries;	/* -M */
	unsigned int ring_kb;		/* --ring-size: the perf buffer of each CPU */
	double duration;		/* -d: 0 = until the command ends / a signal */
	double interval;		/* -I: a report every so many seconds; 0 = one at the end */
	bool verbose_stacks;		/* -v: stack under each row */
	enum lock_format format;	/* stdout's, or --output's */
	unsigned int nformats;		/* formats asked for: more than one is an error */
	const char *csv_sep;		/* -x */
	const char *output;		/* --output: the report into this file, not stdout */
	struct lock_file_out files[LOCK_MAX_FILES];	/* --svg, --pprof */
	unsigned int nfiles;
	enum lock_weight weight;	/* --weight, of --folded */
	bool stack_output;		/* a format draws stacks: deeper default --max-stack */
	/* targets */
	bool system_wide;
	enum lock_target target_mode;
	unsigned int nr_targets;
	uint32_t targets[LOCK_MAX_TARGETS];
	const char *cpu_list;		/* -C as given; parsed into: */
	unsigned char cpus[LOCK_MAX_CPUS];	/* 1: traced, for each of nr_cpus */
	int nr_cpus;			/* possible CPUs, when -C is given */
	const char *pid_arg, *tid_arg;	/* as given, for the report */
	/* filters */
	uint64_t type_mask;		/* 0: all */
	const char *type_arg;
	unsigned int nr_addrs;
	uint64_t addrs[LOCK_MAX_ADDRS];
	const char *lock_arg;
	const char *callstack_arg;
	const char *cgroup_arg;		/* -G: cgroup paths, from the v2 root */
	unsigned int nr_cgroups;
	uint64_t cgroup_ids[LOCK_MAX_CGROUPS];
	uint64_t (*ranges)[2];		/* -S: sorted [start, end) of matching symbols */
	unsigned int nr_ranges;
	/* -S: the tracing frames the report drops from a stack's top, so the
	 * kernel filters on the frames shown (resolve.c) */
	uint64_t machinery[LOCK_MACHINERY_RANGES][2];
	unsigned int nr_machinery;
	bool follow_forks;		/* a command: its children are targets */
	bool force_raw_tp;		/* testing the fallback */
	bool floor;			/* --floor: programs that return at once */
	bool as_nested;			/* --as-nested: every run takes the nested path */
	bool skip_nested;		/* no second programs (lock.bpf.c); --nested: false */
	bool top;			/* frugal lock top: the live view */
	bool quiet;			/* -q: no logs, even with -v */
	bool owner;			/* -o: -t's rows are the owners, not the waiters */
	bool user;			/* -U: futex waits too */
	bool user_only;			/* --user-only: futex waits alone */
	unsigned int ustack_size;	/* --user-stack-size: bytes copied per wait */
	const char *debug_dir;		/* --debug-dir: ':'-separated, for /usr/lib/debug */
	bool help;			/* -h: print the usage, nothing else */
};

/*
 * The command line (ARGV[0] is "lock"; "lock contention ..." too) into O:
 * the defaults, the options, then the depths that follow from them, all
 * checked against each other.  *CMD_IDX is where the command to run starts
 * (ARGC: none).  Returns 0, or EXIT_USAGE once the reason is printed; with
 * -h, 0 and o->help, the rest of O partial.  Nothing is opened, loaded or
 * allocated (the CPU count for -C is libbpf's, read once), ARGV and its
 * strings stay as they are, and getopt starts afresh each call.
 */
int lock_opts__parse(struct lock_opts *o, int argc, char **argv, int *cmd_idx);
/* Frames a user-space row keeps: the key's stack, or -o -v's owner stack. */
unsigned int lock_opts__row_frames(const struct lock_opts *o);
/* `frugal lock --help`. */
void lock_opts__help(FILE *f);

/* ---- the row table (table.c) ---- */

struct lock_row {
	uint64_t key;
	struct lock_stat st;
	uint64_t *stack;		/* caller mode: max_stack frames, or NULL */
	char comm[LOCK_SLAB_LEN];	/* task mode: comm; -l: the slab cache's name */
};

struct lock_table;

struct lock_table *lock_table__new(unsigned int max_stack);
void lock_table__free(struct lock_table *t);
/* Merge one contention record (a kernel row or a wait from the buffers).  0 or -ENOMEM. */
int lock_table__add(struct lock_table *t, uint64_t key, const struct lock_stat *st,
		    const void *tail, size_t tail_size);
/* A key's definition from the buffers: its TAIL and FLAGS, for a row that has
 * none yet (the row is made, at count 0, if it does not exist).  0 or -ENOMEM. */
int lock_table__define(struct lock_table *t, uint64_t key, uint32_t flags,
		       const void *tail, size_t tail_size);
/* Does the table have a row of KEY, empty or not? */
bool lock_table__has(const struct lock_table *t, uint64_t key);
size_t lock_table__len(const struct lock_table *t);
/* Rows sorted by KEY (descending), stable on the key value; NULL on -ENOMEM. */
struct lock_row **lock_table__sorted(struct lock_table *t, enum lock_sort key);
uint64_t lock_table__sum_count(const struct lock_table *t);

/* ---- the collector (collect.c) ---- */

struct lock_collect;

struct lock_accounting {
	uint64_t c[LC_NR];
	uint64_t merged;		/* waits merged from the buffers */
	uint64_t rows_kernel;		/* rows read from the kernel table */
	/* Program runs the kernel skipped (recursion_misses): of each first
	 * program, and of the second programs together; and of the first
	 * programs' ones, those the second did not take (lost). */
	uint64_t misses_begin, misses_end, misses_second;
	uint64_t skipped_begin, skipped_end;
	/* bpf_stats: runs of each first program and of each second, and the
	 * time of both programs of a pair together */
	uint64_t begin_runs, begin2_runs, begin_ns, end_runs, end2_runs, end_ns;
	bool have_stats;
	uint64_t open_waits;		/* begun, not ended, when read (since the start) */
	/* -U: the futex programs' counters, and user space's side */
	bool user;
	uint64_t u[UL_NR];
	uint64_t u_merged;		/* waits added to rows */
	uint64_t u_filtered;		/* removed by -Y */
	uint64_t u_lost_records;	/* records the buffers lost (kernel's count) */
	uint64_t u_queue_peak;		/* most bytes of records queued in user space */
	uint64_t u_unjoined;		/* ends whose begin record never came */
	uint64_t u_open;		/* recorded waits not ended at stop */
	uint64_t u_stacks, u_frames, u_shallow;	/* unwinding */
	uint64_t u_walked, u_by_dwfl, u_mismatches;
	uint64_t u_begin_runs, u_begin_ns, u_end_runs, u_end_ns;	/* bpf_stats */
	double u_unwind_s;		/* user-space CPU spent unwinding */
};

/*
 * What this kernel has that the programs need, probed once at start-up
 * (collect.c), before anything is loaded.  False only where a probe said
 * so; the run is refused with one line naming the first thing it needs.
 */
struct lock_caps {
	const char *btf_path;	/* the BTF read (the kernel's, unless a test's) */
	int btf_err;		/* errno reading it; 0: read */
	bool contention_begin;	/* lock:contention_begin (Linux 5.19) */
	bool contention_end;
	bool task_storage;	/* BPF_MAP_TYPE_TASK_STORAGE (5.11) */
	bool loop;		/* bpf_loop() (5.17) */
	bool task_pt_regs;	/* bpf_task_pt_regs() (5.15), for -U */
	bool futex_events;	/* syscalls:sys_enter_futex, for -U */
};
/* Fill K for the run O, reading BTF_PATH (NULL: the kernel's BTF); the
 * collector then reads the same BTF. */
void lock_caps__probe(struct lock_caps *k, const char *btf_path, const struct lock_opts *o);
/* The BTF's part alone (the rest set present): what unit tests can feed. */
void lock_caps__probe_btf(struct lock_caps *k, const char *btf_path, const struct lock_opts *o);
/* What O needs that K lacks, as one line in BUF; false when nothing is. */
bool lock_caps__missing(const struct lock_caps *k, const struct lock_opts *o, char *buf,
			size_t size);
/* Load, probe and attach; NULL with errno set on failure. */
struct lock_collect *lock_collect__open(const struct lock_opts *o);
struct perf_event_attr;
/* The event of a per-CPU perf buffer of BPF output records: the reader
 * woken once WAKE_BYTES are waiting (0: at every record). */
void lock_collect__output_attr(struct perf_event_attr *attr, size_t wake_bytes);
struct bpf_program;
struct bpf_link;
/* A "tracepoint/CATEGORY/NAME" program attached through lib/tracefs (never
 * debugfs's tracing directory while tracefs can be had); NULL with errno. */
struct bpf_link *lock_collect__attach_tp(struct bpf_program *prog);
/* Which attach path was taken: "tp_btf" or "raw_tp". */
const char *lock_collect__path(const struct lock_collect *c);
/* -U: the names of the user frames in the rows; NULL without -U. */
const struct lock_ustacks *lock_collect__ustacks(const struct lock_collect *c);
/*
 * Wait up to TIMEOUT_MS for overflow records or for one of FDS (up to
 * LOCK_POLL_FDS: a wake-up pipe, a terminal) to become readable, and merge
 * what came.  A mask of the FDS readable (bit i for FDS[i]), or -errno.
 */
#define LOCK_POLL_FDS 2
int lock_collect__poll(struct lock_collect *c, struct lock_table *t, int timeout_ms,
		       const int *fds, int nfds);
/*
 * -I: what came since the last read (rows into T, counts into ACCT),
 * while the programs run.  0 or -errno.
 */
int lock_collect__interval(struct lock_collect *c, struct lock_table *t,
			   struct lock_accounting *acct);
/* SUMS[i]: key i of the per-CPU array FD summed over the CPUs, i < NR.  0 or -errno. */
int lock_counters__read(int fd, uint32_t nr, uint64_t *sums);
/* Stop the programs, drain the buffers, read the kernel table and the counters
 * (with -I: what came since the last interval). */
int lock_collect__finish(struct lock_collect *c, struct lock_table *t,
			 struct lock_accounting *acct);
void lock_collect__destroy(struct lock_collect *c);

/* ---- -p/--tid, -L and -S against the running system (resolve.c) ---- */

/*
 * Check that -p's processes exist, turn -L's symbols into addresses,
 * -S's words into the text ranges of the kernel functions they name and
 * -G's paths into cgroup ids.  0,
 * or an exit code once the reason is printed.  O's ranges are then the
 * caller's to free.
 */
int lock_filters__resolve(struct lock_opts *o);

/* ---- symbols from the kernel (symbols.c) ---- */

struct ksyms;

/* A small table naming ADDRS and the symbols MARKS (up to 4); NULL + errno. */
struct ksyms *lock_symbolize(const uint64_t *addrs, size_t n,
			     const char *const *marks, size_t nr_marks);
/*
 * The symbols the report of T names: the frames of its printed rows (or
 * their lock addresses) and the section marks that tell locking code
 * apart.  From the kernel's symbolizer, else /proc/kallsyms; NULL + errno.
 */
struct ksyms *lock_report_syms(const struct lock_opts *o, struct lock_table *t);
/*
 * With one program per tracepoint (no --nested), the tracepoint
 * iterator's frame is on a stack only while another tracer shares the
 * tracepoint, so one stack can come in under two keys.  Does the report of
 * O merge its rows by their frames once the tracepoint's own are dropped?
 * And the merged copy of T, with KS to tell those frames (NULL + errno on
 * ENOMEM).
 */
bool lock_report_merges(const struct lock_opts *o);
struct lock_table *lock_report_merged(const struct lock_opts *o, struct lock_table *t,
				      struct ksyms *ks);

/* ---- -U: user-space waits (ucollect.c, ustack.c) ---- */

/*
 * A user row's key: its user stack's hash (caller mode), or the tid, the
 * futex (tgid in bits 48-61 above its address) or the cgroup id with this
 * bit set, so that it never merges with a kernel row.
 */
#define LOCK_KEY_USER		((uint64_t)1 << 62)
#define LOCK_KEY_UADDR		(((uint64_t)1 << 48) - 1)
/* A user frame in a row's stack: a token naming an entry of lock_ustacks
 * (never a kernel or user address: those are canonical). */
#define LOCK_UFRAME_TAG		UINT64_C(0x00f0000000000000)
#define LOCK_UFRAME_TAG_MASK	UINT64_C(0xfff0000000000000)
#define LOCK_UFRAME_MAX		(1U << 24)

struct lock_ustacks;

/* Debug files are searched for in DEBUG_DIR (directories joined by ':', ""
 * for none) instead of /usr/lib/debug, if not NULL. */
struct lock_ustacks *lock_ustacks__new(const char *debug_dir, bool check);
void lock_ustacks__free(struct lock_ustacks *u);
/*
 * R's user stack into up to MAX frame tokens, innermost first, and the
 * primitive its locking frames name (LOCK_U_NR: none); *REACH: the bytes
 * of the copy the unwinder read, *OVERRUN: it needed more than was copied.  The number of
 * frames (at least 1 when R has a pc), or -ENOMEM.
 */
int lock_ustacks__unwind(struct lock_ustacks *u, const struct lock_urec_begin *r,
			 uint64_t *frames, unsigned int max, enum lock_utype *type,
			 uint32_t *reach, bool *overrun);
/* Process TGID's mappings read now (it may exit soon).  0 or -ENOMEM. */
int lock_ustacks__proc(struct lock_ustacks *u, uint32_t tgid, uint64_t mm);
/* The data symbol at R's futex in its process into BUF ("" if none). */
void lock_ustacks__data_name(struct lock_ustacks *u, const struct lock_urec_begin *r,
			     char *buf, size_t size);
/* A token's "func+0xoff (binary)", its function, and whether it is the C
 * library's locking code.  False if TOK is not a token of U. */
bool lock_ustacks__frame(const struct lock_ustacks *u, uint64_t tok, const char **name,
			 const char **func, bool *lockfn);
/* Stacks walked by our memoized CFI rules, handed to libdwfl, and (with
 * CHECK) walked differently from libdwfl's unwind of the same copy. */
void lock_ustacks__walk_stats(const struct lock_ustacks *u, uint64_t *walked,
			      uint64_t *by_dwfl, uint64_t *mismatches);
/* Stacks unwound, their frames, and those of one frame or none. */
void lock_ustacks__stats(const struct lock_ustacks *u, uint64_t *stacks, uint64_t *frames,
			 uint64_t *shallow);

struct lock_ucollect;
struct bpf_map;

/*
 * The futex programs loaded beside the kernel's, sharing TARGETS, CPUS and
 * CGROUPS (lock.bpf.c's maps), attached; NULL with errno set.
 */
struct lock_ucollect *lock_ucollect__open(const struct lock_opts *o, struct bpf_map *targets,
					  struct bpf_map *cpus, struct bpf_map *cgroups,
					  uint32_t off_task_mm);
int lock_ucollect__fd(const struct lock_ucollect *u);	/* to poll */
/* Merge what the buffers hold into T.  0 or -errno. */
int lock_ucollect__consume(struct lock_ucollect *u, struct lock_table *t);
/* Detach (no run is in flight once it returns), drain into T, read the counters. */
int lock_ucollect__finish(struct lock_ucollect *u, struct lock_table *t,
			  struct lock_accounting *a);
/* The counters so far into A (-I: what came since the last call). */
int lock_ucollect__read(struct lock_ucollect *u, struct lock_table *t,
			struct lock_accounting *a);
const struct lock_ustacks *lock_ucollect__stacks(const struct lock_ucollect *u);
void lock_ucollect__destroy(struct lock_ucollect *u);

/* ---- lock types (types.c) ---- */

/* Type name as perf prints it ("rwsem:W", "mutex", ...). */
const char *lock_type_name(uint32_t flags);
/* Parse -Y into a mask over (flags & LCB_F_MASK).  0 or -EINVAL. */
int lock_type_parse(const char *arg, uint64_t *mask);
/* -Y's Ith name (a cli_words_fn), NULL past the last; names repeat. */
const char *lock_type__word(unsigned int i);

/* ---- cgroup names (cgroup.c) ---- */

/* The id of the cgroup at PATH below the v2 root ("/a/b").  0 or -errno. */
int lock_cgroup_id(const char *path, uint64_t *id);
/* The cgroup path of each of ROWS' keys, NULL where not found; NULL if no memory. */
char **lock_cgroup_names(struct lock_row **rows, size_t n);
void lock_cgroup_names_free(char **names, size_t n);

/* ---- the report (report.c, one out_*.c per format) ---- */

struct lock_run_info {
	const char *attach;		/* tp_btf / raw_tp */
	double seconds;			/* of the run, or of the interval */
	unsigned int interval;		/* -I: the interval's number, from 1; 0 without -I */
	double time;			/* -I: the interval's end, seconds since the epoch */
	const char *kernel;
	const char *command;		/* NULL without one */
	const struct lock_ustacks *ustacks;	/* -U: the user frames' names */
	int exit_status;
};

/* "123 ns", "1.23 us", ...: perf's units. */
void lock_fmt_time(char *buf, size_t size, uint64_t ns);
/* R's value for KEY (avg_wait: total / count). */
uint64_t lock_row_value(const struct lock_row *r, enum lock_sort key);

/* The report of T in format FMT to F.  0 or -ENOMEM. */
int lock_report(FILE *f, enum lock_format fmt, const struct lock_opts *o,
		struct lock_table *t, const struct lock_accounting *a,
		const struct lock_run_info *ri, struct ksyms *ks);
/*
 * The files a run writes (--output, --svg, --pprof), opened before it
 * starts (a file that cannot be written is said before anything is
 * traced), written at the end and renamed over their names only once all
 * are written: whole, or not at all.
 */
struct lock_sinks {
	struct io_tmpfile out, files[LOCK_MAX_FILES];
	bool has_out;
	unsigned int nfiles;
};

/* 0, or -errno with the file that failed in *FAILED; nothing is left open then. */
int lock_sinks__open(struct lock_sinks *s, const struct lock_opts *o, const char **failed);
void lock_sinks__discard(struct lock_sinks *s);
/*
 * Every report O asks for: stdout's (or --output's), then each file's.
 * 0, or -errno with the file that failed in *FAILED (NULL: stdout); the
 * sinks are closed either way.
 */
int lock_report_all(const struct lock_opts *o, struct lock_sinks *s, struct lock_table *t,
		    const struct lock_accounting *a, const struct lock_run_info *ri,
		    struct ksyms *ks, const char **failed);

#endif
