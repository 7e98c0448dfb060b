// SPDX-License-Identifier: GPL-2.0
/*
 * bash's completion of frugal: what each command's table holds, written as
 * case statements keyed by the command's path ("btf encode"), and one fixed
 * function that finds the path and the option before the cursor.  It needs
 * bash-completion's _init_completion, as Debian's completions do.
 */
#include <ctype.h>
#include <string.h>

#include "cli/gen/gen.h"

struct tree {
	struct gen_node nodes[GEN_MAX_NODES];
	int n;
};

/* Nodes I and J complete alike: the same table, the same operands. */
static bool alike(const struct gen_node *a, const struct gen_node *b)
{
	return a->opts && a->opts == b->opts && a->operands == b->operands;
}

/* Node I's first alike node is itself: it opens the case for all of them. */
static bool first_alike(const struct tree *t, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (alike(&t->nodes[j], &t->nodes[i]))
			return false;
	return true;
}

/* "lock"|"lock top"|... ; with OPT: "lock -k"|"lock --key"|"lock top -k"|... */
static void patterns(FILE *f, const struct tree *t, int i, const struct cli_opt *o)
{
	const char *sep = "\t";
	int j;

	for (j = i; j < t->n; j++) {
		if (j != i && !alike(&t->nodes[j], &t->nodes[i]))
			continue;
		if (!o) {
			fprintf(f, "%s\"%s\"", sep, t->nodes[j].path);
		} else {
			if (cli_opt__has_letter(o))
				fprintf(f, "%s\"%s -%c\"", sep, t->nodes[j].path, o->val);
			fprintf(f, "%s\"%s --%s\"", cli_opt__has_letter(o) ? "|" : sep,
				t->nodes[j].path, o->name);
		}
		sep = "|";
	}
	fputs(")", f);
}

/* -x --name of each option (that takes a value: ARGS_ONLY). */
static void option_words(FILE *f, const struct cli_opt *opts, bool args_only)
{
	const struct cli_opt *o;
	const char *sep = "";

	for (o = opts; !cli_opt__is_end(o); o++) {
		if (cli_opt__is_heading(o))
			continue;
		if (args_only && o->has_arg != required_argument)
			continue;
		if (cli_opt__has_letter(o)) {
			fprintf(f, "%s-%c", sep, o->val);
			sep = " ";
		}
		fprintf(f, "%s--%s", sep, o->name);
		sep = " ";
	}
}

/* What frugal and every group answer besides their commands (cli/main.c, cli/group.c). */
static void group_words(FILE *f, const struct gen_node *node, bool args_only)
{
	if (!args_only)
		fputs(node->path[0] ? "-h --help" : "-h --help --version", f);
}

static void opts_fn(FILE *f, const struct tree *t, const char *fn, bool args_only)
{
	int i;

	fprintf(f, "%s()\n{\n\tcase $1 in\n", fn);
	for (i = 0; i < t->n; i++) {
		const struct gen_node *node = &t->nodes[i];

		if (!node->group && !first_alike(t, i))
			continue;
		if (node->group)
			fprintf(f, "\t\"%s\")", node->path);
		else
			patterns(f, t, i, NULL);
		fputs(" echo \"", f);
		if (node->group)
			group_words(f, node, args_only);
		else
			option_words(f, node->opts, args_only);
		fputs("\" ;;\n", f);
	}
	fputs("\tesac\n}\n\n", f);
}

static void cmds_fn(FILE *f, const struct tree *t)
{
	const struct cli_cmd *c;
	int i;

	fputs("_frugal_cmds()\n{\n\tcase $1 in\n", f);
	for (i = 0; i < t->n; i++) {
		if (!t->nodes[i].sub)
			continue;
		fprintf(f, "\t\"%s\") echo \"", t->nodes[i].path);
		for (c = t->nodes[i].sub->cmds; c->name; c++)
			fprintf(f, "%s%s", c == t->nodes[i].sub->cmds ? "" : " ", c->name);
		fputs(t->nodes[i].group ? " help\" ;;\n" : "\" ;;\n", f);
	}
	fputs("\tesac\n}\n\n", f);
}

