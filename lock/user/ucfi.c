// SPDX-License-Identifier: GPL-2.0
/*
 * -U's CFI rules and the step they give (ucfi_int.h).  libdw hands a rule as
 * DWARF expressions; the simple ones are a single register-plus-offset
 * for the CFA and "at CFA+N" (or "same value") for rip and rbp.
 */
#include <dwarf.h>

#include "lock/user/ucfi_int.h"

/* A register rule's offset from the CFA: "at CFA+N" and nothing else. */
static bool at_cfa(const Dwarf_Op *ops, size_t n, int32_t *off)
{
	if (!ops || n < 1 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 1)
		*off = 0;
	else if (n == 2 && ops[1].atom == DW_OP_plus_uconst)
		*off = (int32_t)ops[1].number;
	else if (n == 3 && ops[1].atom == DW_OP_consts && ops[2].atom == DW_OP_plus)
		*off = (int32_t)(int64_t)ops[1].number;
	else
		return false;
	return true;
}

void lock_cfi__parse(Dwarf_Frame *f, struct lock_cfi_rule *r)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	r->kind = LOCK_CFI_BAD;
	if (dwarf_frame_cfa(f, &ops, &n) || n != 1)
		return;
	/* libdw gives a register rule as DW_OP_bregx REG OFF */
	if (ops[0].atom == DW_OP_bregx && (ops[0].number == 6 || ops[0].number == 7)) {
		r->cfa_reg = ops[0].number;
		r->cfa_off = (int32_t)(int64_t)ops[0].number2;
	} else if (ops[0].atom == DW_OP_breg7 || ops[0].atom == DW_OP_breg6) {
		r->cfa_reg = ops[0].atom - DW_OP_breg0;
		r->cfa_off = (int32_t)(int64_t)ops[0].number;
	} else {
		return;
	}
	if (dwarf_frame_register(f, 16, mem, &ops, &n))
		return;
	if (n == 0 && ops == mem) {	/* undefined: the outermost frame */
		r->kind = LOCK_CFI_END;
		return;
	}
	if (!at_cfa(ops, n, &r->ra_off))
		return;
	if (dwarf_frame_register(f, 6, mem, &ops, &n))
		return;
	if (n == 0)			/* same value (or lost: left as it is) */
		r->bp_off = LOCK_CFI_BP_SAME;
	else if (!at_cfa(ops, n, &r->bp_off))
		return;
	r->kind = LOCK_CFI_OK;
}

bool lock_cfi__step(const struct lock_cfi_rule *r, struct lock_cfi_regs *regs,
		    bool (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx)
{
	uint64_t cfa = (r->cfa_reg == 7 ? regs->sp : regs->bp) + (int64_t)r->cfa_off;
	uint64_t ra, bp = regs->bp;

	if (!read(ctx, cfa + (int64_t)r->ra_off, &ra))
		return false;
	if (r->bp_off != LOCK_CFI_BP_SAME && !read(ctx, cfa + (int64_t)r->bp_off, &bp))
		return false;
	regs->pc = ra;
	regs->sp = cfa;
	regs->bp = bp;
	return true;
}
