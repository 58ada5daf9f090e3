#!/usr/bin/env python3
"""Real runs vs replays (scripts/validate-replay.sh): per program, each malloc's ratio to glibc
measured for real (results.json of `alloclab try`: CPU time, user + sys, of the whole program,
its ratio, interval and verdict as `try` filed them) beside the replay's two ratios (results.json
of `alloclab replay`): malloc call time (ns per call) and replayed program time (program ns per
call: calls plus the modelled program work). For each replay figure: Spearman's rank correlation
with the real ratios, every malloc whose decided real direction (faster or slower than glibc) the
replay reverses, and each malloc's ratio error (replay ratio ÷ real ratio − 1). Prints Markdown.
Standard library only.

A replay difference is decided as the lab decides (src/lab/stats/decision.hpp): the two-sided
Mann-Whitney U test gives p < 0.05 (normal approximation with tie correction) and the 95 %
bootstrap interval of the ratio of medians lies wholly beyond the 3 % noise floor.

usage: compare.py PROGRAM=TRY_RESULTS_JSON,REPLAY_RESULTS_JSON ...
"""
import json
import math
import random
import statistics
import sys

NOISE_FLOOR = 0.03
ALPHA = 0.05


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


def mann_whitney_p(x, y):
    """Two-sided p of the U test, normal approximation with tie correction."""
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return 1.0
    pooled = x + y
    r = [0.0] * len(pooled)
    asc = ranks([-v for v in pooled])  # 1 = smallest
    r = asc
    u = sum(r[:n1]) - n1 * (n1 + 1) / 2
    counts = {}
    for v in pooled:
        counts[v] = counts.get(v, 0) + 1
    n = n1 + n2
    ties = sum(t ** 3 - t for t in counts.values())
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return 1.0
    z = (abs(u - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0) / math.sqrt(2))


def ratio_interval(base, other, resamples=2000):
    """95 % bootstrap interval of median(base) / median(other)."""
    rng = random.Random(12345)
    values = sorted(statistics.median(rng.choices(base, k=len(base))) /
                    statistics.median(rng.choices(other, k=len(other)))
                    for _ in range(resamples))
    return values[int(0.025 * resamples)], values[int(0.975 * resamples) - 1]


def judge(base, other):
    """(ratio, low, high, direction): base / other, +1 faster than base, -1 slower, 0 undecided."""
    ratio = statistics.median(base) / statistics.median(other)
    low, high = ratio_interval(base, other)
    decided = mann_whitney_p(base, other) < ALPHA
    direction = 0
    if decided and low > 1 + NOISE_FLOOR:
        direction = 1
    elif decided and high < 1 / (1 + NOISE_FLOOR):
        direction = -1
    return ratio, low, high, direction


def real_judgements(path):
    """malloc -> (ratio, low, high, direction, cpu_ms) as `try` filed them, glibc / malloc."""
    program = json.load(open(path))["program"]
    out = {}
    for c in program["combinations"]:
        if c["knobs"] or c["runs_ok"] == 0:
            continue
        cpu_ms = 1000 * c["median"]["cpu_seconds"]
        vs = c["cpu_vs_baseline"]
        if c["name"] == program["baseline"]:
            out[c["malloc"]] = (1.0, 1.0, 1.0, 0, cpu_ms)
            continue
        if vs is None or not vs["ratio"]:
            continue  # no ratio (the baseline had no successful run): not ranked
        low, high = (1 / vs["interval"]["high"], 1 / vs["interval"]["low"]) \
            if vs["interval"] else (0.0, float("inf"))
        direction = {"faster": 1, "slower": -1}.get(vs["verdict"], 0)
        out[c["malloc"]] = (1 / vs["ratio"], low, high, direction, cpu_ms)
    stopping = program.get("stopping", {})
    return out, program["rounds"], stopping.get("stopped_because", "")


def replay_samples(path):
    """malloc -> {"calls": [ns per call], "program": [program ns per call]}"""
    results = json.load(open(path))
    out = {}
    for w in results["workloads"]:
        if w.get("kind") != "trace":
            continue
        for c in w["cells"]:
            if c["strategy"] != "malloc" or c["status"] != "ok":
                continue
            rp = c["replay"]
            out[c["malloc"]] = {"calls": rp["ns_per_call"]["per_repetition"],
                                "program": rp.get("program_ns_per_call", {}).get("per_repetition", [])}
    return out


