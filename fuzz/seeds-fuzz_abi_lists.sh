#!/usr/bin/env bash
# Seeds for fuzz_abi_lists: a --symbols list, Module.symvers lines (the
# kernel's and a module's, with a namespace, a malformed one, and a file
# whose CRCs are all 0) and suppressions files (libabigail's sections,
# regexps, errors).  The first
# byte picks the parser: 0 list, 1 symvers for vmlinux, 2 symvers all, 3
# suppressions.
#   fuzz/seeds-fuzz_abi_lists.sh DIR
set -eu
dir=$1
printf '\x00use_pad\n  use_color  # an enum\n# a comment\n\n\tsame\r\nlast' >"$dir/list"
printf '\x01%b' '0x12345678\tprintk\tvmlinux\tEXPORT_SYMBOL\n0x9abcdef0\ttun_get_socket\tdrivers/net/tun\tEXPORT_SYMBOL_GPL\n0x1\tdma_buf_get\tvmlinux\tEXPORT_SYMBOL_GPL\tDMA_BUF\n' >"$dir/symvers"
printf '\x02%b' '0x1\ta\tm\tEXPORT_SYMBOL\n\n0x2 b m EXPORT_SYMBOL\n' >"$dir/symvers-bad"
printf '\x02%b' '0x00000000\tsystem_state\tvmlinux\tEXPORT_SYMBOL\t\n0x0\treset_devices\tvmlinux\tEXPORT_SYMBOL\t\n' >"$dir/symvers-nocrc"
printf '\x03%b' '# known\n[suppress_function]\n  name = tcp_sendmsg\n  label = "on purpose"\n[suppress_variable]\n  name_regexp = ^sysctl_\n; types\n[suppress_type]\n  name = struct sk_buff\n[suppress_type]\n  name_regexp = "^(bpf_|trace_)"\n  reason = noise\n' >"$dir/supp"
printf '\x03%b' '[suppress_file]\nsoname_regexp = x\n' >"$dir/supp-section"
printf '\x03%b' '[suppress_type]\nname_regexp = (a\n' >"$dir/supp-regexp"
printf '\x03%b' 'name = a\n[suppress_function]\nlabel = x\n[x' >"$dir/supp-bad"
