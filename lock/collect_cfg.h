/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collector's configuration (built by config.c, read by collect.c,
 * load.c and -U's ucollect.c and ujoin.c): a header of its own, so that
 * -U's collector reads it without depending on the kernel collector it
 * serves.
 */
#ifndef FRUGAL_LOCK_COLLECT_CFG_H
#define FRUGAL_LOCK_COLLECT_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "lock/lock.h"

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

#endif
