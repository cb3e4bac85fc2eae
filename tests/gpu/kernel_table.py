#!/usr/bin/env python3
"""Per-kernel GPU time from an Nsight Compute CSV (run_on_device.sh kernels).

    ncu --profile-from-start off --clock-control none --metrics gpu__time_duration.sum \
        --csv --print-units base --print-kernel-base demangled PROGRAM > k.csv
    kernel_table.py k.csv [FRAMES] [TOP]

Groups the launches by a short label: the function an extended lambda was
written in (nvcc names a lambda's kernel by its enclosing function, e.g.
"lambda in cb::icloth::prepare_system_rows #1"), else the kernel template and
its first template argument (e.g. "rows_sum_kernel<ProductRow>"). Prints a
Markdown table of the TOP groups by total time (ms, and ms per frame when
FRAMES is given), launches and mean us per launch, then the total.
"""
import csv
import re
import sys
from collections import defaultdict

UNIT_NS = {"nsecond": 1.0, "ns": 1.0, "usecond": 1e3, "us": 1e3, "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9}


def strip_namespaces(name):
    """Last component of a qualified name, templates kept: a::b::C<x::D> -> C<D>."""
    name = name.replace("(anonymous namespace)::", "")
    return re.sub(r"\b(?:[A-Za-z_]\w*::)+", "", name)


def template_arguments(name):
    """The top-level template arguments of the outermost template (texts)."""
    start = name.find("<")
    if start < 0:
        return []
    depth, args, cur = 0, [], []
    for ch in name[start + 1:]:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            if depth == 0:
                break
            depth -= 1
        elif ch == "," and depth == 0:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    args.append("".join(cur).strip())
    return [a for a in args if a]


# nvcc's tag of an extended lambda: "__nv_dl_tag<SIGNATURE, &FUNCTION, Nu>", where
# FUNCTION may be "(RETURN name<targs>(params))" for a function template
LAMBDA_FUNCTION = re.compile(r"__nv_(?:hd)?l?_?dl_tag<.*?, &\(?(?:[\w:]+ )*"
                             r"((?:[A-Za-z_]\w*|\(anonymous namespace\))(?:::(?:[A-Za-z_]\w*|\(anonymous namespace\)))*)")
LAMBDA_NUMBER = re.compile(r", (\d+)u?>")


def argument_label(arg):
    """'λ function#n' for an extended lambda (nvcc names it by the function it is
    written in), else the type without namespaces, shortened."""
    m = LAMBDA_FUNCTION.search(arg)
    if m:
        n = LAMBDA_NUMBER.search(arg, m.end())
        return "λ %s#%s" % (strip_namespaces(m.group(1)), n.group(1) if n else "?")
    arg = strip_namespaces(arg)
    return re.sub(r"<.*", "<…>", arg) if len(arg) > 60 else arg


def label(kernel):
    """A short, stable label for a demangled kernel name: the kernel template and
    its template arguments, each shortened."""
    head = kernel[5:] if kernel.startswith("void ") else kernel
    base = strip_namespaces(head.split("<", 1)[0].split("(", 1)[0]).strip()
    args = template_arguments(head.split("(", 1)[0] if "<" not in head.split("(", 1)[0] else head)
    return "%s<%s>" % (base, ", ".join(argument_label(a) for a in args)) if args else base


def read_rows(path):
    """(kernel name, ns) of every gpu__time_duration row of the CSV."""
    with open(path, newline="", errors="replace") as f:
        lines = [l for l in f if l.startswith('"')]  # ncu's own ==PROF== lines are not CSV
    rows = []
    for r in csv.DictReader(lines):
        if r.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(str(r.get("Metric Value", "0")).replace(",", ""))
        rows.append((r.get("Kernel Name") or r.get("Function Name") or "?", value * UNIT_NS.get(r.get("Metric Unit", "nsecond"), 1.0)))
    return rows


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    frames = float(argv[2]) if len(argv) > 2 else 0.0
    top = int(argv[3]) if len(argv) > 3 else 30
    rows = read_rows(argv[1])
    if not rows:
        sys.exit("%s: no gpu__time_duration.sum rows (did ncu profile anything?)" % argv[1])
    total, count = defaultdict(float), defaultdict(int)
    for kernel, ns in rows:
        total[label(kernel)] += ns
        count[label(kernel)] += 1
    all_ns = sum(total.values())
    per = " | ms per frame" if frames else ""
    print("| kernel | launches | total ms%s | mean us | share |" % per)
    print("|---|---|---|---|---|" + ("---|" if frames else ""))
    for name in sorted(total, key=total.get, reverse=True)[:top]:
        pf = " | %.3f" % (total[name] / 1e6 / frames) if frames else ""
        print("| %s | %d | %.3f%s | %.1f | %.1f %% |" % (name, count[name], total[name] / 1e6, pf,
                                                          total[name] / 1e3 / count[name], 100 * total[name] / all_ns))
    pf = " | %.3f" % (all_ns / 1e6 / frames) if frames else ""
    print("| all %d kernels' groups | %d | %.3f%s | %.1f | 100 %% |" % (len(total), len(rows), all_ns / 1e6, pf,
                                                                      all_ns / 1e3 / len(rows)))


if __name__ == "__main__":
    main(sys.argv)
