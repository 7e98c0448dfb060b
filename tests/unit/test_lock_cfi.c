// SPDX-License-Identifier: GPL-2.0
/*
 * -U's CFI rules (lock/user/ucfi.c): read from this test's own .eh_frame
 * through libdw at places whose rule x86-64 code always has (a function's
 * first instruction; inside a function that keeps a frame pointer; the
 * outermost frame, _start), and the step each rule gives over a stack
 * made here, word by word.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "lock/user/ucfi_int.h"
#include "tests/test.h"

extern char _start[];

/* A function that keeps rbp as its frame pointer, whatever the build's flags. */
__attribute__((noinline, optimize("no-omit-frame-pointer")))
static int framed(volatile int *p)
{
	volatile int a[8];

	for (int i = 0; i < 8; i++)
		a[i] = *p + i;
	return a[*p & 7];
}

/* The rule at code address ADDR of this program (0 when libdw has none). */
static int rule_at(Dwarf_CFI *cfi, const void *addr, struct lock_cfi_rule *r)
{
	Dl_info info;
	Dwarf_Frame *f = NULL;

	if (!dladdr(addr, &info) || !info.dli_fbase)
		return -1;
	if (dwarf_cfi_addrframe(cfi, (Dwarf_Addr)((const char *)addr -
						  (const char *)info.dli_fbase), &f))
		return -1;
	*r = (struct lock_cfi_rule){ 0 };
	lock_cfi__parse(f, r);
	free(f);
	return 0;
}

static void test_parse(void)
{
	struct lock_cfi_rule r;
	Dwarf_CFI *cfi;
	Elf *elf;
	bool found = false;
	int fd;

	TEST_BEGIN("lock cfi: rules from .eh_frame: entry, frame pointer, outermost");
	elf_version(EV_CURRENT);
	fd = open("/proc/self/exe", O_RDONLY);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
	if (!CHECK(cfi, "no CFI in /proc/self/exe"))
		goto out;
	/* At a call's target: CFA = rsp + 8, the return address just below, rbp as it was. */
	CHECK_EQ(rule_at(cfi, (const void *)framed, &r), 0);
	CHECK(r.kind == LOCK_CFI_OK && r.cfa_reg == 7 && r.cfa_off == 8 && r.ra_off == -8 &&
	      r.bp_off == LOCK_CFI_BP_SAME, "entry: kind %u cfa r%u%+d ra %+d bp %d", r.kind,
	      r.cfa_reg, r.cfa_off, r.ra_off, r.bp_off);
	/* Past push rbp; mov rbp, rsp: CFA = rbp + 16, rbp saved below the return address. */
	for (int i = 1; i < 64 && !found; i++)
		if (!rule_at(cfi, (const char *)framed + i, &r) && r.kind == LOCK_CFI_OK &&
		    r.cfa_reg == 6)
			found = true;
	CHECK(found && r.cfa_off == 16 && r.ra_off == -8 && r.bp_off == -16,
	      "frame pointer: found %d cfa r%u%+d ra %+d bp %+d", found, r.cfa_reg, r.cfa_off,
	      r.ra_off, r.bp_off);
	/* The C runtime marks its entry's return address undefined: the walk ends there. */
	CHECK_EQ(rule_at(cfi, _start, &r), 0);
	CHECK_EQ(r.kind, LOCK_CFI_END);
out:
	dwarf_cfi_end(cfi);
	elf_end(elf);
	close(fd);
	TEST_END();
}

/* A stack of 16 words at a made-up address, for lock_cfi__step's reads. */
#define BASE 0x7ffd00001000ULL
static uint64_t stack[16];

static bool read_stack(void *ctx, uint64_t addr, uint64_t *v)
{
	(void)ctx;
	if (addr < BASE || addr >= BASE + sizeof(stack) || addr % 8)
		return false;
	*v = stack[(addr - BASE) / 8];
	return true;
}

static void test_step(void)
{
	struct lock_cfi_rule sp_rule = { 1, 24, -8, LOCK_CFI_BP_SAME, 7, LOCK_CFI_OK };
	struct lock_cfi_rule bp_rule = { 1, 16, -8, -16, 6, LOCK_CFI_OK };
	struct lock_cfi_regs regs = { 0x401000, BASE, BASE + 0x40 };

	TEST_BEGIN("lock cfi: a step by rsp, then by rbp, then off the stack");
	/* Frame 1 (rsp-based, 16 bytes of locals): its return address at sp + 16. */
	stack[2] = 0x402222;
	CHECK(lock_cfi__step(&sp_rule, &regs, read_stack, NULL), "rsp step");
	CHECK(regs.pc == 0x402222 && regs.sp == BASE + 24 && regs.bp == BASE + 0x40,
	      "rsp step: pc %#lx sp %#lx bp %#lx", (unsigned long)regs.pc,
	      (unsigned long)regs.sp, (unsigned long)regs.bp);
	/* Frame 2 (rbp-based): saved rbp at rbp, its return address above it. */
	stack[8] = BASE + 0x78;
	stack[9] = 0x403333;
	CHECK(lock_cfi__step(&bp_rule, &regs, read_stack, NULL), "rbp step");
	CHECK(regs.pc == 0x403333 && regs.sp == BASE + 0x50 && regs.bp == BASE + 0x78,
	      "rbp step: pc %#lx sp %#lx bp %#lx", (unsigned long)regs.pc,
	      (unsigned long)regs.sp, (unsigned long)regs.bp);
	/* Frame 3: its CFA is past the stack; the step fails, the registers stay. */
	CHECK(!lock_cfi__step(&bp_rule, &regs, read_stack, NULL), "a read off the stack");
	CHECK(regs.pc == 0x403333 && regs.sp == BASE + 0x50, "registers kept");
	TEST_END();
}

int main(void)
{
	test_parse();
	test_step();
	TEST_EXIT();
}
