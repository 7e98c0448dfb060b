// SPDX-License-Identifier: GPL-2.0
/*
 * CPU lists, and waiting until every CPU has left what it was running
 * with preemption off.
 */
#include <ctype.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/membarrier.h>
#include <sys/syscall.h>

#include "lib/cpus.h"
#include "lib/linebuf.h"

int cpus__parse_list(const char *list, unsigned char *set, int nr_cpus)
{
	const char *p = list;
	char *end;

	while (*p) {
		unsigned long a, b;

		/* strtoul would skip blanks and take a sign: only digits here. */
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (end == p || errno)
			return -EINVAL;
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				return -EINVAL;
			b = strtoul(p, &end, 10);
			if (end == p || errno || b < a)
				return -EINVAL;
		}
		if (b >= (unsigned long)nr_cpus)
			return -ERANGE;
		for (; a <= b; a++)
			set[a] = 1;
		if (*end && *end != ',')
			return -EINVAL;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* The kernel's grace period: every CPU has passed a quiescent state. */
static int grace_period(void)
{
	return syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) ? -errno : 0;
}

/* The online CPUs into SET (NR bytes): 0, or -errno. */
static int online_cpus(unsigned char *set, int nr)
{
	struct linebuf lb;
	char buf[4096], *line;
	size_t len;
	int err;

	err = linebuf__open(&lb, "/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (err)
		return err;
	err = linebuf__next(&lb, &line, &len);
	linebuf__close(&lb);
	if (err <= 0)
		return err ? err : -ENODATA;
	return cpus__parse_list(line, set, nr);
}

/* Run on CPU, and be there: 0, or -errno (not allowed, offline). */
static int run_on(int cpu, cpu_set_t *one, size_t size)
{
	CPU_ZERO_S(size, one);
	CPU_SET_S(cpu, size, one);
	if (sched_setaffinity(0, size, one))
		return -errno;
	/* The kernel moves a running thread before the call returns; look. */
	for (int i = 0; i < 100 && sched_getcpu() != cpu; i++)
		sched_yield();
	return sched_getcpu() == cpu ? 0 : -EAGAIN;
}

int cpus__quiesce(void)
{
	int nr = (int)sysconf(_SC_NPROCESSORS_CONF), err = 0, cpu;
	size_t size;
	cpu_set_t *old = NULL, *one = NULL;
	unsigned char *online = NULL;

	__sync_synchronize();
	if (nr < 1)
		return grace_period();
	/* The kernel's CPU set may be bigger than the count configured. */
	for (;;) {
		size = CPU_ALLOC_SIZE(nr);
		old = CPU_ALLOC(nr);
		if (!old)
			return -ENOMEM;
		if (!sched_getaffinity(0, size, old))
			break;
		CPU_FREE(old);
		old = NULL;
		if (errno != EINVAL || nr > (1 << 16))
			return grace_period();
		nr *= 2;
	}
	one = CPU_ALLOC(nr);
	online = calloc(nr, 1);
	if (!one || !online) {
		err = -ENOMEM;
		goto out;
	}
	if (online_cpus(online, nr)) {
		err = grace_period();
		goto out;
	}
	for (cpu = 0; cpu < nr; cpu++)
		if (online[cpu] && !CPU_ISSET_S(cpu, size, old))
			break;
	if (cpu < nr) {
		err = grace_period();
		goto out;
	}
	for (cpu = 0; cpu < nr && !err; cpu++)
		if (online[cpu])
			err = run_on(cpu, one, size);
	/* A CPU gone offline meanwhile, or one we could not stay on. */
	if (err)
		err = grace_period();
	if (sched_setaffinity(0, size, old) && !err)
		err = -errno;
out:
	CPU_FREE(old);
	if (one)
		CPU_FREE(one);
	free(online);
	return err;
}
