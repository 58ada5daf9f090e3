#!/usr/bin/env python3
"""Would keeping only a cell's quiet repetitions make vs_std ratios reproducible and narrow?

Usage: bench/quiet_filter.py RUN_A.json RUN_B.json [--rule cell|process|run] [--tolerance 0.20]

Two results.json of the same commit with the 2 MiB copy reading
(`contention_reference.memory_before_ns` / `.memory_after_ns`, bench/contention_levels.py).
A repetition is quiet when both its copy readings lie within `tolerance` of a floor, the 10th
percentile of the copy readings (before and after) of:

| rule | floor over |
|---|---|
| cell | the repetition's cell |
| process | the repetition's process (fewer than ten readings: its lowest) |
| run | the whole run (bench/contention_levels.py's quiet level) |

results.json does not say which repetitions came from which process; they are in process order,
so equal shares are exact and an unequal count is split as the budget grows later processes
(the first ones at the smallest share, the rest equal): approximate for those cells.

| figure | meaning |
|---|---|
| quiet reps | share of all repetitions that are quiet |
| cells >= 3 quiet | timed cells with three or more quiet repetitions |
| cells >= 2 quiet processes | timed cells with quiet repetitions from two processes or more |
| CV all / quiet | median over cells with 3+ quiet of the CV of repetition medians, all / quiet only |
| comparisons | vs_std speedup_p50 (baseline / cell, ratio of repetition medians, as the lab) with 3+ quiet repetitions on both sides in both runs; every later row is over these |
| run-to-run, all / quiet | median over comparisons of abs(log ratio in A - log ratio in B) |
| shift | median and mean of log(quiet ratio / all ratio), in %, per run; share shifted up; whether the same comparisons shift alike in both runs (a slow level that hits strategies differently would) |
| half-width | median relative half-width of the 95 % bootstrap interval (2 000 resamples of each side's repetition medians, scripts/validate-replay/compare.py), all / quiet |
| covered | share of comparisons whose ratio in the other run lies inside this run's interval |
| decided | intervals wholly above or below 1 |
| stop rule | the same from the stop rule's interval (process means, bench/stop_rule_interval.py) at the confidence the run judged each comparison at, all / quiet |
| the lab's own | median half-width of results.json's vs_std bootstrap and stop-rule intervals over the same comparisons: checks that the intervals here reproduce the lab's |
| peer, claim | the stop rule's p50 peer and claim comparisons (budget.comparisons) with 3+ quiet repetitions a side: decided (no boundary inside the interval) on all / on quiet repetitions, those quiet decides that all left open, how many of those the other run decided on the same side, and those quiet leaves open |
Prints Markdown.
"""
import argparse
import json
import math
import statistics

from contention_levels import cv, quantile, timed_cells
from compare import ratio_interval, spearman  # on the path contention_levels sets
from stop_rule_interval import compare_levels, pool_between, spread_of

RULES = ("cell", "process", "run")
MIN_QUIET = 3


