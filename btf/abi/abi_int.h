/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the abi stage: the comparison graph (btf/abi/abi.c), filled
 * from two files (abi_side.c) or two trees of them (abi_tree.c) and
 * printed (abi_out.c).
 *
 * Nodes are symbols present on both sides and pairs of structs, unions
 * or enums (OLD's id, NEW's id), each pair made once (the map PAIRS) and
 * compared from a queue (TODO), so the stack stays flat.  A node's own
 * changes are what differs in it (a member's offset, a parameter's type);
 * its edges lead to the pairs its members, parameters or return reach,
 * through pointers, typedefs and arrays, each with the label of the way
 * ("member 'dev': struct net_device * -> ").  A symbol is changed when it
 * has changes of its own or reaches a pair that has.  Lists are indexes
 * into the arrays, -1 ends them.
 */
#ifndef FRUGAL_BTF_ABI_INT_H
#define FRUGAL_BTF_ABI_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "btf/abi/abi.h"
#include "lib/idxmap.h"

struct btf;

enum abi_change_kind {
	ABI_CH_SYM_REMOVED,
	ABI_CH_SYM_ADDED,
	ABI_CH_TYPE,
	ABI_CH_PARAMS,
	ABI_CH_SIZE,
	ABI_CH_MEMBER_REMOVED,
	ABI_CH_MEMBER_OFFSET,
	ABI_CH_MEMBER_BITS,
	ABI_CH_MEMBER_ADDED,
	ABI_CH_MEMBER_GROWN,
	ABI_CH_ENUM_VALUE,
	ABI_CH_ENUM_REMOVED,
	ABI_CH_ENUM_ADDED,
	ABI_CH_MEMBER_WRAPPED,
	ABI_CH_ENUM_BITFIELD,
	ABI_CH_TYPEDEF,
	ABI_CH_CNT,
};

struct abi_rule {
	bool incompat;
	const char *what;
};

/* Whether each kind of change breaks users: the one table (btf/abi/abi.c). */
extern const struct abi_rule abi_rules[ABI_CH_CNT];

struct abi_change {
	char *text;
	enum abi_change_kind kind;
	uint32_t off;		/* a moved member's bit offset in OLD; else UINT32_MAX */
	int32_t next;
};

struct abi_edge {
	char *label;		/* printed before the target's name */
	uint32_t from, to;
	uint32_t off;		/* by value: the member's bit offset in OLD */
	bool by_value;		/* no pointer on the way: the target is embedded */
	int32_t next;
};

struct abi_node {
	uint32_t id[2];		/* OLD's and NEW's type ids (FUNC or VAR for a symbol) */
	char *name;		/* a type's, "struct sk_buff"; NULL for a symbol */
	int32_t ch_head, ch_tail, ed_head;
	unsigned int nchanges;
	bool incompat;		/* an own change breaks users */
	bool is_sym;
	bool tainted;		/* reaches a change (abi__mark_tainted) */
	uint32_t stamp;		/* the last symbol's walk that met it, + 1 */
	int32_t via;		/* ... and the edge it came by */
	bool behind;		/* ... after another changed type: no path to it */
	uint32_t depth;		/* ... and how many edges from that symbol */
	uint32_t *syms;		/* symbols (indexes) that reach it, when changed */
	size_t nsyms, syms_cap;
	/*
	 * A cause is a changed type whose change is its own; a type whose
	 * only changes are its size and the offsets after a member that
	 * embeds a type of another size (abi__find_causes) follows that
	 * member's type (FOLLOWS, a node) and is told under its cause.
	 */
	int32_t follows;
	char *path;		/* the shortest path from a symbol (PATH_SYM) to it */
	uint32_t path_sym, path_depth;
	uint16_t bare;		/* where the name starts past a tree's "obj: " */
};

enum abi_sym_status { ABI_SYM_SAME, ABI_SYM_ADDED, ABI_SYM_REMOVED, ABI_SYM_CHANGED };

struct abi_sym {
	char *name;
	enum abi_sym_status status;
	bool incompat;
	bool compared;		/* in both BTFs: NODE is its node */
	bool suppressed;	/* by --suppressions: reported as the same */
	bool uncompared;	/* on both sides, without BTF on one: KIND says what */
	bool guessed;		/* of several FUNCs of its name, one picked by type */
	uint8_t kind;		/* enum abi_kind (btf/abi/abi_syms_int.h) */
	uint32_t node;
	char **paths;
	size_t npaths, paths_cap;
};

#define ABI_CAUSE_NAMES 5	/* symbols named after a cause */

