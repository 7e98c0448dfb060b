# abi-crc.sh's scoring of `frugal btf abi --json` against genksyms' CRCs in
# two Module.symvers, one definition for its two comparisons:
#   abi-crc.py vmlinux SYMVERS_A SYMVERS_B REPORT MISSED
#     the vmlinux pair's report; the CRC changes it does not report are
#     written to MISSED, one name a line (a --symbols list)
#   abi-crc.py modules SYMVERS_A SYMVERS_B TREE
#     the two trees' report, its modules' symbols ("MODULE: SYMBOL")
# Prints "KEY VALUE..." lines that abi-crc.sh reads back by key.  A side
# whose Module.symvers has every CRC 0 (CONFIG_MODVERSIONS off: Debian's
# 7.x) has nothing to score against: "no_crcs SIDE..." is printed instead
# of the CRC lines (crc_changed, precision, recall), and nothing is missed.
import json, sys


def crcs(path, in_vmlinux):
    """Symbol -> CRC of the exports of vmlinux, or of every module."""
    out = {}
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if (f[2] == "vmlinux") == in_vmlinux:
            out[f[1]] = f[0]
    return out


def no_crcs(a, b):
    """The sides (old, new) none of whose CRCs is other than 0."""
    return [side for side, c in (("old", a), ("new", b))
            if c and not any(int(v, 16) for v in c.values())]


def score(a, b, by):
    """The reported sets (status -> names) against the CRCs; the CRC changes."""
    crc = {n for n in a.keys() & b.keys() if a[n] != b[n]}
    changed = by.get("changed", set())
    tp = len(crc & changed)
    print("exports", len(a), len(b))
    print("removed_equal", int(by.get("removed", set()) == a.keys() - b.keys()), len(a.keys() - b.keys()))
    print("added_equal", int(by.get("added", set()) == b.keys() - a.keys()), len(b.keys() - a.keys()))
    without = no_crcs(a, b)
    if without:
        print("no_crcs", *without)
        print("reported", len(changed))
        return set(), changed
    print("crc_changed", len(crc), "reported", len(changed), "both", tp)
    print("precision %.4f" % (tp / len(changed) if changed else 1))
    print("recall %.4f" % (tp / len(crc) if crc else 1))
    return crc, changed


def vmlinux(symvers_a, symvers_b, report, missed_path):
    a, b = crcs(symvers_a, True), crcs(symvers_b, True)
    by = {}
    for s in json.load(open(report))["symbols"]:
        by.setdefault(s["status"], set()).add(s["name"])
    crc, changed = score(a, b, by)
    missed = sorted(crc - changed)
    kinds = {"__tracepoint_": 0, "__SCK__": 0, "other": 0}
    for n in missed:
        kinds[next((k for k in kinds if n.startswith(k)), "other")] += 1
    print("missed", len(missed), " ".join("%s=%d" % kv for kv in kinds.items()))
    with open(missed_path, "w") as f:
        f.writelines(n + "\n" for n in missed)


def modules(symvers_a, symvers_b, tree):
    a, b = crcs(symvers_a, False), crcs(symvers_b, False)
    by = {}
    objs = set()
    for s in json.load(open(tree))["symbols"]:
        obj, name = s["name"].split(": ", 1)
        if obj != "vmlinux":
            objs.add(obj)
            by.setdefault(s["status"], set()).add(name)
    print("objects", len(objs))
    score(a, b, by)


if __name__ == "__main__":
    {"vmlinux": vmlinux, "modules": modules}[sys.argv[1]](*sys.argv[2:])
