// SPDX-License-Identifier: GPL-2.0
/* -U: the C library's locking code, told by names (ulibc_int.h). */
#include <stdbool.h>
#include <string.h>

#include "lock/user/ulibc_int.h"

bool lock_ulibc__lock_func(const char *f)
{
	static const char *const prefixes[] = {
		"pthread_mutex_", "__pthread_mutex_", "___pthread_mutex_",
		"pthread_rwlock_", "__pthread_rwlock_", "___pthread_rwlock_",
		"pthread_cond_", "__pthread_cond_", "___pthread_cond_",
		"pthread_barrier_", "__pthread_barrier_", "sem_", "__new_sem_",
		"__old_sem_", "do_futex_wait", "__futex", "futex_", "__lll_", "lll_",
		"syscall", "__GI_", "__pthread_clockjoin", "__condvar_",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(f, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

bool lock_ulibc__is_libc(const char *bin)
{
	static const char *const prefixes[] = {
		"libc.so", "libc-2.", "libpthread.so", "libpthread-2.", "ld-musl-", "libc.musl-",
	};
	size_t i;

	for (i = 0; bin && i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(bin, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

enum lock_utype lock_ulibc__type_of(const char *f)
{
	while (*f == '_')
		f++;
	if (!strncmp(f, "pthread_mutex_", 14))
		return LOCK_U_MUTEX;
	if (!strncmp(f, "pthread_rwlock_", 15))
		return strstr(f, "rdlock") ? LOCK_U_RWLOCK_R :
		       strstr(f, "wrlock") ? LOCK_U_RWLOCK_W : LOCK_U_NR;
	if (!strncmp(f, "pthread_cond_", 13))
		return LOCK_U_COND;
	if (!strncmp(f, "new_sem_", 8) || !strncmp(f, "sem_", 4) || !strncmp(f, "old_sem_", 8))
		return LOCK_U_SEM;
	if (!strncmp(f, "pthread_barrier_", 16))
		return LOCK_U_BARRIER;
	return LOCK_U_NR;
}
