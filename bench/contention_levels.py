#!/usr/bin/env python3
"""Does the contention reference tell a cell's slow repetitions from its fast ones?

Usage: bench/contention_levels.py RESULTS.json [--threshold 0.15] [--cells]

Reads the batch cells' `contention_reference` (a 64 KiB chase and a 2 MiB copy, read before and
after each repetition, measure/contention_reference.hpp) beside their
`timing.repetition_medians_ns`, each reading on its own.

| figure | meaning |
|---|---|
| reference quantiles | every reading of the run, before and after, in ns per chase |
| quiet level | the run's 10th percentile of readings |
| quiet repetition | both its readings within `threshold` of the quiet level |
| slow repetition | both readings above it; mixed: one of each |
| rho | per cell, Spearman's rank correlation of a repetition's median with the mean of its two readings |
| CV all / quiet | per cell, the CV of its repetition medians, all of them / quiet ones only (cells with 3+ quiet) |
Prints Markdown.
"""
import argparse
import json
import math
import statistics
import sys
from pathlib import Path

# Spearman's rho as the replay validation computes it (ties share their mean rank).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts" / "validate-replay"))
from compare import spearman  # noqa: E402


def rank_correlation(x, y):
    if len(x) < 3:
        return None
    rho = spearman(x, y)
    return None if math.isnan(rho) else rho


def cv(values):
    if len(values) < 2:
        return None
    m = statistics.fmean(values)
    return statistics.stdev(values) / m if m > 0 else None


def timed_cells(results):
    for w in results.get("workloads", []):
        if w.get("kind", "lab") != "lab":
            continue
        for c in w["cells"]:
            ref = c.get("contention_reference")
            timing = c.get("timing")
            if not ref or not timing or not ref.get("before_ns"):
                continue
            medians = timing["repetition_medians_ns"]
            if len(medians) != len(ref["before_ns"]):
                continue
            yield w["name"], c, medians, ref


def quantile(sorted_values, q):
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


READINGS = (("64 KiB chase", "before_ns", "after_ns"),
            ("2 MiB copy", "memory_before_ns", "memory_after_ns"))


def analyse(cells, label, before_key, after_key, threshold, per_cell):
    cells = [(n, c, m, r[before_key], r[after_key]) for n, c, m, r in cells if r.get(before_key)]
    if not cells:
        print("\n(no {} readings)".format(label))
        return
    readings = sorted(v for _, _, _, b, a in cells for v in b + a)
    quiet_level = quantile(readings, 0.10)
    limit = quiet_level * (1 + threshold)
    fmt = lambda v, p=2: "-" if v is None else "{:.{}f}".format(v, p)
    print("\n**{}**\n".format(label))
    print("| readings | p5 | p25 | p50 | p75 | p95 | quiet level | limit |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("| {} | {} |".format(len(readings), " | ".join(
        "{:.0f}".format(quantile(readings, q)) for q in (0.05, 0.25, 0.5, 0.75, 0.95))) +
        " {:.0f} | {:.0f} |".format(quiet_level, limit))
    counts = {"quiet": 0, "slow": 0, "mixed": 0}
    rows, rhos, cv_pairs = [], [], []
    for name, c, medians, before, after in cells:
        kinds = ["quiet" if b <= limit and a <= limit else "slow" if b > limit and a > limit
                 else "mixed" for b, a in zip(before, after)]
        for k in kinds:
            counts[k] += 1
        rho = rank_correlation(medians, [(b + a) / 2 for b, a in zip(before, after)])
        quiet = [m for m, k in zip(medians, kinds) if k == "quiet"]
        cv_all, cv_quiet = cv(medians), cv(quiet) if len(quiet) >= 3 else None
        if rho is not None:
            rhos.append(rho)
        if cv_all is not None and cv_quiet is not None:
            cv_pairs.append((cv_all, cv_quiet))
        rows.append((name, "{} @ {}".format(c["strategy"], c["malloc"]), len(medians),
                     kinds.count("quiet"), kinds.count("slow"), rho, cv_all, cv_quiet))
    total = sum(counts.values())
    print()
    print("| repetitions | quiet | slow | mixed | median rho | median CV all | median CV quiet |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print("| {} | {} ({:.0f} %) | {} ({:.0f} %) | {} | {} | {} | {} |".format(
        total, counts["quiet"], 100 * counts["quiet"] / total, counts["slow"],
        100 * counts["slow"] / total, counts["mixed"],
        fmt(statistics.median(rhos) if rhos else None),
        fmt(100 * statistics.median(p[0] for p in cv_pairs) if cv_pairs else None, 1) + " %",
        fmt(100 * statistics.median(p[1] for p in cv_pairs) if cv_pairs else None, 1) + " %"))
    if not per_cell:
        return
    print()
    print("| workload | cell | reps | quiet | slow | rho | CV all | CV quiet |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, cell, n, q, sl, rho, cv_all, cv_quiet in rows:
        print("| {} | {} | {} | {} | {} | {} | {} | {} |".format(
            name, cell, n, q, sl, fmt(rho),
            fmt(None if cv_all is None else 100 * cv_all, 1),
            fmt(None if cv_quiet is None else 100 * cv_quiet, 1)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--threshold", type=float, default=0.15)
    parser.add_argument("--cells", action="store_true", help="a row per cell")
    args = parser.parse_args()
    with open(args.results) as f:
        results = json.load(f)
    cells = list(timed_cells(results))
    if not cells:
        raise SystemExit("no batch cell with contention readings in " + args.results)
    for label, before_key, after_key in READINGS:
        analyse(cells, label, before_key, after_key, args.threshold, args.cells)


if __name__ == "__main__":
    main()
