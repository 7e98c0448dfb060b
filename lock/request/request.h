/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's request stage (lock/request/), its contract: what the user
 * asked, as lock_opts__parse() (opts.c) fills it, never written after; the
 * words the request and the report share (sort keys, fields, formats,
 * weight, lock types); -L, -S, -G and -p resolved against the running system
 * (resolve.c, cgroup.c); and the engines' read-only configurations built
 * from all of it once (config.c): the collector's (struct lock_collect_cfg)
 * and the report's (struct lock_report_cfg).  Every stage above reads these;
 * this stage reads only lib/, cli/cli.h and lock/lock.h.
 */
#ifndef FRUGAL_LOCK_REQUEST_H
#define FRUGAL_LOCK_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "lock/lock.h"

/*
 * ---- words: what the request and the report share (no code of their
 * own): sort keys (-k), fields (-F), formats, the stack formats' weight,
 * the files a run writes.  The request holds what the user chose, the
 * report's configuration what it shows; the rows (lock/rows/) sort by the
 * keys.
 */

/* The sort keys (-k): a row's value the report orders by. */
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

/* The report's formats (lock/out/out.c's table of them). */
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

/*
 * ---- the request: what the user asked, as lock_opts__parse() (opts.c)
 * fills it, and never written after.  What follows from it once the
 * system is looked at (resolve.c) goes into the engines' own
 * configurations (below), built once by config.c.
 */
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
	bool no_objects;		/* --no-objects: -l describes no object */
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
	const char *lock_arg;
	const char *callstack_arg;
	const char *cgroup_arg;		/* -G: cgroup paths, from the v2 root */
	bool force_raw_tp;		/* testing the fallback */
	bool floor;			/* --floor: programs that return at once */
	bool as_nested;			/* --as-nested: every run takes the nested path */
	bool skip_nested;		/* no second programs (lock.bpf.c); --nested: false */
	bool top;			/* frugal lock top: the live view */
	/* frugal lock serve: the service (lock/serve/) */
	bool serve;
	const char *listen_address;	/* --web.listen-address: NULL, the default */
	const char *telemetry_path;	/* --web.telemetry-path: NULL, /metrics */
	const char *web_config;		/* --web.config.file: TLS and users */
	bool listen_remote;		/* --web.listen-remote: beyond loopback without it */
	unsigned int series_max;	/* --series-max: series per family */
	bool export_addresses;		/* --export-addresses: kernel addresses in labels */
	bool quiet;			/* -q: no logs, even with -v */
	bool owner;			/* -o: -t's rows are the owners, not the waiters */
	unsigned int owner_at;		/* --owner-at: enum lock_owner_at */
	bool hold;			/* --hold: hold times, not waits */
	bool user;			/* -U: futex waits too */
	bool user_only;			/* --user-only: futex waits alone */
	bool histogram;			/* --histogram: --json's wait-time histogram per type */
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

/* ---- lock types (types.c): their names as perf prints them, and -Y's words ---- */
/* Type name as perf prints it ("rwsem:W", "mutex", ...). */
const char *lock_type_name(uint32_t flags);
/* Parse -Y into a mask over (flags & LCB_F_MASK).  0 or -EINVAL. */
int lock_type_parse(const char *arg, uint64_t *mask);
/* -Y's Ith name (a cli_words_fn), NULL past the last; names repeat. */
const char *lock_type__word(unsigned int i);

/*
 * ---- the collector's configuration (built by config.c, read by the
 * kernel side's collect.c and load.c and -U's ucollect.c and ujoin.c):
 * here, below both, so that -U's collector reads it without depending on
 * the kernel collector it serves.
 */
/*
 * -L, -S and -G resolved against the running system (resolve.c): what the
 * kernel's filters compare with.  RANGES is the resolver's, freed by
 * lock_filters__free().
 */
struct lock_filters {
	unsigned int nr_addrs;
	uint64_t addrs[LOCK_MAX_ADDRS];			/* -L */
	unsigned int nr_cgroups;
	uint64_t cgroup_ids[LOCK_MAX_CGROUPS];		/* -G */
	uint64_t (*ranges)[2];		/* -S: sorted [start, end) of matching symbols */
	unsigned int nr_ranges;
	/* -S: the tracing frames the report drops from a stack's top, so the
	 * kernel filters on the frames shown */
	uint64_t machinery[LOCK_MACHINERY_RANGES][2];
	unsigned int nr_machinery;
};

/*
 * The collector's configuration: built once from the request, its resolved
 * filters and the command's pid (config.c), read-only after.  It says
 * what to trace and how; the collector derives from it only what the
 * kernel decides (attach path, kfuncs, offsets).
 */
struct lock_collect_cfg {
	enum lock_aggr mode;
	unsigned int max_stack;		/* frames a kernel row keeps */
	unsigned int stack_skip;	/* frames the kernel skips at the top */
	unsigned int shown_frames;	/* frames the report shows: -S looks at these */
	bool want_stack;		/* caller mode, or -S */
	bool no_stack_walk;		/* unwind every stack */
	bool stack_check;		/* walk and unwind, count differences */
	bool no_objects;		/* -l: describe no object */
	unsigned int map_entries;	/* the kernel table's rows */
	unsigned int ring_kb;		/* the perf buffer of each CPU */
	bool interval;			/* -I: each read is what came since the last */
	bool owner;			/* -o: rows by the locks' owners */
	bool owner_stacks;		/* -o -v: and their stacks, where the kernel can */
	enum lock_owner_at owner_at;	/* --owner-at */
	bool hold;			/* --hold: rows are hold times */
	bool force_raw_tp;		/* testing the fallback */
	bool floor;			/* programs that return at once */
	bool as_nested;			/* every run takes the nested path */
	bool skip_nested;		/* no second programs */
	bool user, user_only;		/* -U, --user-only */
	bool wait_hist;			/* the wait-time histogram per lock type (lock.h) */
	unsigned int ustack_size;	/* -U: bytes of stack copied per wait */
	const char *debug_dir;		/* -U: NULL: /usr/lib/debug */
	/* who is traced */
	enum lock_target target_mode;
	bool follow_forks;		/* a command's children become targets */
	unsigned int nr_targets;
	uint32_t targets[LOCK_MAX_TARGETS];
	bool has_cpu;			/* -C: CPUS[i] for each of NR_CPUS */
	int nr_cpus;
	unsigned char cpus[LOCK_MAX_CPUS];
	/* what is kept */
	uint64_t type_mask;		/* -Y; 0: all */
	struct lock_filters f;		/* RANGES borrowed from the resolver's */
};

