/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The engines' configurations built from the request (config.c): once,
 * after resolving, and read-only after.  The request (opts.h) says what the
 * user asked; these say what the collector traces and what the report
 * shows.
 */
#ifndef FRUGAL_LOCK_CONFIG_H
#define FRUGAL_LOCK_CONFIG_H

#include <stdbool.h>
#include <sys/types.h>

struct lock_collect_cfg;
struct lock_filters;
struct lock_opts;
struct lock_report_cfg;

/*
 * Does the run of O follow a command it starts (its processes the
 * targets)?  Only without -a, -C, -p and --tid.
 */
bool lock_opts__follows_command(const struct lock_opts *o, bool command);
/* The report's configuration for O; COMMAND: a command is run. */
void lock_report_cfg__build(struct lock_report_cfg *rc, const struct lock_opts *o, bool command);
/*
 * The collector's for O, with F's resolved filters (borrowed: F outlives
 * CC) and COMMAND's pid (0: none); CC is large (the target and CPU
 * tables), the caller's storage.
 */
void lock_collect_cfg__build(struct lock_collect_cfg *cc, const struct lock_opts *o,
			     const struct lock_filters *f, pid_t command);

#endif
