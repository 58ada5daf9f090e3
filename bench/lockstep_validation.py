#!/usr/bin/env python3
"""Checks how the lab decides, on this machine: an A/A comparison and injected known effects.

Each trial is one `alloclab-lab __pair-check SPEC` (src/lab/main/pair_check.hpp): a workload's
whole lockstep ring, as the default main job times it, plus a second copy of its std cell; the
copy's worker adds INJECT % to each timed batch. A trial grows its ring runs as a budgeted run
grows a comparison (2, then by half up to --runs, the stop rule's alpha spent over the looks) and
gives the copy's ratio twice, paired (per-run median of the per-slice ratios in lockstep) and
unpaired (the same processes' levels), each with a 2 % equivalence margin.

Usage: bench/lockstep_validation.py [--binary build/release/alloclab-lab] [--workload W]
                                    [--mallocs glibc,jemalloc,...] [--trials N] [--runs R]
                                    [--inject 0,1,2,5] [--json OUT]

Prints a Markdown table per condition: how often the comparison was called different (A/A:
false differences; with an effect: found in the right direction), called the same within 2 %,
left open, and the median half-width of the interval.

Each trial holds the lab's machine lock (/tmp/alloclab-lab.lock, or ALLOCLAB_LOCK_FILE; `none`:
no lock) while it measures, queueing behind other lab runs as `alloclab run --wait` does, so no
two lab measurements time each other; between trials others may take it. With --json, every
trial's answer is written as it comes, and a progress line per trial goes to stderr.

--builds: the CI gate instead (`alloclab compare --paired`, docs/ci-gate.md). Each trial compares
two builds cell by cell: the baseline is --binary, the candidate a copy of it at another path
(A/A) or a wrapper that execs it with ALLOCLAB_INJECT_PERCENT set (a build INJECT % slower on
every timed batch). Every cell of every trial counts once.

  bench/lockstep_validation.py --builds --trials 20 --inject 0,2,5 \
      --workload vector_push --strategies std,alloclab_arena --budget 60s --runs 8
"""
import argparse
import contextlib
import datetime
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


@contextlib.contextmanager
def lab_lock(what):
    """The lab's machine lock (src/lab/process/run_lock.cpp): flock, waiting for it, and the
    holder's line for whoever finds it taken."""
    path = os.environ.get("ALLOCLAB_LOCK_FILE") or "/tmp/alloclab-lab.lock"
    if path == "none":
        yield
        return
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {started}, `{what}`\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing drops the flock


def trial(binary, workload, runs, inject, seed, mallocs=""):
    spec = {"workload": workload, "runs": runs, "inject_percent": inject, "seed": seed}
    if mallocs:
        spec["mallocs"] = mallocs.split(",")
    spec = json.dumps(spec)
    with lab_lock(f"bench/lockstep_validation.py: __pair-check {spec}"):
        done = subprocess.run([binary, "__pair-check", spec], capture_output=True, text=True,
                              check=False)
    if done.returncode != 0:
        sys.exit(f"__pair-check failed ({done.returncode}): {done.stderr.strip()}")
    return json.loads(done.stdout)


def summary(rows, design, inject):
    verdicts = [r[design]["verdict"] for r in rows]
    widths = [(r[design]["high"] - r[design]["low"]) / 2 / r[design]["value"] for r in rows
              if r[design]["high"] is not None and r[design]["high"] < 1e300 and r[design]["value"] > 0]
    n = len(verdicts)
    # The copy is the candidate: ratio std / copy, below 1 when the copy pays an injected cost.
    wrong_way = verdicts.count("candidate faster")
    right_way = verdicts.count("candidate slower")
    same = verdicts.count("the same within the margin")
    found = right_way if inject > 0 else right_way + wrong_way
    return {
        "condition": "A/A" if inject == 0 else f"+{inject:g} % on one side",
        "design": design,
        "trials": n,
        "called different" if inject == 0 else "found, right direction": f"{found} ({100 * found / n:.0f} %)",
        "wrong direction": str(wrong_way if inject > 0 else "-"),
        "same within 2 %": f"{same} ({100 * same / n:.0f} %)",
        "median half-width": f"{100 * statistics.median(widths):.2f} %" if widths else "-",
        "median ring runs": f"{statistics.median(r[design]['runs'] for r in rows):g}",
    }


def candidate_build(binary, inject, directory):
    """The candidate's binary: a copy at another path (A/A), or a wrapper adding INJECT %."""
    if inject == 0:
        copy = os.path.join(directory, "candidate-alloclab-lab")
        shutil.copy2(binary, copy)
        return copy
    wrapper = os.path.join(directory, f"candidate-inject-{inject:g}")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\nALLOCLAB_INJECT_PERCENT={inject:g} exec '{os.path.abspath(binary)}' \"$@\"\n")
    os.chmod(wrapper, 0o755)
    return wrapper


