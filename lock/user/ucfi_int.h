/* SPDX-License-Identifier: GPL-2.0 */
/*
 * -U's own unwinding step, x86-64: a frame's CFI rule when it is one of the
 * simple ones compiled code has at a call (CFA = rsp or rbp + an offset,
 * the return address and the saved rbp at offsets from the CFA), read from
 * libdw's view of .eh_frame or .debug_frame, and the step it gives from a
 * frame's registers to its caller's.  Anything else is LOCK_CFI_BAD: the
 * walk then hands the stack to libdwfl's unwinder, which takes any
 * expression.  ustack.c memoizes the rules by code address.
 */
#ifndef FRUGAL_LOCK_UCFI_H
#define FRUGAL_LOCK_UCFI_H

#include <stdbool.h>
#include <stdint.h>

#include <elfutils/libdw.h>

enum lock_cfi_kind { LOCK_CFI_OK = 1, LOCK_CFI_END, LOCK_CFI_BAD };
#define LOCK_CFI_BP_SAME INT32_MIN	/* rbp keeps its value */

struct lock_cfi_rule {
	uint64_t key;		/* ustack.c's memo key: never 0 */
	int32_t cfa_off, ra_off, bp_off;
	uint8_t cfa_reg;	/* 7 (rsp) or 6 (rbp), DWARF's numbers */
	uint8_t kind;		/* enum lock_cfi_kind */
};

/* The registers the step needs: DWARF's 16 (rip), 7 (rsp), 6 (rbp). */
struct lock_cfi_regs {
	uint64_t pc, sp, bp;
};

/* F's rule into R (its key untouched); R->kind LOCK_CFI_BAD when it is not simple. */
void lock_cfi__parse(Dwarf_Frame *f, struct lock_cfi_rule *r);

/*
 * From the registers of a frame whose rule is R (LOCK_CFI_OK) to its
 * caller's, reading the stack through READ.  False when a word could not
 * be read (REGS is then unchanged).
 */
bool lock_cfi__step(const struct lock_cfi_rule *r, struct lock_cfi_regs *regs,
		    bool (*read)(void *ctx, uint64_t addr, uint64_t *v), void *ctx);

#endif
