/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU lists and CPU-wide waits.
 */
#ifndef FRUGAL_CPUS_H
#define FRUGAL_CPUS_H

/*
 * Parse a CPU list ("0,2-3", the format of -C and of
 * /sys/devices/system/cpu/online) into SET[0..NR_CPUS): each listed CPU's
 * byte set to 1, others untouched.  0; -EINVAL for anything but digits,
 * ranges and commas; -ERANGE for a CPU at or above NR_CPUS.
 */
int cpus__parse_list(const char *list, unsigned char *set, int nr_cpus);

/*
 * Return once every online CPU has switched tasks since the call began, so
 * that whatever ran there with preemption off when it began (a
 * tracepoint's BPF program) has ended, and sees every store made before
 * the call.  The calling thread runs on each CPU in turn, then gets its
 * CPU set back; where it may not run on every online CPU (a cpuset), the
 * kernel waits for an RCU grace period instead (membarrier).  0, or -errno
 * when neither can be done (a restricted CPU set on a nohz_full kernel).
 */
int cpus__quiesce(void);

#endif
