#!/usr/bin/env python3
"""Issue 20's targets, read from results.json files: one column per run.

Usage: bench/budget_targets.py RESULTS.json [RESULTS.json ...]

| figure | meaning |
|---|---|
| wall time | duration_seconds of the run (build excluded) |
| claims judged | reproduced, refuted or inconclusive, of the measurable claims |
| claims decided | reproduced or refuted |
| vs_std half-width, bootstrap | median over timed cells of (high - low) / 2 / value of vs_std's 95 % bootstrap interval (the figure of the issue's "today" column) |
| vs_std half-width, stop rule | the same over the stop rule's vs_std intervals (budget.comparisons) |
| comparisons open at the end | the stop rule's comparisons still open at its last look |
| comparisons on pairs / the same | comparisons whose interval stood on lockstep pairs, and those decided as the same within 2 % |
| peer verdicts decided | met, or missed with a peer's interval wholly below 1 (the peer is faster), or every peer beaten or the same within 2 % |
| peer verdicts met | met |
Prints a Markdown table.
"""
import json
import statistics
import sys

JUDGED = {"reproduced", "refuted", "inconclusive"}


def half_widths_bootstrap(results):
    widths = []
    for w in results["workloads"]:
        if w.get("kind", "lab") != "lab":
            continue
        for c in w["cells"]:
            vs = c.get("vs_std")
            if not vs or vs.get("speedup_p50") is None:
                continue
            i = vs["intervals"].get("speedup_p50")
            if i:
                widths.append((i["high"] - i["low"]) / 2 / vs["speedup_p50"])
    return widths


def half_widths_stop_rule(results):
    budget = results.get("budget") or {}
    widths = []
    for c in budget.get("comparisons", []):
        if c["kind"] == "vs_std" and c["base"]["frame"] == "batch" and c["low"] is not None:
            widths.append((c["high"] - c["low"]) / 2 / c["value"])
    return widths


def peers(results):
    decided = met = judged = 0
    for w in results["workloads"]:
        base_malloc = (w.get("baseline") or {}).get("malloc", "glibc")
        for v in w.get("peer_verdicts") or []:
            if v["malloc"] != base_malloc or v["verdict"] == "not_judged":  # as the headline
                continue
            judged += 1
            if v["verdict"] == "met":
                met += 1
                decided += 1
            elif any(p.get("interval") and p["interval"]["high"] < 1 for p in v["peers"]):
                decided += 1
            elif all(p["beaten"] or p.get("same_within_margin") for p in v["peers"]):
                decided += 1  # every peer beaten or the same within the margin
    return decided, met, judged


def column(path):
    r = json.load(open(path))
    claims = r["claims"]
    measurable = [c for c in claims if c["verdict"] != "not measurable here"]
    judged = [c for c in measurable if c["verdict"] in JUDGED]
    decided = [c for c in judged if c["verdict"] != "inconclusive"]
    boot = half_widths_bootstrap(r)
    seq = half_widths_stop_rule(r)
    p_decided, p_met, p_judged = peers(r)
    noise = r.get("noise") or {}
    during = noise.get("during") or {}
    before = noise.get("before") or {}
    budget = r.get("budget") or {}
    return {
        "run": r["command"],
        "wall time": f"{r['duration_seconds'] / 60:.1f} min",
        "cell processes": str(budget.get("processes", "-")),
        "claims judged": f"{len(judged)} of {len(measurable)}",
        "claims decided": str(len(decided)),
        "vs_std half-width, bootstrap (median)": f"{100 * statistics.median(boot):.1f} %" if boot else "-",
        "vs_std half-width, stop rule (median)": f"{100 * statistics.median(seq):.1f} %" if seq else "-",
        "comparisons open at the end": "{} of {}".format(
            budget.get("open", "-"),
            budget.get("decided", 0) + budget.get("open", 0) + budget.get("unmeasurable", 0)),
        "comparisons on pairs / the same within 2 %": "{} / {}".format(
            sum(1 for c in budget.get("comparisons", []) if c.get("paired_runs")),
            sum(1 for c in budget.get("comparisons", [])
                if c.get("verdict") == "the same within the margin")),
        "peer verdicts decided": f"{p_decided} of {p_judged}",
        "peer verdicts met": f"{p_met} of {p_judged}",
        "load before / others' CPUs during": "{} / {}".format(
            before.get("load_1min", "-"),
            f"{during['other_cpus']:.2f}" if "other_cpus" in during else "-"),
    }


def main(paths):
    if not paths:
        sys.exit(__doc__)
    columns = [column(p) for p in paths]
    keys = list(columns[0].keys())
    print("| figure | " + " | ".join(f"run {i + 1}" for i in range(len(columns))) + " |")
    print("|---|" + "---:|" * len(columns))
    for k in keys:
        print(f"| {k} | " + " | ".join(c[k] for c in columns) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
