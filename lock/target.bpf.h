/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is traced, shared by lock.bpf.c and futex.bpf.c: the target, CPU and
 * cgroup maps (futex.bpf.c's are lock.bpf.c's own, reused by fd, so a
 * command's new processes, added by the fork hook, are targets of both)
 * and the check each program makes first.
 */
#ifndef FRUGAL_LOCK_TARGET_BPF_H
#define FRUGAL_LOCK_TARGET_BPF_H

/* Set by the loader before load. */
const volatile enum lock_target target_mode;
const volatile bool has_cpu;		/* -C */
const volatile bool has_cgroup;		/* -G */

/* Targets: tgid or tid -> 1.  Sized by the loader. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} cpus SEC(".maps");

/* -G: the cgroup ids whose tasks are traced. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u8);
} cgroups SEC(".maps");

static __always_inline bool is_target(void)
{
	__u64 id;
	__u32 key;

	if (has_cpu) {
		__u32 cpu = bpf_get_smp_processor_id();
		__u8 *ok = bpf_map_lookup_elem(&cpus, &cpu);

		if (!ok || !*ok)
			return false;
	}
	if (has_cgroup) {
		__u64 cg = bpf_get_current_cgroup_id();

		if (!bpf_map_lookup_elem(&cgroups, &cg))
			return false;
	}
	if (target_mode == LOCK_TARGET_ALL)
		return true;
	id = bpf_get_current_pid_tgid();
	key = target_mode == LOCK_TARGET_TGID ? id >> 32 : (__u32)id;
	return bpf_map_lookup_elem(&targets, &key) != NULL;
}

#endif
