#!/usr/bin/env python3
"""Keep the kernel's BPF run-time statistics on while this process lives.

kernel.bpf_stats_enabled is one switch for the whole machine: anything else
that sets it back to 0 mid-run would zero the benchmark's counters.  The
BPF_ENABLE_STATS command returns a file descriptor that keeps the statistics
on, independently of the sysctl, for as long as it is open.  Prints "ok" once
the descriptor is held, then waits for SIGTERM or SIGINT.
"""
import ctypes
import os
import signal
import sys

SYS_BPF = {"x86_64": 321, "aarch64": 280}.get(os.uname().machine)
BPF_ENABLE_STATS = 32
BPF_STATS_RUN_TIME = 0

def main():
    if SYS_BPF is None:
        sys.exit("hold-stats: unknown bpf syscall number on " + os.uname().machine)
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.c_uint32(BPF_STATS_RUN_TIME)
    fd = libc.syscall(SYS_BPF, BPF_ENABLE_STATS, ctypes.byref(attr), ctypes.sizeof(attr))
    if fd < 0:
        sys.exit("hold-stats: BPF_ENABLE_STATS: " + os.strerror(ctypes.get_errno()))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
    print("ok", flush=True)
    while True:
        signal.pause()

main()
