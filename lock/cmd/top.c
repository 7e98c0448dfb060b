// SPDX-License-Identifier: GPL-2.0
/*
 * frugal lock top: the report as a live terminal view.  Each interval (1 s,
 * or -I) the screen is redrawn: a line with the rate and the interval's
 * accounting, then the rows that fit, sorted by the key chosen with a key
 * press.  The terminal is put in non-canonical mode without echo and given
 * back as it was on every way out.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>

#include "lib/io.h"
#include "lock/cmd/top_int.h"
#include "lock/out/out.h"
#include "lock/report/report.h"
#include "lock/rows/rows.h"

/* The keys that pick the sort, as perf lock's -k names them. */
static const struct {
	char key;
	enum lock_sort sort;
	const char *name;
} keys[] = {
	{ 'c', LOCK_SORT_CONTENDED, "contended" },
	{ 't', LOCK_SORT_WAIT_TOTAL, "wait_total" },
	{ 'm', LOCK_SORT_WAIT_MAX, "wait_max" },
	{ 'n', LOCK_SORT_WAIT_MIN, "wait_min" },
	{ 'a', LOCK_SORT_AVG_WAIT, "avg_wait" },
};
#define NR_KEYS (sizeof(keys) / sizeof(keys[0]))

int lock_top__start(struct lock_top *tp, int fd)
{
	struct termios raw;

	memset(tp, 0, sizeof(*tp));
	tp->fd = fd;
	if (tcgetattr(fd, &tp->saved))
		return -errno;
	raw = tp->saved;
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSANOW, &raw))
		return -errno;
	tp->raw = true;
	/* The alternate screen, the cursor hidden: the shell's screen comes back at the end. */
	fputs("\033[?1049h\033[?25l", stdout);
	fflush(stdout);
	return 0;
}

void lock_top__stop(struct lock_top *tp)
{
	if (!tp->raw)
		return;
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(tp->fd, TCSANOW, &tp->saved);
	tp->raw = false;
}

int lock_top__keys(struct lock_top *tp, enum lock_sort *sort)
{
	char buf[32];
	ssize_t n, i;
	size_t k;
	int what = 0;

	n = io__read(tp->fd, buf, sizeof(buf));
	for (i = 0; i < n; i++) {
		if (buf[i] == 'q' || buf[i] == 'Q')
			return LOCK_TOP_QUIT;
		for (k = 0; k < NR_KEYS; k++)
			if (buf[i] == keys[k].key) {
				*sort = keys[k].sort;
				what = LOCK_TOP_REDRAW;
			}
	}
	return what;
}

static const char *sort_name(enum lock_sort s)
{
	size_t k;

	for (k = 0; k < NR_KEYS; k++)
		if (keys[k].sort == s)
			return keys[k].name;
	return "?";
}

/* Up to COLS columns of each line of TEXT, and no more than ROWS lines. */
static void put_clipped(const char *text, int cols, int rows)
{
	const char *p = text, *nl;
	int n = 0;

	for (; *p && n < rows; n++, p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		printf("%.*s\033[K\n", (int)(nl - p) < cols ? (int)(nl - p) : cols, p);
		if (!*nl)
			break;
	}
}

/* A whole positive number from the environment, else DEF. */
static unsigned short env_size(const char *name, unsigned short def)
{
	const char *v = getenv(name);
	unsigned long n;
	char *end;

	if (!v || *v < '1' || *v > '9')
		return def;
	errno = 0;
	n = strtoul(v, &end, 10);
	return *end || errno || n > USHRT_MAX ? def : n;
}

/*
 * The terminal's size.  A serial console reports 0x0 (nothing set it), and
 * clipping to that would draw every row empty: a dimension the terminal
 * does not give comes from COLUMNS or LINES (the names curses reads), else
 * 80x24.
 */
static void term_size(int fd, unsigned short *cols, unsigned short *rows)
{
	struct winsize ws = { 0 };

	if (ioctl(fd, TIOCGWINSZ, &ws))
		ws.ws_col = ws.ws_row = 0;
	*cols = ws.ws_col ? ws.ws_col : env_size("COLUMNS", 80);
	*rows = ws.ws_row ? ws.ws_row : env_size("LINES", 24);
}

int lock_top__draw(struct lock_top *tp, const struct lock_report_cfg *rc, struct lock_table *t,
		   const struct lock_accounting *a, const struct lock_run_info *ri,
		   struct ksyms *ks)
{
	struct lock_report_cfg screen = *rc;
	struct winsize ws;
	const uint64_t *c = a->c;
	char *text = NULL, when[16] = "";
	size_t len = 0;
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;
	int err;

	term_size(STDOUT_FILENO, &ws.ws_col, &ws.ws_row);
	if (ws.ws_row < 6)
		ws.ws_row = 6;
	if (localtime_r(&now, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	f = open_memstream(&text, &len);
	if (!f)
		return -errno;
	/* As many rows as fit under the two status lines and the header. */
	if (!screen.entries || screen.entries > (unsigned int)ws.ws_row - 5)
		screen.entries = ws.ws_row - 5;
	err = lock_report(f, LOCK_FMT_TOP, &screen, t, a, ri, ks);
	if (fclose(f) && !err)
		err = -errno;
	if (!err) {
		printf("\033[H");
		printf("frugal lock top - %s  %.0f contentions/s  sort: %s  keys: c t m n a, q quits\033[K\n",
		       when, ri->seconds > 0 ? c[LC_ENDS] / ri->seconds : 0.0, sort_name(rc->sort));
		printf("completed %" PRIu64 ": rows %" PRIu64 ", filtered %" PRIu64
		       ", lost %" PRIu64 " (no begin %" PRIu64 ", buffer full %" PRIu64
		       "); runs skipped %" PRIu64 "\033[K\n",
		       c[LC_ENDS], c[LC_AGGR_HIT] + a->merged, c[LC_FILTERED],
		       c[LC_UNMATCHED] + c[LC_LOST_RING], c[LC_UNMATCHED], c[LC_LOST_RING],
		       a->skipped_begin + a->skipped_end);
		put_clipped(text, ws.ws_col, ws.ws_row - 2);
		printf("\033[J");
		fflush(stdout);
	}
	free(text);
	tp->drawn++;
	return err;
}
