// SPDX-License-Identifier: GPL-2.0
/*
 * frugal-gen man TEMPLATE   a man page: TEMPLATE's prose with the tables' parts
 * frugal-gen bash           the bash completion
 * Both on stdout; the Makefile's man and completion targets run it.
 */
#include <errno.h>
#include <string.h>

#include "cli/gen/gen.h"
#include "cli/tools.h"

/* NODE, its path P, then every command below it. */
static int walk(struct gen_node *nodes, int n, int max, const char *p,
		const struct cli_cmd *c)
{
	const struct cli_cmd *s;

	if (n < 0 || n >= max)
		return -1;
	snprintf(nodes[n].path, sizeof(nodes[n].path), "%s", p);
	nodes[n].sub = c->sub;
	nodes[n].opts = c->opts;
	nodes[n].operands = c->operands;
	nodes[n].group = c->sub && !c->opts;
	n++;
	for (s = c->sub ? c->sub->cmds : NULL; s && s->name; s++) {
		char sp[sizeof(nodes[0].path)];

		snprintf(sp, sizeof(sp), "%s%s%s", p, *p ? " " : "", s->name);
		n = walk(nodes, n, max, sp, s);
	}
	return n;
}

bool gen__word_seen(const struct cli_opt *o, unsigned int i)
{
	const char *w = o->words(i);
	unsigned int j;

	for (j = 0; j < i; j++)
		if (!strcmp(o->words(j), w))
			return true;
	return false;
}

int gen__nodes(struct gen_node *nodes, int max)
{
	const struct cli_cmd frugal = { .name = "frugal", .sub = &cli_tools };

	return walk(nodes, 0, max, "", &frugal);
}

int main(int argc, char **argv)
{
	int err;

	cli_cmd_name = "gen";
	if (argc == 3 && !strcmp(argv[1], "man"))
		err = gen__man(stdout, argv[2]);
	else if (argc == 2 && !strcmp(argv[1], "bash"))
		err = gen__bash(stdout);
	else {
		fputs("usage: frugal-gen man TEMPLATE | frugal-gen bash\n", stderr);
		return EXIT_USAGE;
	}
	if (!err && (fflush(stdout) || ferror(stdout)))
		err = cli_err("stdout", "%s", strerror(errno));
	return err;
}
