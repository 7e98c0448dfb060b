// SPDX-License-Identifier: GPL-2.0
/* -g's names: cgroup ids to paths, with one walk of the cgroup v2 hierarchy for all ids. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>

#include "lib/iodir.h"
#include "lib/linebuf.h"
#include "lock/request/request.h"

/*
 * A row's key is bpf_get_current_cgroup_id(): an id in the cgroup v2
 * hierarchy, which is also the inode number of the cgroup's directory
 * there.  Only that mount may be searched: on a hybrid system
 * /sys/fs/cgroup is a tmpfs holding the v1 hierarchies, whose inode numbers
 * are ids of other hierarchies and would give a wrong name.  A cgroup that
 * is not found (removed before the report, deeper than the walk goes, or
 * with a path longer than IODIR_PATH_MAX) is named "cgroup:ID", as perf
 * names it; a name is never cut short.  -G goes the other way: a path to
 * the inode number of its directory.
 */
#define CG_WALK_DEPTH IODIR_WALK_MAX_DEPTH

struct cg_walk {
	const uint64_t *ids;
	size_t n, left;		/* ids, and ids still unnamed */
	char **names;
	size_t root_len;	/* strip the mount point from walk paths */
	dev_t dev;		/* the v2 mount's: no descent into other mounts */
};

static bool is_cgroup2(const char *path)
{
	struct statfs sf;

	return !statfs(path, &sf) && sf.f_type == CGROUP2_SUPER_MAGIC;
}

/* Undo mountinfo's octal escapes (\040 for a blank) in place. */
static void unescape_mount(char *s)
{
	char *d = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 3;
		} else {
			*d++ = *s;
		}
	}
	*d = '\0';
}

/* The mount point of a cgroup2 line of mountinfo, into BUF; 0 if none. */
static int mountinfo_cgroup2(char *line, char *buf, size_t size)
{
	char *sep = strstr(line, " - "), *f[5], *save = NULL;
	int i;

	if (!sep || strncmp(sep + 3, "cgroup2 ", 8))
		return 0;
	*sep = '\0';
	for (i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " ", &save)))
			return 0;
	unescape_mount(f[4]);
	if (strlen(f[4]) >= size)
		return 0;
	strcpy(buf, f[4]);
	return 1;
}

/* Where the v2 hierarchy is mounted: the usual places, else mountinfo. */
static int cgroup2_mount(char *buf, size_t size)
{
	static const char *const usual[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	struct linebuf lb;
	char lbuf[4096], *line;
	size_t i, len;
	int err, found = 0;

	for (i = 0; i < sizeof(usual) / sizeof(usual[0]); i++)
		if (is_cgroup2(usual[i]) && strlen(usual[i]) < size) {
			strcpy(buf, usual[i]);
			return 0;
		}
	err = linebuf__open(&lb, "/proc/self/mountinfo", lbuf, sizeof(lbuf));
	if (err)
		return err;
	/* A line too long for lbuf is skipped; a read error ends the search. */
	while (!found && ((err = linebuf__next(&lb, &line, &len)) > 0 || err == -E2BIG))
		if (err > 0)
			found = mountinfo_cgroup2(line, buf, size);
	linebuf__close(&lb);
	return found ? 0 : -ENOENT;
}

static void cg_name(struct cg_walk *w, uint64_t id, const char *name)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->ids[i] == id && !w->names[i]) {
			w->names[i] = strdup(name);
			if (w->names[i])
				w->left--;
		}
}

static int cg_visit(const struct iodir_walk_entry *e, void *ctx)
{
	struct cg_walk *w = ctx;
	struct stat st;

	/* Gone since it was listed, or its path too long: left unnamed. */
	if (e->err || e->type != DT_DIR)
		return IODIR_WALK_CONTINUE;
	if (fstatat(e->dirfd, e->name, &st, AT_SYMLINK_NOFOLLOW))
		return IODIR_WALK_CONTINUE;
	if (st.st_dev != w->dev)
		return IODIR_WALK_SKIP;
	cg_name(w, st.st_ino, e->path + w->root_len);
	return w->left ? IODIR_WALK_CONTINUE : IODIR_WALK_STOP;
}

int lock_cgroup_id(const char *path, uint64_t *id)
{
	char root[IODIR_PATH_MAX], full[IODIR_PATH_MAX];
	struct stat st;
	int err = cgroup2_mount(root, sizeof(root));

	if (err)
		return err;
	if (snprintf(full, sizeof(full), "%s/%s", root, path[0] == '/' ? path + 1 : path) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	if (stat(full, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || !is_cgroup2(full))
		return -ENOTDIR;
	*id = st.st_ino;
	return 0;
}

/* Names for IDS, each NULL where the cgroup was not found; NULL if no memory. */
char **lock_cgroup_names(const uint64_t *ids, size_t n)
{
	struct cg_walk w = { .ids = ids, .n = n, .left = n };
	char root[IODIR_PATH_MAX];
	struct stat st;

	w.names = calloc(n ? n : 1, sizeof(char *));
	if (!w.names || cgroup2_mount(root, sizeof(root)) || stat(root, &st))
		return w.names;
	w.root_len = strlen(root);
	w.dev = st.st_dev;
	cg_name(&w, st.st_ino, "/");
	if (w.left)
		iodir__walk(AT_FDCWD, root, CG_WALK_DEPTH, cg_visit, &w);
	return w.names;
}

void lock_cgroup_names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}