def builds_trial(a, candidate, seed, directory):
    out = os.path.join(directory, f"trial-{seed}.json")
    command = [a.binary, "compare", "--paired", "--baseline-binary", a.binary, "--candidate-binary",
               candidate, "--workloads", a.workload, "--budget", a.budget, "--runs", str(a.runs),
               "--seed", str(seed), "-o", out, "--wait"]
    if a.strategies:
        command += ["--strategies", a.strategies]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1) or not os.path.exists(out):
        sys.exit(f"compare --paired failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    with open(out) as f:
        return json.load(f)["paired_builds"]


def builds_summary(trials, inject):
    cells = [c for t in trials for c in t["cells"]]
    verdicts = [c["comparison"]["verdict"] for c in cells]
    n = len(verdicts)
    slower, faster = verdicts.count("candidate slower"), verdicts.count("candidate faster")
    same, open_ = verdicts.count("the same within the margin"), verdicts.count("open")
    found = slower if inject > 0 else slower + faster
    widths = [(c["comparison"]["high"] - c["comparison"]["low"]) / 2 / c["comparison"]["value"]
              for c in cells if c["comparison"].get("high") is not None]
    runs = [c["comparison"]["paired_runs"] for c in cells]
    changes = [c["change_percent"] for c in cells if c.get("change_percent") is not None]
    return [("A/A" if inject == 0 else f"+{inject:g} % on the candidate"), str(len(trials)), str(n),
            f"{found} ({100 * found / n:.0f} %)", str(faster) if inject > 0 else "-",
            f"{same} ({100 * same / n:.0f} %)", str(open_),
            f"{statistics.median(changes):+.2f} %" if changes else "-",
            f"{100 * statistics.median(widths):.2f} %" if widths else "-",
            f"{statistics.median(runs):g}",
            f"{statistics.median(t['spent_seconds'] for t in trials):.0f} s"]


def builds_main(a):
    keys = ["condition", "trials", "cells", "called different / found (right way)", "wrong way",
            "same within 2 %", "open", "median change", "median half-width", "median ring runs",
            "median trial time"]
    rows, raw = [], []
    with tempfile.TemporaryDirectory() as directory:
        for inject in [float(x) for x in a.inject.split(",")]:
            candidate = candidate_build(a.binary, inject, directory)
            trials = [builds_trial(a, candidate, seed, directory) for seed in range(1, a.trials + 1)]
            raw.append({"inject_percent": inject, "trials": trials})
            rows.append(builds_summary(trials, inject))
            print(f"done: {inject:g} %: " + " | ".join(rows[-1]), file=sys.stderr)
            if a.json:  # after each condition, so a long validation keeps what it measured
                with open(a.json, "w") as f:
                    json.dump(raw, f, indent=1)
    print("| " + " | ".join(keys) + " |")
    print("|---|" + "---:|" * (len(keys) - 1))
    for row in rows:
        print("| " + " | ".join(row) + " |")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/release/alloclab-lab")
    p.add_argument("--workload", default="vector_push")
    p.add_argument("--mallocs", default="",
                   help="the ring's mallocs (default glibc); a heap workload (fifo_uniform...) "
                        "with glibc,jemalloc,mimalloc,dlmalloc is the heap study's ring; "
                        "injection works in the batch frame only")
    p.add_argument("--trials", type=int, default=40)
    p.add_argument("--runs", type=int, default=8, help="the most ring runs a trial may grow to")
    p.add_argument("--inject", default="0,1,2,5")
    p.add_argument("--json", help="also write every trial's answer here")
    p.add_argument("--builds", action="store_true",
                   help="validate `compare --paired` (two builds) instead of __pair-check")
    p.add_argument("--strategies", default="", help="--builds: the cells' strategies (default all)")
    p.add_argument("--budget", default="60s", help="--builds: each trial's --budget")
    a = p.parse_args()
    if a.builds:
        return builds_main(a)
    table, raw = [], []
    for inject in [float(x) for x in a.inject.split(",")]:
        rows = []
        for seed in range(1, a.trials + 1):
            started = time.monotonic()
            rows.append(trial(a.binary, a.workload, a.runs, inject, seed, a.mallocs))
            answer = rows[-1]["paired"]
            print(f"{inject:g} %, trial {seed} of {a.trials}: paired {answer['verdict']} after "
                  f"{answer['runs']} runs, {time.monotonic() - started:.0f} s", file=sys.stderr)
            if a.json:  # as it comes, so a long validation keeps what it measured
                with open(a.json, "w") as f:
                    json.dump(raw + rows, f, indent=1)
        raw.extend(rows)
        for design in ("paired", "unpaired"):
            table.append(summary(rows, design, inject))
        print(f"done: {inject:g} %", file=sys.stderr)
    keys = ["condition", "design", "trials", "called different / found", "wrong direction",
            "same within 2 %", "median half-width", "median ring runs"]
    print("| " + " | ".join(keys) + " |")
    print("|---|---|" + "---:|" * (len(keys) - 2))
    for row in table:
        found = row.get("called different", row.get("found, right direction"))
        print(f"| {row['condition']} | {row['design']} | {row['trials']} | {found} | "
              f"{row['wrong direction']} | {row['same within 2 %']} | {row['median half-width']} | "
              f"{row['median ring runs']} |")


if __name__ == "__main__":
    main()
