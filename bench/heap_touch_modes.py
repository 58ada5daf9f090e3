#!/usr/bin/env python3
"""Seed 003's FIFO study under each malloc, with both kernel touch modes, side by side.

Every (round, distribution, touch mode, malloc) cell is its own `alloclab __heap-worker`
process under the allocator's LD_PRELOAD, with one repetition (seed 003 ran separate
processes); rounds interleave every cell so machine drift hits all alike. Prints a Markdown
table of the median ns per malloc+free pair (NOOP subtracted) over the rounds, with the
minor page faults per pair.

    python3 bench/heap_touch_modes.py --alloclab build/release/alloclab --rounds 3
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

MALLOCS = {  # name -> LD_PRELOAD (see src/lab/process/malloc_registry.cpp)
    "glibc": None,
    "jemalloc": "libjemalloc.so.2",
    "mimalloc": "libmimalloc.so.2",
    "tcmalloc": "libtcmalloc_minimal.so.4",
    "tbbmalloc": "libtbbmalloc_proxy.so.2",
}
DISTS = ["uniform", "exponential", "lognormal"]
TOUCHES = ["once", "every_page"]


def run_cell(alloclab, malloc, dist, touch, iterations, seed):
    spec = {"malloc": malloc, "kernel": "fifo", "dist": dist, "touch": touch,
            "iterations": iterations, "repetitions": 1, "seed": seed, "keep_samples": False}
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    if MALLOCS[malloc]:
        env["LD_PRELOAD"] = MALLOCS[malloc]
    out = subprocess.run([alloclab, "__heap-worker", json.dumps(spec)], env=env,
                         capture_output=True, text=True, check=True, timeout=600)
    doc = json.loads(out.stdout)
    if not doc.get("measured"):
        raise RuntimeError(f"{malloc}: not measured: {doc.get('error')}")
    r = doc["result"]
    return r["ns_per_pair"], r["memory"]["minor_faults"] / r["pairs_per_rep"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--alloclab", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=10000, help="batches of 100 (seed: 10000)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--mallocs", default=",".join(MALLOCS))
    ap.add_argument("--dists", default=",".join(DISTS))
    args = ap.parse_args()
    mallocs = args.mallocs.split(",")
    dists = args.dists.split(",")
    ns = {}
    faults = {}
    for rnd in range(args.rounds):
        for dist in dists:
            for touch in TOUCHES:
                for m in mallocs:
                    t, f = run_cell(args.alloclab, m, dist, touch, args.iterations, args.seed)
                    ns.setdefault((m, dist, touch), []).append(t)
                    faults.setdefault((m, dist, touch), []).append(f)
                    print(f"round {rnd + 1}: {dist} {touch} {m}: {t:.1f} ns/pair", file=sys.stderr)
    head = "| malloc | " + " | ".join(f"{d} {t}" for d in dists for t in TOUCHES) + " |"
    print(head)
    print("|---|" + "---:|" * (len(dists) * len(TOUCHES)))
    for m in mallocs:
        cells = []
        for d in dists:
            for t in TOUCHES:
                v = ns[(m, d, t)]
                f = statistics.median(faults[(m, d, t)])
                cells.append(f"{statistics.median(v):.0f} ({min(v):.0f}-{max(v):.0f}; {f:.2f} flt)")
        print(f"| {m} | " + " | ".join(cells) + " |")
    print("\nns per malloc+free pair, NOOP subtracted: median (min-max) over "
          f"{args.rounds} processes; flt = minor page faults per pair.")
    for d in dists:
        for t in TOUCHES:
            order = sorted(mallocs, key=lambda m: statistics.median(ns[(m, d, t)]))
            print(f"ranking {d} {t}: " + " < ".join(order))


if __name__ == "__main__":
    main()