/* Only words that need no quoting in the script: every table's are so. */
static bool plain(const char *w)
{
	for (; *w; w++)
		if (!isalnum((unsigned char)*w) && !strchr("_-:.+", *w))
			return false;
	return true;
}

/* An option's words, each once.  An exit code. */
static int words(FILE *f, const struct cli_opt *o)
{
	const char *w;
	unsigned int i;

	for (i = 0; (w = o->words(i)); i++) {
		if (gen__word_seen(o, i))
			continue;
		if (!plain(w))
			return cli_err(o->name, "word '%s' would need quoting", w);
		fprintf(f, "%s%s", i ? " " : "", w);
	}
	return EXIT_OK;
}

/* One option's value: files, directories, a word or a list.  An exit code. */
static int value_case(FILE *f, const struct tree *t, int i, const struct cli_opt *o)
{
	static const char *const how[] = {
		[CLI_ARG_FILE] = " _filedir ;;\n",
		[CLI_ARG_DIR] = " _filedir -d ;;\n",
		[CLI_ARG_WORD] = " _frugal_word \"",
		[CLI_ARG_LIST] = " _frugal_list \"",
		[CLI_ARG_CMD] = " COMPREPLY=($(compgen -c -- \"$cur\")) ;;\n",
	};
	int err = EXIT_OK;

	patterns(f, t, i, o);
	fputs(how[o->kind], f);
	if (o->kind == CLI_ARG_WORD || o->kind == CLI_ARG_LIST) {
		err = o->words ? words(f, o) : cli_err(o->name, "a word option without words");
		fputs("\" ;;\n", f);
	}
	return err;
}

static int value_fn(FILE *f, const struct tree *t)
{
	const struct cli_opt *o;
	int i, err = EXIT_OK;

	fputs("_frugal_value()\n{\n\tcase \"$1 $2\" in\n", f);
	for (i = 0; i < t->n && !err; i++) {
		if (!t->nodes[i].opts || !first_alike(t, i))
			continue;
		for (o = t->nodes[i].opts; !cli_opt__is_end(o) && !err; o++)
			if (o->name && o->kind != CLI_ARG_TEXT && o->has_arg == required_argument)
				err = value_case(f, t, i, o);
	}
	fputs("\tesac\n}\n\n", f);
	return err;
}

static void operands_fn(FILE *f, const struct tree *t)
{
	static const char *const kinds[] = {
		[CLI_ARG_FILE] = "file", [CLI_ARG_DIR] = "dir", [CLI_ARG_CMD] = "cmd",
	};
	int i;

	fputs("_frugal_operands()\n{\n\tcase $1 in\n", f);
	for (i = 0; i < t->n; i++) {
		enum cli_arg k = t->nodes[i].operands;

		if (!first_alike(t, i) || k >= sizeof(kinds) / sizeof(kinds[0]) || !kinds[k])
			continue;
		if (t->nodes[i].opts)
			patterns(f, t, i, NULL);
		else
			fprintf(f, "\t\"%s\")", t->nodes[i].path);
		fprintf(f, " echo %s ;;\n", kinds[k]);
	}
	fputs("\tesac\n}\n\n", f);
}

