/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the command: frugal lock serve, which lock_main (run.c) hands its request. */
#ifndef FRUGAL_LOCK_SERVE_INT_H
#define FRUGAL_LOCK_SERVE_INT_H

#include "lock/request/request.h"

/*
 * Has the process CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN)?  If not,
 * one line naming what is missing and how a service is granted it (not
 * "run as root": a service runs as its own user).  An exit code.
 */
int lock_serve_privileges(void);
/* The service until SIGTERM or SIGINT (or -d).  An exit code. */
int lock_serve_run(const struct lock_opts *o);

#endif
