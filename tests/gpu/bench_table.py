#!/usr/bin/env python3
"""The I-Cloth benchmarks' frame and PCG times from Google Benchmark logs.

    bench_table.py LOG [LOG...]

Reads the tabular console output of icloth_bench (--benchmark_counters_tabular=true),
where a line "== LABEL" before a run names it (run_on_device.sh ab writes
"== BINARY round R"). Prints a Markdown table, one row per benchmark run:
ms a frame, PCG iterations a frame, PCG ms a frame (first solves + re-solves),
us per PCG iteration, the stages outside the PCG that the cloth-cloth pairs
drive (proximity, repulsion filter, contact rounds: ms a frame), proximity
pairs and the largest number of intersecting pairs. Then, per binary and
benchmark, the medians over the rounds of the us per iteration, the frame and
the repulsion filter.

us per PCG iteration is the fair comparison of two builds whose trajectories
differ in the last bits: their iteration counts differ, the cost of one does not.
"""
import re
import statistics
import sys
from collections import defaultdict

SUFFIX = {"k": 1e3, "M": 1e6, "G": 1e9, "m": 1e-3, "u": 1e-6, "n": 1e-9}


def number(text):
    """A counter's value: '560.868k' -> 560868.0."""
    if text and text[-1] in SUFFIX:
        return float(text[:-1]) * SUFFIX[text[-1]]
    return float(text)


UNIT_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def row_values(header, line):
    """(name, ms a frame, {counter: text}) of one tabular row. The row starts
    with the name, the real time and its unit, the CPU time and its unit and
    the iterations; the counters after them are right-aligned under their
    names, which may hold spaces: each value's name is the header text from the
    end of the previous value to the end of this one."""
    tokens = list(re.finditer(r"\S+", line))
    ms = float(tokens[1].group()) * UNIT_MS.get(tokens[2].group(), float("nan"))
    values, prev = {}, tokens[5].end()
    for tok in tokens[6:]:
        values[header[prev:tok.end()].strip()] = tok.group()
        prev = tok.end()
    return tokens[0].group(), ms, values


def parse(paths):
    """[(label, benchmark, ms a frame, {counter: text})] in the logs' order."""
    runs, label = [], ""
    for path in paths:
        header = None
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if line.startswith("== "):
                    label = line[3:].strip()
                elif line.startswith("Benchmark"):
                    header = line
                elif line.startswith("BM_") and header:
                    runs.append((label,) + row_values(header, line))
    return runs


def pcg_figures(values):
    """(PCG iterations, PCG ms, us an iteration) a frame, or None without them."""
    try:
        its = number(values["cg iterations"])
        pcg = number(values["cg first solve ms"]) + number(values.get("cg re-solves ms", "0"))
    except (KeyError, ValueError):
        return None
    return its, pcg, (1000.0 * pcg / its if its > 0 else float("nan"))


def stage_ms(values, stage):
    """A stage's ms a frame (the counter "<stage> ms"), nan without it."""
    try:
        return number(values[stage + " ms"])
    except (KeyError, ValueError):
        return float("nan")


def build_of(label):
    """The build a label names: 'old round 2' -> 'old'."""
    return re.sub(r"\s+(round|rep)\s+\d+$", "", label)


def main(paths):
    runs = parse(paths)
    if not runs:
        print("no benchmark rows in " + ", ".join(paths), file=sys.stderr)
        return 1
    print("| run | benchmark | ms a frame | PCG iterations | PCG ms | us an iteration | proximity ms | "
          "repulsion ms | contact rounds ms | proximity pairs | intersecting |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    per_build = defaultdict(list)
    for label, name, ms, values in runs:
        fig = pcg_figures(values)
        if fig is None:
            continue
        its, pcg, us = fig
        stages = [stage_ms(values, s) for s in ("proximity", "repulsion", "contact rounds")]
        print(f"| {label} | {name} | {ms:.1f} | {its:.1f} | {pcg:.2f} | {us:.1f} | "
              + " | ".join(f"{t:.2f}" for t in stages)
              + f" | {values.get('proximity pairs', '')} | {values.get('max intersecting pairs', '')} |")
        per_build[(build_of(label), name)].append((us, ms, stages[1]))
    print()
    print("| build | benchmark | rounds | median us an iteration | median ms a frame | median repulsion ms |")
    print("|---|---|---|---|---|---|")
    for (build, name), rows in per_build.items():
        med = [statistics.median(r[k] for r in rows) for k in range(3)]
        print(f"| {build} | {name} | {len(rows)} | {med[0]:.1f} | {med[1]:.1f} | {med[2]:.2f} |")
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
