/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frugal lock's request: what the user asked, as lock_opts__parse()
 * (opts.c) fills it, and never written after.  What follows from it once
 * the system is looked at (resolve.c) goes into the engines' own
 * configurations (collect.h, report.h), built once by config.c.
 */
#ifndef FRUGAL_LOCK_OPTS_H
#define FRUGAL_LOCK_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lock/lock.h"
#include "lock/format.h"

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
	bool quiet;			/* -q: no logs, even with -v */
	bool owner;			/* -o: -t's rows are the owners, not the waiters */
	unsigned int owner_at;		/* --owner-at: enum lock_owner_at */
	bool hold;			/* --hold: hold times, not waits */
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

#endif