/*
 * ---- the report's configuration: built once from the request (config.c),
 * read-only after.  What to show and how; nothing of how it was traced
 * beyond what a format prints of it.
 */
struct lock_report_cfg {
	enum lock_aggr mode;
	bool owner;			/* -o: the task rows are the locks' owners */
	bool hold;			/* --hold: the rows are hold times */
	bool user, user_only;		/* -U: user rows too; --user-only: no kernel lines */
	enum lock_sort sort;		/* -k */
	unsigned int fields;		/* -F: enum lock_field bits */
	unsigned int entries;		/* -E: rows shown, 0 = all */
	unsigned int row_frames;	/* frames a row of the table keeps */
	unsigned int max_stack;		/* frames the kernel keeps per stack */
	unsigned int shown_frames;	/* --max-stack as asked: frames shown (0: all kept) */
	bool strip_machinery;		/* the tracing frames on top are dropped */
	bool skip_nested;		/* one program per tracepoint (no --nested) */
	bool verbose_stacks;		/* -v: a stack under each row */
	enum lock_format format;	/* stdout's, or --output's */
	const char *csv_sep;		/* -x */
	const char *output;		/* --output: into this file, not stdout */
	struct lock_file_out files[LOCK_MAX_FILES];	/* --svg, --pprof */
	unsigned int nfiles;
	enum lock_weight weight;	/* --weight of the stack formats */
	/* what was traced, as JSON's header says it */
	bool system_wide;		/* no -p/--tid and no command followed */
	const char *pid_arg, *tid_arg, *cpu_list;
	unsigned int map_entries, ring_kb;
};

/*
 * ---- the service's configuration (frugal lock serve): built once from
 * the request (config.c), read-only after; lock/serve/ reads it.
 */
#define LOCK_SERVE_PORT		9858	/* docs/lock.md, "Always on": why this one */
#define LOCK_SERVE_ADDRESS	"127.0.0.1:9858"
#define LOCK_SERVE_SERIES	500	/* series per family, before the `other` fold */
#define LOCK_SERVE_PPROF_MAX	300	/* seconds a profile may span (?seconds=N) */

struct lock_serve_cfg {
	enum lock_aggr mode;		/* caller, -l or -g: the rows' label */
	const char *listen_address;	/* "host:port", as lib/web.h parses it */
	const char *telemetry_path;	/* "/metrics" */
	const char *web_config;		/* NULL: plain HTTP, no users */
	bool listen_remote;		/* a non-loopback address without web_config */
	unsigned int series_max;
	bool export_addresses;
	bool user;			/* -U: user rows too */
	double interval;		/* the fold's tick, seconds */
};

/*
 * ---- the configurations built from the request (config.c): once, after
 * resolving, and read-only after.  The request says what the user asked;
 * these say what the collector traces and what the report shows.
 */
/*
 * Does the run of O follow a command it starts (its processes the
 * targets)?  Only without -a, -C, -p and --tid.
 */
bool lock_opts__follows_command(const struct lock_opts *o, bool command);
/* The service's configuration for O (frugal lock serve). */
void lock_serve_cfg__build(struct lock_serve_cfg *sc, const struct lock_opts *o);
/* The report's configuration for O; COMMAND: a command is run. */
void lock_report_cfg__build(struct lock_report_cfg *rc, const struct lock_opts *o, bool command);
/*
 * The collector's for O, with F's resolved filters (borrowed: F outlives
 * CC) and COMMAND's pid (0: none); CC is large (the target and CPU
 * tables), the caller's storage.
 */
void lock_collect_cfg__build(struct lock_collect_cfg *cc, const struct lock_opts *o,
			     const struct lock_filters *f, pid_t command);

/* ---- resolving: -p/--tid, -L, -S and -G against the running system (resolve.c) ---- */
/*
 * Check that O's -p processes exist, turn -L's symbols into addresses,
 * -S's words into the text ranges of the kernel functions they name and
 * -G's paths into cgroup ids, all into F.  0, or an exit code once the
 * reason is printed; either way F is the caller's to free.
 */
int lock_filters__resolve(struct lock_filters *f, const struct lock_opts *o);
void lock_filters__free(struct lock_filters *f);

/* ---- cgroups by path and by id (cgroup.c), on the v2 hierarchy: -G, -g's names ---- */
/* The id of the cgroup at PATH below the v2 root ("/a/b").  0 or -errno. */
int lock_cgroup_id(const char *path, uint64_t *id);
/* The cgroup path of each of IDS, NULL where not found; NULL if no memory. */
char **lock_cgroup_names(const uint64_t *ids, size_t n);
void lock_cgroup_names_free(char **names, size_t n);

#endif
