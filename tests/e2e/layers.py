#!/usr/bin/env python3
"""The include check: every `#include "..."` of lib/, cli/ and the tool
folders against the layers docs/ARCHITECTURE.md writes as data (its fenced
```layers block).  One line a layer:

    NAME  PATH...  -> NAME...

PATHs are path prefixes (a folder ends in '/'); a file belongs to the layer
of the longest prefix that names it.  After '->' the layers it may include
besides its own.  A line `contract NAME HEADER...` names the only headers
of layer NAME the other layers may include (none: nothing may include it;
without the line, any of its headers).  A generated `X.skel.h` belongs where `X.bpf.c`
does; an include found neither in the tree nor generated (vmlinux.h) is not
ours.  Prints "ok - " / "not ok - " lines for tests/run.
"""
import os
import re
import sys

SRC_DIRS = ("lib", "cli", "lock", "btf")
SRC_EXT = (".c", ".h")


def parse(doc):
    text = open(doc, encoding="utf-8").read()
    m = re.search(r"^```layers\n(.*?)^```", text, re.S | re.M)
    if not m:
        raise SystemExit(f"not ok - layers/data: no ```layers block in {doc}")
    layers, order, contracts = {}, [], {}
    for n, line in enumerate(m.group(1).splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if words[0] == "contract":
            contracts[words[1]] = set(words[2:])
            continue
        if "->" not in words:
            raise SystemExit(f"not ok - layers/data: line {n} has no '->': {line}")
        i = words.index("->")
        name, paths, may = words[0], words[1:i], set(words[i + 1:])
        if name in layers or not paths:
            raise SystemExit(f"not ok - layers/data: line {n}: {name} repeated or without paths")
        layers[name] = (paths, may)
        order.append(name)
    return layers, order, contracts


def layer_of(path, layers):
    best, blen = None, -1
    for name, (paths, _) in layers.items():
        for p in paths:
            if (path == p or path.startswith(p)) and len(p) > blen:
                best, blen = name, len(p)
    return best


def sources(top):
    for d in SRC_DIRS:
        for root, _, files in os.walk(os.path.join(top, d)):
            for f in sorted(files):
                if f.endswith(SRC_EXT):
                    yield os.path.relpath(os.path.join(root, f), top)


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    doc = os.path.join(top, "docs/ARCHITECTURE.md")
    layers, order, contracts = parse(doc)
    ok = True

    def bad(name, why):
        nonlocal ok
        ok = False
        print(f"not ok - {name}: {why}")

    for name, (_, may) in layers.items():
        for m in may:
            if m not in layers:
                bad("layers/data", f"{name} may include unknown layer {m}")
    allowed = {n: set(may) - {n} for n, (_, may) in layers.items()}
    # The layers' own graph has no cycle: each layer includes only those
    # below it (what makes "up" and "sideways" mean something).
    state = {}

    def visit(n, trail):
        if state.get(n) == 1:
            bad("layers/acyclic", " -> ".join(trail + [n]))
            return
        if state.get(n) == 2:
            return
        state[n] = 1
        for m in sorted(allowed[n] & set(layers)):
            visit(m, trail + [n])
        state[n] = 2

    for n in order:
        visit(n, [])

    files = list(sources(top))
    used = set()
    checked = 0
    for f in files:
        lf = layer_of(f, layers)
        if lf is None:
            bad("layers/placed", f"{f} belongs to no layer of docs/ARCHITECTURE.md")
            continue
        used.add(lf)
        may = allowed[lf]
        for n, line in enumerate(open(os.path.join(top, f), encoding="utf-8",
                                      errors="replace"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            target = inc
            if inc.endswith(".skel.h"):
                target = inc[: -len(".skel.h")] + ".bpf.c"
            if not os.path.exists(os.path.join(top, target)):
                continue        # not ours (vmlinux.h is generated from the kernel)
            checked += 1
            li = layer_of(target, layers)
            if li is None or li == lf:
                continue
            if li not in may:
                bad("layers/include", f"{f}:{n} includes {inc}: layer {lf} may not include {li}"
                    f" (it may include: {' '.join(sorted(may)) or 'nothing'})")
            elif li in contracts and inc not in contracts[li]:
                bad("layers/contract", f"{f}:{n} includes {inc}, private to {li}"
                    f" (its contract: {' '.join(sorted(contracts[li])) or 'none'})")
    for name in order:
        if name not in used:
            bad("layers/data", f"layer {name} names no file of the tree")
    for name, hdrs in contracts.items():
        for h in hdrs:
            if not os.path.exists(os.path.join(top, h)):
                bad("layers/data", f"contract of {name}: {h} does not exist")
    if checked == 0:
        bad("layers/include", "no include was checked")
    if ok:
        print(f"ok - layers: {checked} includes of {len(files)} files within {len(layers)} layers")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