def mark(direction):
    return {1: "faster", -1: "slower", 0: "undecided"}[direction]


def text(j):
    return f"{j[0]:.2f} [{j[1]:.2f}–{j[2]:.2f}] {mark(j[3])}"


def main():
    print("Ratios are glibc / malloc (> 1: faster than glibc), each with its interval and the lab's "
          "verdict (the interval beyond a 3 % noise floor, and the U test p < 0.05). Real: CPU "
          "time (user + sys) of the whole program, as `alloclab try` filed it (adaptive rounds: "
          "the stop rule's interval at its last look). Replay: malloc call time (ns per call) and "
          "replayed program time (program ns per call), one per whole replay in a fresh process, "
          "95 % bootstrap.\n")
    summary = []
    largest_errors = []  # per program, the call time's largest |ratio error|
    for arg in sys.argv[1:]:
        program, paths = arg.split("=", 1)
        real_path, replay_path = paths.split(",", 1)
        replay = replay_samples(replay_path)
        real, rounds, stopped = real_judgements(real_path)
        mallocs = [m for m in real if m in replay and m != "glibc"]
        print(f"### {program}\n")
        print(f"glibc: {real['glibc'][4]:.0f} ms of CPU a real run ({rounds} rounds; {stopped}), "
              f"{statistics.median(replay['glibc']['calls']):.1f} ns per replayed call, "
              f"{statistics.median(replay['glibc']['program'] or [0]):.1f} replayed program ns "
              "per call\n")
        print("| malloc | real CPU ms | real ratio | replay: call time | replay: program time |")
        print("|---|---:|---:|---:|---:|")
        judged = {}
        for m in mallocs:
            judged[m] = {"real": real[m][:4],
                         "calls": judge(replay["glibc"]["calls"], replay[m]["calls"])}
            if replay[m]["program"] and replay["glibc"]["program"]:
                judged[m]["program"] = judge(replay["glibc"]["program"], replay[m]["program"])
        for m in sorted(mallocs, key=lambda m: -judged[m]["real"][0]):
            j = judged[m]
            print(f"| {m} | {real[m][4]:.0f} | {text(j['real'])} | "
                  f"{text(j['calls'])} | {text(j['program']) if 'program' in j else '–'} |")
        print()
        everyone = ["glibc"] + mallocs
        real_ratio = [1.0] + [judged[m]["real"][0] for m in mallocs]
        decided_real = sum(1 for m in mallocs if judged[m]["real"][3] != 0)
        for figure in ("calls", "program"):
            if any(figure not in judged[m] for m in mallocs):
                continue
            rho = spearman(real_ratio, [1.0] + [judged[m][figure][0] for m in mallocs])
            reversed_ = [m for m in mallocs if judged[m]["real"][3] * judged[m][figure][3] < 0]
            errors = {m: judged[m][figure][0] / judged[m]["real"][0] - 1 for m in mallocs}
            mean_error = statistics.mean(abs(e) for e in errors.values())
            if figure == "calls":
                largest_errors.append(max(abs(e) for e in errors.values()))
            summary.append((program, figure, len(everyone), decided_real, rho, reversed_,
                            mean_error))
            print(f"- replay {figure} time: Spearman ρ over {len(everyone)} mallocs **{rho:.2f}**; "
                  f"reverses a decided real direction: {', '.join(reversed_) or 'none'}; "
                  "ratio errors (replay ÷ real − 1): " +
                  ", ".join(f"{m} {100 * e:+.0f} %" for m, e in errors.items()))
        print()
    print("| program | replay figure | mallocs | real differences decided | Spearman ρ | "
          "reversed | mean abs. ratio error |\n|---|---|---:|---:|---:|---|---:|")
    for program, figure, n, decided, rho, reversed_, mean_error in summary:
        print(f"| {program} | {figure} time | {n} | {decided} | {rho:.2f} | "
              f"{', '.join(reversed_) or 'none'} | {100 * mean_error:.0f} % |")
    if largest_errors:
        print(f"\nThe replay's error (largest |replay ÷ real − 1| of the call time, every program): "
              f"{100 * max(largest_errors):.0f} % (src/lab/trace/replay_trust.hpp: "
              "replay_error_percent)")


if __name__ == "__main__":
    main()
