#!/usr/bin/env python3
"""The table of docs/placement.md: placement_probe in a fresh process and after heap history,
with and without glibc's rep-movsb path, interleaved over rounds (one process per cell).

    python3 bench/placement_table.py --probe build/release/bench/placement_probe --rounds 5
"""
import argparse
import json
import os
import statistics
import subprocess

TUNABLE = "glibc.cpu.x86_rep_movsb_threshold=4000000"


def run(probe, elem, pollute, tunable, samples):
    env = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "LD_PRELOAD")}
    if tunable:
        env["GLIBC_TUNABLES"] = TUNABLE
    argv = [probe, "--elem", str(elem), "--samples", str(samples)]
    if pollute:
        argv += ["--pollute", str(pollute)]
    out = subprocess.run(argv, env=env, capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--samples", type=int, default=2000)
    ap.add_argument("--elems", default="64,16")
    ap.add_argument("--pollute", default="0,1,2,3", help="0 = fresh process")
    args = ap.parse_args()
    elems = [int(e) for e in args.elems.split(",")]
    seeds = [int(s) for s in args.pollute.split(",")]
    p50 = {}
    copies = {}
    for _ in range(args.rounds):
        for elem in elems:
            for seed in seeds:
                for tunable in (False, True):
                    d = run(args.probe, elem, seed, tunable, args.samples)
                    p50.setdefault((elem, seed, tunable), []).append(d["p50_ns"])
                    copies[(elem, seed)] = d["copies_over_2KiB"]
    print("| elements | heap | growth copies >= 4 KiB: dst - src (mod 4096) | p50 default (µs) "
          "| p50 rep movsb off (µs) | default / off |")
    print("|---|---|---|---:|---:|---:|")
    for elem in elems:
        for seed in seeds:
            on = statistics.median(p50[(elem, seed, False)])
            off = statistics.median(p50[(elem, seed, True)])
            deltas = ", ".join(f"{c['bytes'] // 1024} KiB: {c['delta_mod4096']}"
                               for c in copies[(elem, seed)] if c["bytes"] >= 4096)
            heap = "fresh" if seed == 0 else f"after history (seed {seed})"
            print(f"| {elem} B | {heap} | {deltas or '-'} | {on / 1000:.1f} | {off / 1000:.1f} "
                  f"| {on / off:.2f} |")
    print(f"\nmedian over {args.rounds} processes of each process's p50 ({args.samples} builds of "
          "1000 push_backs); one process per cell, cells interleaved.")


if __name__ == "__main__":
    main()
