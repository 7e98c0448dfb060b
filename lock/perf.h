/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel plumbing both collectors share (perf.c): per-CPU perf buffers
 * of BPF output records, tracepoints attached as perf events, per-CPU
 * counter arrays and the programs' run statistics read back.  Below
 * collect.c and ucollect.c, above nothing of lock/: neither collector
 * calls into the other for these.
 */
#ifndef FRUGAL_LOCK_PERF_H
#define FRUGAL_LOCK_PERF_H

#include <stddef.h>
#include <stdint.h>

struct perf_event_attr;
struct bpf_program;
struct bpf_link;

/* The event of a per-CPU perf buffer of BPF output records: the reader
 * woken once WAKE_BYTES are waiting (0: at every record). */
void lock_perf__output_attr(struct perf_event_attr *attr, size_t wake_bytes);
/* A "tracepoint/CATEGORY/NAME" program attached through lib/tracefs (never
 * debugfs's tracing directory while tracefs can be had); NULL with errno. */
struct bpf_link *lock_perf__attach_tp(struct bpf_program *prog);
/* SUMS[i]: key i of the per-CPU array FD summed over the CPUs, i < NR.  0 or -errno. */
int lock_counters__read(int fd, uint32_t nr, uint64_t *sums);
/* P's runs, run time and recursion misses (any may be NULL) added to
 * *RUNS, *NS, *MISSES; nothing if P is not loaded or the kernel says nothing. */
void lock_prog__stats(struct bpf_program *p, uint64_t *runs, uint64_t *ns, uint64_t *misses);
/* The CPU time of the calling thread, in seconds. */
double lock_thread_cpu(void);

#endif
