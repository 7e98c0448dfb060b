// SPDX-License-Identifier: GPL-2.0
/* The list of tools: frugal's commands, its benchmarks, its link names. */
#include "cli/tools.h"

static const struct cli_cmd benches[] = {
	{ "lock", "kernel lock contention: mmap_lock and pipe mutex", lock_bench_main,
	  lock_bench_cli_opts, CLI_ARG_TEXT, NULL },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

static const struct cli_group bench_group = {
	.name = "frugal bench",
	.about = "Built-in workloads, for tests and demos.",
	.noun = "benchmark",
	.cmds = benches,
};

static int bench_main(int argc, char **argv)
{
	return cli_group__run(&bench_group, argc, argv);
}

static const struct cli_cmd tools[] = {
	{ "btf", "DWARF to BTF encoder (pahole -J), BTF diff and stat", btf_main,
	  NULL, CLI_ARG_TEXT, &btf_cli_group },
	{ "lock", "kernel lock contention (perf lock contention -b), nothing lost", lock_main,
	  lock_cli_opts, CLI_ARG_CMD, &lock_cli_modes },
	{ "bench", "built-in workloads: 'bench lock' makes kernel lock contention", bench_main,
	  NULL, CLI_ARG_TEXT, &bench_group },
	{ NULL, NULL, NULL, NULL, 0, NULL },
};

const struct cli_group cli_tools = {
	.name = "frugal",
	.args = "[--version] [help [CMD]] CMD [ARGS...]",
	.about = "Low-overhead Linux observability.",
	.noun = "command",
	.cmds = tools,
};

/* A kernel build runs the encoder by path: make PAHOLE=/usr/libexec/frugal/pahole */
const struct cli_link cli_links[] = {
	{ "pahole", "btf", btf_pahole_main },
	{ NULL, NULL, NULL },
};