/*
 * One cause (btf/abi/abi_cause.c): a type whose own definition changed,
 * the same way in each object that has it (a tree: vmlinux's struct
 * net_device as each module sees it), with what it reaches.  Its strings
 * point into the report's nodes and symbols.
 */
struct abi_cause {
	uint32_t node;		/* the first object's: its name and changes */
	uint32_t path_node;	/* the object's whose path is the shortest */
	size_t nobjects;
	size_t nsyms;		/* symbols that reach it, over its objects */
	const char *first[ABI_CAUSE_NAMES];	/* the first by name */
	size_t nfirst;
	const char **moves;	/* types that only follow it, sorted, once each */
	size_t nmoves, moves_cap;
	bool incompat;
};

struct abi {
	struct btf *btf[2];
	struct abi_node *nodes;
	size_t nn, nodes_cap;
	struct abi_change *ch;
	size_t nch, ch_cap;
	struct abi_edge *ed;
	size_t ned, ed_cap;
	struct idxmap pairs;
	uint32_t *todo;		/* pairs made, not compared yet */
	size_t ntodo, todo_cap;
	struct abi_sym *syms;	/* sorted by name */
	size_t nsyms, syms_cap;
	char warning[512];	/* abi__warning(); "": none */
	struct abi_cause *causes;	/* abi__causes(): most symbols first */
	size_t ncauses;
	bool supp_given;	/* --suppressions: the totals say how many */
	size_t supp_syms, supp_types;
	bool no_crcs[2];	/* OLD's, NEW's Module.symvers given, every CRC 0 */
	/*
	 * The DWARF model (btf/abi/abi_units_int.h), while paths are found:
	 * per node, the index of its type's name among those the exporting
	 * units define (ABI_GATE_ANON: an anonymous type, followed as what
	 * holds it is; ABI_GATE_NONE: no such unit defines it), and per name
	 * whether the unit of the symbol walked defines it.  GATE_DEFINED
	 * NULL: every type is followed (the BTF model; a symbol whose unit
	 * was not found).
	 */
	int32_t *gate_node;
	const uint8_t *gate_defined;
	bool units_model;	/* the DWARF model: set before the symbols are compared */
	size_t units_syms, units_found;	/* ... for so many symbols, their unit found */
};

#define ABI_GATE_ANON	(-1)
#define ABI_GATE_NONE	(-2)

/* A symbol's node for OLD's A and NEW's B (FUNC or VAR ids): 0 or -ENOMEM. */
int abi__symbol_node(struct abi *abi, uint32_t a, uint32_t b, uint32_t *out);
/* Compare them, making the pair nodes they reach: 0 or -errno. */
int abi__compare_symbol(struct abi *abi, uint32_t node);
/*
 * A symbol compared by types other than a FUNC's or VAR's (a variable
 * typed from DWARF, abi_side.c): NODE's ids are the two types, walked
 * under PREFIX; or one change of its own, told as FMT says.  0 or -errno.
 */
int abi__compare_types(struct abi *abi, uint32_t node, const char *prefix);
int abi__add_type_change(struct abi *abi, uint32_t node, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* After every symbol is compared: which nodes reach a change. */
void abi__mark_tainted(struct abi *abi);
/* Symbol SI's paths and status; QUEUE holds a slot per node. */
int abi__symbol_paths(struct abi *abi, uint32_t si, uint32_t *queue);
/* After the paths: which changed types follow another (FOLLOWS), from the edges. */
void abi__find_causes(struct abi *abi);
/* The causes of the whole report, once it is complete: 0 or -ENOMEM. */
int abi__causes(struct abi *abi);
/* Type ID of BTF named as in paths ("struct sk_buff *", "char[16]"), in BUF. */
const char *abi__type_name(const struct btf *btf, uint32_t id, char *buf, size_t len);
/* Everything freed but the BTFs.  NULL-safe fields. */
void abi__free(struct abi *abi);

/*
 * One comparison (abi_side.c): PATH[i] on BASE[i] (NULL: none), its
 * symbols into ABI.  A NULL PATH[i] is a side with no symbols (a module
 * only the other tree has).  0, or -1 with ERR filled.
 */
int abi__compare_files(const struct btf_abi_opts *o, const char *const path[2],
		       const char *const base[2], struct abi *abi, struct abi_err *err);
/* Two trees (abi_tree.c): every pair's report moved into ABI. */
int abi_tree__compare(const struct btf_abi_opts *o, struct abi *abi, struct abi_err *err);

/* ERR's first failure, WHAT (may be NULL) and the rest as printf: -1. */
int abi_fail(struct abi_err *err, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
