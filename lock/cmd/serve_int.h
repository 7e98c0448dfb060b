/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the command: frugal lock serve, which lock_main (run.c) hands its request. */
#ifndef FRUGAL_LOCK_SERVE_INT_H
#define FRUGAL_LOCK_SERVE_INT_H

#include "lock/request/request.h"

/* The service until SIGTERM or SIGINT (or -d).  An exit code. */
int lock_serve_run(const struct lock_opts *o);

#endif
