// SPDX-License-Identifier: GPL-2.0
/*
 * The request made into the engines' configurations (request.h): the only
 * place that reads the request's fields for them, so each engine's
 * configuration says in one struct everything it depends on.
 */
#include <string.h>

#include "lock/request/request.h"

bool lock_opts__follows_command(const struct lock_opts *o, bool command)
{
	return command && !o->system_wide && !o->cpu_list;
}

void lock_report_cfg__build(struct lock_report_cfg *rc, const struct lock_opts *o, bool command)
{
	bool follow = lock_opts__follows_command(o, command);

	*rc = (struct lock_report_cfg){
		.mode = o->mode,
		.owner = o->owner,
		.hold = o->hold,
		.user = o->user,
		.user_only = o->user_only,
		.sort = o->sort,
		.fields = o->fields,
		.entries = o->entries,
		.row_frames = lock_opts__row_frames(o),
		.max_stack = o->max_stack,
		.shown_frames = o->user_max_stack,
		.strip_machinery = o->strip_machinery,
		.skip_nested = o->skip_nested,
		.verbose_stacks = o->verbose_stacks,
		.format = o->format,
		.csv_sep = o->csv_sep,
		.output = o->output,
		.nfiles = o->nfiles,
		.weight = o->weight,
		.system_wide = o->target_mode == LOCK_TARGET_ALL && !follow,
		.pid_arg = o->pid_arg,
		.tid_arg = o->tid_arg,
		.cpu_list = o->cpu_list,
		.map_entries = o->map_entries,
		.ring_kb = o->ring_kb,
	};
	memcpy(rc->files, o->files, sizeof(rc->files));
}

void lock_serve_cfg__build(struct lock_serve_cfg *sc, const struct lock_opts *o)
{
	*sc = (struct lock_serve_cfg){
		.mode = o->mode,
		.listen_address = o->listen_address ? o->listen_address : LOCK_SERVE_ADDRESS,
		.telemetry_path = o->telemetry_path ? o->telemetry_path : "/metrics",
		.web_config = o->web_config,
		.listen_remote = o->listen_remote,
		.series_max = o->series_max ? o->series_max : LOCK_SERVE_SERIES,
		.export_addresses = o->export_addresses,
		.user = o->user,
		.interval = o->interval,
	};
}

/* Who is traced: -p/--tid's, or the command and what it starts. */
static void targets(struct lock_collect_cfg *cc, const struct lock_opts *o, pid_t command)
{
	cc->target_mode = o->target_mode;
	cc->nr_targets = o->nr_targets;
	memcpy(cc->targets, o->targets, o->nr_targets * sizeof(o->targets[0]));
	if (lock_opts__follows_command(o, command > 0)) {
		cc->targets[0] = (uint32_t)command;
		cc->nr_targets = 1;
		cc->target_mode = LOCK_TARGET_TGID;
		cc->follow_forks = true;
	}
	cc->has_cpu = o->cpu_list != NULL;
	cc->nr_cpus = o->nr_cpus;
	if (cc->has_cpu)
		memcpy(cc->cpus, o->cpus, sizeof(cc->cpus));
}

void lock_collect_cfg__build(struct lock_collect_cfg *cc, const struct lock_opts *o,
			     const struct lock_filters *f, pid_t command)
{
	memset(cc, 0, sizeof(*cc));
	cc->mode = o->mode;
	cc->max_stack = o->max_stack;
	cc->stack_skip = o->stack_skip;
	cc->shown_frames = o->user_max_stack;
	cc->want_stack = o->mode == LOCK_AGGR_CALLER || o->callstack_arg;
	cc->no_stack_walk = o->no_stack_walk;
	cc->stack_check = o->stack_check;
	cc->no_objects = o->no_objects;
	cc->map_entries = o->map_entries;
	cc->ring_kb = o->ring_kb;
	cc->interval = o->interval > 0;
	cc->owner = o->owner;
	cc->owner_stacks = o->owner && o->verbose_stacks;
	cc->owner_at = o->owner_at;
	cc->hold = o->hold;
	cc->force_raw_tp = o->force_raw_tp;
	cc->floor = o->floor;
	cc->as_nested = o->as_nested;
	cc->skip_nested = o->skip_nested;
	cc->user = o->user;
	cc->wait_hist = o->histogram;
	cc->user_only = o->user_only;
	cc->ustack_size = o->ustack_size;
	cc->debug_dir = o->debug_dir;
	cc->type_mask = o->type_mask;
	targets(cc, o, command);
	if (f)
		cc->f = *f;
}
