// SPDX-License-Identifier: GPL-2.0
/*
 * Lock types: the contention_begin flags as perf names them ("rwsem:W",
 * "mutex", ...), and -Y's names for them.
 */
#include <errno.h>
#include <string.h>

#include "lock/lock.h"
#include "lock/request/request.h"

static const struct {
	uint32_t flags;
	const char *str;	/* printed */
	const char *name;	/* accepted by -Y for every variant */
} lock_types[] = {
	{ 0,				"semaphore",	"semaphore" },
	{ LCB_F_SPIN,			"spinlock",	"spinlock" },
	{ LCB_F_SPIN | LCB_F_READ,	"rwlock:R",	"rwlock" },
	{ LCB_F_SPIN | LCB_F_WRITE,	"rwlock:W",	"rwlock" },
	{ LCB_F_READ,			"rwsem:R",	"rwsem" },
	{ LCB_F_WRITE,			"rwsem:W",	"rwsem" },
	{ LCB_F_RT,			"rt-mutex",	"rt-mutex" },
	{ LCB_F_RT | LCB_F_READ,	"rwlock-rt:R",	"rwlock-rt" },
	{ LCB_F_RT | LCB_F_WRITE,	"rwlock-rt:W",	"rwlock-rt" },
	{ LCB_F_PERCPU | LCB_F_READ,	"pcpu-sem:R",	"percpu-rwsem" },
	{ LCB_F_PERCPU | LCB_F_WRITE,	"pcpu-sem:W",	"percpu-rwsem" },
	{ LCB_F_MUTEX,			"mutex",	"mutex" },
	{ LCB_F_MUTEX | LCB_F_SPIN,	"mutex",	"mutex" },
};

#define NR_TYPES (sizeof(lock_types) / sizeof(lock_types[0]))

/* -U's primitives, by enum lock_utype. */
static const char *const user_types[LOCK_U_NR] = {
	[LOCK_U_FUTEX] = "futex",
	[LOCK_U_FUTEX_PI] = "futex-pi",
	[LOCK_U_MUTEX] = "pthread_mutex",
	[LOCK_U_RWLOCK_R] = "pthread_rwlock:R",
	[LOCK_U_RWLOCK_W] = "pthread_rwlock:W",
	[LOCK_U_COND] = "pthread_cond",
	[LOCK_U_SEM] = "sem",
	[LOCK_U_BARRIER] = "pthread_barrier",
};

const char *lock_type_name(uint32_t flags)
{
	size_t i;

	if (flags & LOCK_F_USER) {
		i = (flags & LOCK_UTYPE_MASK) >> LOCK_UTYPE_SHIFT;
		return i < LOCK_U_NR ? user_types[i] : "futex";
	}
	if (flags & LOCK_F_HOLDER)
		return "unknown";
	flags &= LCB_F_MASK;
	for (i = 0; i < NR_TYPES; i++)
		if (lock_types[i].flags == flags)
			return lock_types[i].str;
	return "unknown";
}

/* -Y's one name of its own: a mutex's optimistic spin apart from its sleep. */
static const char mutex_spin[] = "mutex-spin";

/*
 * -Y's Ith word, for completion: each type's name and perf's name, -U's
 * primitives, mutex-spin; NULL past the last.  Names repeat.
 */
const char *lock_type__word(unsigned int i)
{
	if (i < NR_TYPES)
		return lock_types[i].name;
	i -= NR_TYPES;
	if (i < NR_TYPES)
		return lock_types[i].str;
	i -= NR_TYPES;
	if (i < LOCK_U_NR)
		return user_types[i];
	return i == LOCK_U_NR ? mutex_spin : NULL;
}

/* One -Y item: "rwsem", "rwsem:W", "pcpu-sem:R", "mutex-spin", ... */
static int type_item(const char *s, size_t n, uint64_t *mask)
{
	uint64_t m = 0;
	size_t i;

	if (n == strlen(mutex_spin) && !strncmp(s, mutex_spin, n)) {
		*mask |= 1ULL << (LCB_F_MUTEX | LCB_F_SPIN);
		return 0;
	}
	/* -U's: "pthread_rwlock" is both modes. */
	for (i = 0; i < LOCK_U_NR; i++) {
		size_t l = strlen(user_types[i]);

		if ((l == n && !strncmp(user_types[i], s, n)) ||
		    (l == n + 2 && !strncmp(user_types[i], s, n) && user_types[i][n] == ':'))
			m |= 1ULL << (LOCK_UTYPE_BIT + i);
	}
	for (i = 0; i < NR_TYPES; i++) {
		const char *str = lock_types[i].str, *name = lock_types[i].name;

		if ((strlen(name) == n && !strncmp(name, s, n)) ||
		    (strlen(str) == n && !strncmp(str, s, n)))
			m |= 1ULL << lock_types[i].flags;
	}
	/* "percpu-rwsem:R" and friends: the family name with a mode. */
	if (!m && n > 2 && s[n - 2] == ':' && (s[n - 1] == 'R' || s[n - 1] == 'W')) {
		uint32_t rw = s[n - 1] == 'R' ? LCB_F_READ : LCB_F_WRITE;

		for (i = 0; i < NR_TYPES; i++)
			if (strlen(lock_types[i].name) == n - 2 &&
			    !strncmp(lock_types[i].name, s, n - 2) &&
			    (lock_types[i].flags & rw))
				m |= 1ULL << lock_types[i].flags;
	}
	if (!m)
		return -EINVAL;
	*mask |= m;
	return 0;
}

int lock_type_parse(const char *arg, uint64_t *mask)
{
	const char *p = arg;

	*mask = 0;
	while (*p) {
		size_t n = strcspn(p, ", ");

		if (n && type_item(p, n, mask))
			return -EINVAL;
		p += n;
		p += strspn(p, ", ");
	}
	return *mask ? 0 : -EINVAL;
}