/* The part that is the same whatever the tables hold. */
static const char main_fn[] =
"# A word of the list in $1; a comma list's last item.\n"
"_frugal_word()\n"
"{\n"
"\tCOMPREPLY=($(compgen -W \"$1\" -- \"$cur\"))\n"
"\t__ltrim_colon_completions \"$cur\"\n"
"}\n"
"\n"
"_frugal_list()\n"
"{\n"
"\tlocal pre=''\n"
"\t[[ $cur == *,* ]] && pre=${cur%,*},\n"
"\tCOMPREPLY=($(compgen -P \"$pre\" -W \"$1\" -- \"${cur##*,}\"))\n"
"\t__ltrim_colon_completions \"$cur\"\n"
"}\n"
"\n"
"_frugal()\n"
"{\n"
"\tlocal cur prev words cword split\n"
"\t_init_completion -s -n : || return\n"
"\n"
"\t# The commands: each word that names one of the level before it.\n"
"\tlocal path='' i=1 w cmds\n"
"\twhile ((i < cword)); do\n"
"\t\tw=${words[i]}\n"
"\t\tcmds=\" $(_frugal_cmds \"$path\") \"\n"
"\t\t[[ $cmds == *\" $w \"* ]] || break\n"
"\t\tif [[ $w == help ]]; then\n"
"\t\t\t((i + 1 == cword)) && COMPREPLY=($(compgen -W \"${cmds/ help / }\" -- \"$cur\"))\n"
"\t\t\treturn\n"
"\t\tfi\n"
"\t\tpath=${path:+$path }$w\n"
"\t\t((i++))\n"
"\tdone\n"
"\tlocal after_cmds=$i\n"
"\n"
"\t# Then options and their values, up to the first operand.\n"
"\tlocal argopts val='' op=''\n"
"\targopts=\" $(_frugal_argopts \"$path\") \"\n"
"\tfor ((; i < cword; i++)); do\n"
"\t\tw=${words[i]}\n"
"\t\tif [[ $w == -- ]]; then\n"
"\t\t\top=$((i + 1))\n"
"\t\t\tbreak\n"
"\t\telif [[ $w != -* ]]; then\n"
"\t\t\top=$i\n"
"\t\t\tbreak\n"
"\t\telif [[ $argopts == *\" $w \"* ]]; then\n"
"\t\t\t((i + 1 == cword)) && val=$w\n"
"\t\t\t((i++))\n"
"\t\tfi\n"
"\tdone\n"
"\t$split && [[ -z $op ]] && val=$prev\n"
"\n"
"\tlocal kind\n"
"\tkind=$(_frugal_operands \"$path\")\n"
"\tif [[ -n $op ]]; then\n"
"\t\tcase $kind in\n"
"\t\tcmd) _command_offset \"$op\" ;;\n"
"\t\tfile) _filedir ;;\n"
"\t\tdir) _filedir -d ;;\n"
"\t\tesac\n"
"\telif [[ -n $val ]]; then\n"
"\t\t_frugal_value \"$path\" \"$val\"\n"
"\telif [[ $cur == -* ]]; then\n"
"\t\tCOMPREPLY=($(compgen -W \"$(_frugal_opts \"$path\")\" -- \"$cur\"))\n"
"\telse\n"
"\t\t((after_cmds == cword)) &&\n"
"\t\t\tCOMPREPLY=($(compgen -W \"$(_frugal_cmds \"$path\")\" -- \"$cur\"))\n"
"\t\t((${#COMPREPLY[@]})) && return\n"
"\t\tcase $kind in\n"
"\t\tcmd) COMPREPLY=($(compgen -c -- \"$cur\")) ;;\n"
"\t\tfile) _filedir ;;\n"
"\t\tdir) _filedir -d ;;\n"
"\t\tesac\n"
"\tfi\n"
"} &&\n"
"\tcomplete -F _frugal frugal\n";

int gen__bash(FILE *f)
{
	struct tree t;
	int err;

	t.n = gen__nodes(t.nodes, GEN_MAX_NODES);
	if (t.n < 0)
		return cli_err(NULL, "more than %d commands", GEN_MAX_NODES);
	fputs("# bash completion for frugal(1), written by frugal-gen from the option\n"
	      "# tables frugal parses its command lines with.  Generated: do not edit.\n"
	      "# shellcheck shell=bash disable=SC2207\n\n", f);
	cmds_fn(f, &t);
	opts_fn(f, &t, "_frugal_opts", false);
	opts_fn(f, &t, "_frugal_argopts", true);
	err = value_fn(f, &t);
	operands_fn(f, &t);
	fputs(main_fn, f);
	return err;
}
