#!/usr/bin/env python3
"""Real runs vs replays (scripts/validate-replay.sh): per program, each malloc's ratio to glibc
measured for real (median CPU time, user + sys, of the whole program over interleaved rounds)
beside the replay's ratio (results.json of `alloclab replay`, ns per call), both rankings and Spearman's
rank correlation. Prints Markdown. Standard library only.

usage: compare.py REAL_TSV PROGRAM=RESULTS_JSON ...
REAL_TSV lines: program malloc round cpu_milliseconds
"""
import json
import statistics
import sys


def ranks(values):
    """1 = largest; ties share their mean rank."""
    order = sorted(range(len(values)), key=lambda i: -values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va > 0 and vb > 0 else float("nan")


def replay_ratios(path):
    results = json.load(open(path))
    ratios, ns = {}, {}
    for w in results["workloads"]:
        if w.get("kind") != "trace":
            continue
        for c in w["cells"]:
            if c["strategy"] != "malloc" or c["status"] != "ok":
                continue
            ns[c["malloc"]] = c["replay"]["ns_per_call"]["median"]
            vs = c["vs_std"]
            ratios[c["malloc"]] = 1.0 if vs is None else vs["speedup_p50"]
            if vs is not None and vs["intervals"]["speedup_p50"]:
                i = vs["intervals"]["speedup_p50"]
                ratios[c["malloc"]] = (vs["speedup_p50"], i["low"], i["high"])
    return ratios, ns


def main():
    real = {}
    for line in open(sys.argv[1]):
        program, malloc, _, ms = line.split()
        real.setdefault(program, {}).setdefault(malloc, []).append(float(ms))
    print("Ratios are glibc / malloc (> 1: faster than glibc). Real: median CPU time (user + sys) of "
          "the whole program over the rounds (min-max of the per-round ratios in brackets). Replay: ns per "
          "allocator call, 95 % bootstrap interval over replays in fresh processes.\n")
    summary = []
    for arg in sys.argv[2:]:
        program, path = arg.split("=", 1)
        replay, ns = replay_ratios(path)
        times = real[program]
        base = statistics.median(times["glibc"])
        mallocs = [m for m in times if m in replay]
        print(f"### {program}\n")
        print(f"glibc: {base:.0f} ms of CPU a real run, {ns.get('glibc', 0):.1f} ns per replayed call\n")
        print("| malloc | real CPU ms | real ratio | replay ns/call | replay ratio | real rank | "
              "replay rank |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        real_ratio = {m: base / statistics.median(times[m]) for m in mallocs}
        replay_value = {m: replay[m][0] if isinstance(replay[m], tuple) else replay[m]
                        for m in mallocs}
        rr = ranks([real_ratio[m] for m in mallocs])
        pr = ranks([replay_value[m] for m in mallocs])
        for k, m in enumerate(sorted(mallocs, key=lambda m: -real_ratio[m])):
            i = mallocs.index(m)
            per_round = [b / t for b, t in zip(times["glibc"], times[m])]
            rp = replay[m]
            replay_text = (f"{rp[0]:.2f} [{rp[1]:.2f}–{rp[2]:.2f}]" if isinstance(rp, tuple)
                           else f"{rp:.2f}")
            print(f"| {m} | {statistics.median(times[m]):.0f} | {real_ratio[m]:.3f} "
                  f"[{min(per_round):.2f}–{max(per_round):.2f}] | {ns[m]:.1f} | {replay_text} | "
                  f"{rr[i]:g} | {pr[i]:g} |")
        rho = spearman([real_ratio[m] for m in mallocs], [replay_value[m] for m in mallocs])
        summary.append((program, len(mallocs), rho))
        print(f"\nSpearman rank correlation (real vs replay), {len(mallocs)} mallocs: "
              f"**{rho:.2f}**\n")
    print("| program | mallocs | Spearman ρ |\n|---|---:|---:|")
    for program, n, rho in summary:
        print(f"| {program} | {n} | {rho:.2f} |")


if __name__ == "__main__":
    main()