def process_sizes(repetitions, processes):
    """Repetitions per process, in process order (see the docstring for unequal counts)."""
    processes = max(1, min(processes, repetitions))
    share, extra = divmod(repetitions, processes)
    if extra == 0:
        return [share] * processes
    for later in range(1, processes):
        rest = repetitions - share * (processes - later)
        if rest % later == 0 and rest // later > share:
            return [share] * (processes - later) + [rest // later] * later
    return [share + (i >= processes - extra) for i in range(processes)]


def half_width(interval, value):
    return (interval[1] - interval[0]) / 2 / value


def floor_of(readings):
    return quantile(sorted(v for r in readings for v in r), 0.10)


class Cell:
    """A timed batch cell: repetition medians, copy readings, and process of each repetition."""

    def __init__(self, workload, cell, medians, ref):
        self.key = (workload, cell["strategy"], cell["malloc"], cell.get("placement_twin", False))
        self.medians = medians
        self.readings = list(zip(ref["memory_before_ns"], ref["memory_after_ns"]))
        vs_std = cell.get("vs_std") or {}
        stored = (vs_std.get("intervals") or {}).get("speedup_p50")
        self.stored_half_width = half_width((stored["low"], stored["high"]), vs_std[
            "speedup_p50"]) if stored and vs_std.get("speedup_p50") else None
        sizes = process_sizes(len(medians), cell.get("processes") or 1)
        self.process = [p for p, n in enumerate(sizes) for _ in range(n)]

    def quiet_mask(self, rule, tolerance, run_level):
        if rule == "run":
            floors = [run_level] * len(self.medians)
        elif rule == "cell":
            floors = [floor_of(self.readings)] * len(self.medians)
        else:
            by_process = {}
            for p, r in zip(self.process, self.readings):
                by_process.setdefault(p, []).append(r)
            floor = {p: floor_of(readings) for p, readings in by_process.items()}
            floors = [floor[p] for p in self.process]
        return [max(r) <= f * (1 + tolerance) for r, f in zip(self.readings, floors)]

    def quiet(self, mask):
        return [m for m, q in zip(self.medians, mask) if q]

    def by_process(self, mask):
        """The kept repetition medians, one list per process that kept any."""
        kept = {}
        for p, m, q in zip(self.process, self.medians, mask):
            if q:
                kept.setdefault(p, []).append(m)
        return list(kept.values())


def load_run(path):
    with open(path) as f:
        results = json.load(f)
    cells = {}
    for name, c, medians, ref in timed_cells(results):
        if len(ref.get("memory_before_ns") or []) == len(medians):
            cell = Cell(name, c, medians, ref)
            cells[cell.key] = cell
    if not cells:
        raise SystemExit("no batch cell with 2 MiB copy readings in " + path)
    baselines = {w["name"]: (w["name"], w["baseline"]["strategy"], w["baseline"]["malloc"], False)
                 for w in results["workloads"] if w.get("baseline")}
    level = floor_of([r for c in cells.values() for r in c.readings])
    stop_rule, tracked = {}, []
    for c in (results.get("budget") or {}).get("comparisons", []):
        if c["base"]["frame"] != "batch" or c["metric"] != "p50":
            continue
        base, candidate = (cell_key(c[side]) for side in ("base", "candidate"))
        if c["kind"] == "vs_std":
            stop_rule[candidate] = c
        elif base in cells and candidate in cells:
            tracked.append((c, base, candidate))
    return {"cells": cells, "level": level, "baselines": baselines, "stop_rule": stop_rule,
            "tracked": tracked}


def cell_key(side):
    return side["workload"], side["strategy"], side["malloc"], False


def masks(run, rule, tolerance):
    return {k: c.quiet_mask(rule, tolerance, run["level"]) for k, c in run["cells"].items()}


def counts(run, mask):
    """Quiet share, cells with 3+ quiet, cells with 2+ quiet processes, median CV all / quiet."""
    quiet_reps = total = enough = two_processes = 0
    cv_all, cv_quiet = [], []
    for k, c in run["cells"].items():
        q = mask[k]
        quiet_reps += sum(q)
        total += len(q)
        two_processes += len({p for p, ok in zip(c.process, q) if ok}) >= 2
        if sum(q) >= MIN_QUIET:
            enough += 1
            cv_all.append(cv(c.medians))
            cv_quiet.append(cv(c.quiet(q)))
    median = lambda v: statistics.median(v) if v else math.nan
    return quiet_reps / total, enough, two_processes, len(run["cells"]), median(cv_all), median(
        cv_quiet)


def every_repetition(run):
    return {k: [True] * len(c.medians) for k, c in run["cells"].items()}


def comparisons(runs, run_masks):
    """(workload, strategy, malloc, twin) of every vs_std ratio with 3+ quiet on all four sides."""
    keys = []
    for k in sorted(runs[0]["cells"]):
        base = runs[0]["baselines"].get(k[0])
        if base is None or k == base:
            continue
        sides = [(r, m, side) for r, m in zip(runs, run_masks) for side in (k, base)]
        if all(side in r["cells"] and sum(m[side]) >= MIN_QUIET for r, m, side in sides):
            keys.append((k, base))
    return keys


def ratio(base, cell):
    return statistics.median(base) / statistics.median(cell)


def figures(run, mask, key, quiet):
    cell = run["cells"][key]
    return cell.quiet(mask[key]) if quiet else cell.medians


def ratios(run, mask, keys, quiet):
    return [ratio(figures(run, mask, b, quiet), figures(run, mask, k, quiet)) for k, b in keys]


def median_abs_log_diff(a, b):
    return statistics.median(abs(math.log(x / y)) for x, y in zip(a, b))


def reproducibility(runs, run_masks, keys):
    """Run-to-run disagreement all / quiet and each run's shift from filtering."""
    all_r = [ratios(r, m, keys, False) for r, m in zip(runs, run_masks)]
    quiet_r = [ratios(r, m, keys, True) for r, m in zip(runs, run_masks)]
    shifts = [[math.log(q / a) for q, a in zip(qs, als)] for qs, als in zip(quiet_r, all_r)]
    return all_r, quiet_r, median_abs_log_diff(*all_r), median_abs_log_diff(*quiet_r), shifts


def intervals(run, mask, keys, quiet):
    return [ratio_interval(figures(run, mask, b, quiet), figures(run, mask, k, quiet))
            for k, b in keys]


def stop_rule_intervals(run, mask, pairs, quiet):
    """The stop rule's (value, low, high) of base / candidate for (candidate, base, confidence)."""
    cells = run["cells"]
    spreads = {k: spread_of(c.by_process(mask[k] if quiet else [True] * len(c.medians)))
               for k, c in cells.items()}
    pool = lambda key: pool_between([s for o, s in spreads.items() if o[0] == key[0] and o != key])
    return [compare_levels(spreads[b], pool(b), spreads[k], pool(k), confidence)
            for k, b, confidence in pairs]


def vs_std_pairs(run, keys):
    """(candidate, base, confidence the run judged it at) of each vs_std comparison."""
    return [(k, b, (run["stop_rule"].get(k) or {}).get("confidence", 0.95)) for k, b in keys]


def print_stop_rule(runs, labels, run_masks, keys):
    """The stop rule's intervals from process means, all repetitions / quiet ones."""
    print("\n| run | stop rule: half-width all / quiet | covered by the other run all / quiet "
          "| decided all / quiet | the lab's own half-width (all) |")
    print("|---|---|---|---|---:|")
    judged = [[stop_rule_intervals(r, m, vs_std_pairs(r, keys), quiet) for quiet in (False, True)]
              for r, m in zip(runs, run_masks)]
    for i, (run, label) in enumerate(zip(runs, labels)):
        cols = []
        for q in (0, 1):
            mine, other = judged[i][q], judged[1 - i][q]
            pairs = [(a, o) for a, o in zip(mine, other) if a and o]
            cols.append((statistics.median(half_width(a[1:], a[0]) for a, _ in pairs),
                         sum(a[1] <= o[0] <= a[2] for a, o in pairs) / len(pairs),
                         sum(a[1] > 1 or a[2] < 1 for a, _ in pairs)))
        stored = [run["stop_rule"].get(k) for k, _ in keys]
        stored = [half_width((c["low"], c["high"]), c["value"]) for c in stored
                  if c and c["low"] is not None]
        print("| {} | {} / {} | {} / {} | {} / {} | {} |".format(
            label, pct(cols[0][0]), pct(cols[1][0]), pct(cols[0][1], 0), pct(cols[1][1], 0),
            cols[0][2], cols[1][2], pct(statistics.median(stored)) if stored else "-"))


def decided(interval, boundaries):
    return bool(interval) and interval[1] > 0 and not any(
        interval[1] <= b <= interval[2] for b in boundaries)


def print_tracked(runs, labels, run_masks):
    """Peer and claim comparisons (p50) the stop rule judges: decided on all / on quiet."""
    print("\n| run | kind | judged on quiet (3+ a side) | decided all / quiet | open -> decided "
          "| of them decided alike in the other run | decided -> open |")
    print("|---|---|---:|---|---:|---:|---:|")
    for i, (run, label) in enumerate(zip(runs, labels)):
        other = {c["id"]: c["state"] == "decided" and c["value"] for c, _, _ in runs[1 - i][
            "tracked"]}
        for kind in ("peer", "claim"):
            rows = [(c, b, k) for c, b, k in run["tracked"] if c["kind"] == kind and
                    min(sum(run_masks[i][b]), sum(run_masks[i][k])) >= MIN_QUIET]
            pairs = [(k, b, c["confidence"]) for c, b, k in rows]
            every, quiet = (stop_rule_intervals(run, run_masks[i], pairs, q) for q in (False, True))
            now = [decided(a, c["boundaries"]) for a, (c, _, _) in zip(every, rows)]
            then = [decided(a, c["boundaries"]) for a, (c, _, _) in zip(quiet, rows)]
            flips = [(c, a) for (c, _, _), n, t, a in zip(rows, now, then, quiet) if t and not n]
            side = lambda value, c: [value > b for b in c["boundaries"]]
            alike = sum(bool(other.get(c["id"])) and side(a[0], c) == side(other[c["id"]], c)
                        for c, a in flips)
            print("| {} | {} | {} | {} / {} | {} | {} | {} |".format(
                label, kind, len(rows), sum(now), sum(then), len(flips), alike,
                sum(n and not t for n, t in zip(now, then))))


def pct(v, digits=1):
    return "-" if v is None or math.isnan(v) else "{:.{}f} %".format(100 * v, digits)


def print_sweep(runs, labels, tolerances):
    print("| rule | tolerance | run | quiet reps | cells >= 3 quiet | cells >= 2 quiet processes "
          "| CV all / quiet | comparisons | run-to-run all / quiet | shift A / B (median) |")
    print("|---|---:|---|---:|---:|---:|---|---:|---|---|")
    for rule in RULES:
        for tol in tolerances:
            run_masks = [masks(r, rule, tol) for r in runs]
            keys = comparisons(runs, run_masks)
            rep = reproducibility(runs, run_masks, keys) if keys else None
            for i, (run, label) in enumerate(zip(runs, labels)):
                share, enough, two, n, cv_a, cv_q = counts(run, run_masks[i])
                repro = "-" if not rep else "{} / {}".format(pct(rep[2], 2), pct(rep[3], 2))
                shift = "-" if not rep else " / ".join(
                    pct(statistics.median(s), 2) for s in rep[4])
                print("| {} | {:.0f} % | {} | {} | {} of {} | {} | {} / {} | {} | {} | {} |".format(
                    rule, 100 * tol, label, pct(share, 0), enough, n, two, pct(cv_a), pct(cv_q),
                    len(keys) if i == 0 else "", repro if i == 0 else "", shift if i == 0 else ""))


def print_detail(runs, labels, rule, tolerance):
    run_masks = [masks(r, rule, tolerance) for r in runs]
    keys = comparisons(runs, run_masks)
    if not keys:
        print("\n(no vs_std comparison with {}+ quiet repetitions on every side)".format(MIN_QUIET))
        return
    all_r, quiet_r, d_all, d_quiet, shifts = reproducibility(runs, run_masks, keys)
    print("\n**{} rule, {:.0f} %: {} vs_std comparisons with {}+ quiet repetitions on every side "
          "in both runs**\n".format(rule, 100 * tolerance, len(keys), MIN_QUIET))
    print("| run | repetitions | shift median / mean | shifted up | half-width all / quiet "
          "| covered by the other run all / quiet | decided all / quiet |")
    print("|---|---|---|---:|---|---|---|")
    for i, (run, label) in enumerate(zip(runs, labels)):
        other = 1 - i
        row = []
        for quiet, values in ((False, all_r), (True, quiet_r)):
            iv = intervals(run, run_masks[i], keys, quiet)
            widths = [half_width(v, r) for v, r in zip(iv, values[i])]
            covered = sum(lo <= o <= hi for (lo, hi), o in zip(iv, values[other])) / len(keys)
            decided = sum(lo > 1 or hi < 1 for lo, hi in iv)
            row.append((statistics.median(widths), covered, decided))
        reps = sum(len(run["cells"][k].medians) for k in {s for pair in keys for s in pair})
        quiet_reps = sum(sum(run_masks[i][k]) for k in {s for pair in keys for s in pair})
        print("| {} | {} of {} quiet | {} / {} | {:.0f} % | {} / {} | {} / {} | {} / {} |".format(
            label, quiet_reps, reps, pct(statistics.median(shifts[i]), 2),
            pct(statistics.fmean(shifts[i]), 2),
            100 * sum(s > 0 for s in shifts[i]) / len(keys), pct(row[0][0]), pct(row[1][0]),
            pct(row[0][1], 0), pct(row[1][1], 0), row[0][2], row[1][2]))
    print("\nrun-to-run median |log ratio A - log ratio B|: all {}, quiet {}".format(
        pct(d_all, 2), pct(d_quiet, 2)))
    print_stop_rule(runs, labels, run_masks, keys)
    print_tracked(runs, labels, run_masks)
    same_sign = sum((a > 0) == (b > 0) for a, b in zip(*shifts)) / len(keys)
    print("\nshift in A vs shift in B: Spearman rho {:.2f}, same sign {}".format(
        spearman(*shifts), pct(same_sign, 0)))
    for run, label in zip(runs, labels):
        stored = [run["cells"][k].stored_half_width for k, _ in keys]
        stored = [w for w in stored if w is not None]
        if stored:
            print("\n{}: the lab's own bootstrap half-width over these comparisons (results.json, "
                  "all repetitions): {}".format(label, pct(statistics.median(stored))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_a")
    parser.add_argument("run_b")
    parser.add_argument("--rule", choices=RULES, default="cell")
    parser.add_argument("--tolerance", type=float, default=0.20)
    parser.add_argument("--sweep", default="0.05,0.10,0.15,0.20,0.30",
                        help="tolerances of the rule table")
    args = parser.parse_args()
    runs = [load_run(args.run_a), load_run(args.run_b)]
    labels = ["A", "B"]
    print("A: {}  \nB: {}\n".format(args.run_a, args.run_b))
    unfiltered = [every_repetition(r) for r in runs]
    keys = comparisons(runs, unfiltered)
    print("Every vs_std comparison timed in both runs ({}), all repetitions: run-to-run median "
          "|log ratio A - log ratio B| {}\n".format(
              len(keys), pct(reproducibility(runs, unfiltered, keys)[2], 2)))
    print_sweep(runs, labels, [float(t) for t in args.sweep.split(",")])
    print_detail(runs, labels, args.rule, args.tolerance)


if __name__ == "__main__":
    main()
