/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracefs: where the kernel's trace events are listed, and a tracepoint
 * opened as a perf event (what a BPF tracepoint program attaches to).
 *
 * /sys/kernel/tracing is the place since Linux 4.1.  When nothing mounted
 * tracefs there (a fresh boot without systemd, a minimal guest), it is
 * mounted, as perf mounts it: the old path, debugfs's tracing directory,
 * works by the kernel mounting tracefs itself, and since 6.10 the kernel
 * logs "Automounting of tracing to debugfs is deprecated" when it does.
 * That path is the last resort, for a process that may not mount.
 *
 * (libbpf 1.1 looks under debugfs first whenever debugfs is mounted, which
 * is why tracepoints are opened here and not by bpf_program__attach.)
 */
#ifndef FRUGAL_TRACEFS_H
#define FRUGAL_TRACEFS_H

/* The tracefs directory, found (or mounted) once; NULL with errno set. */
const char *tracefs__dir(void);
/* Event CATEGORY:NAME: 1 when the kernel has it, 0 when not, -errno without tracefs. */
int tracefs__has_event(const char *category, const char *name);
/*
 * Tracepoint CATEGORY:NAME as a perf event of every task on CPU 0 (a BPF
 * program attached to it runs on every CPU): the fd (close-on-exec), or
 * -errno (-ENOENT: no such event).
 */
int tracefs__open_event(const char *category, const char *name);

#endif
