#!/usr/bin/env python3
"""Writes one program's real runs (REAL_TSV of scripts/validate-replay.sh) in the shape
`alloclab advise --real` reads from a program-frame results.json (src/lab/advise/program_runs.hpp),
so the validation exercises advise on real runs until `alloclab try` writes that file itself.

usage: real_runs_json.py REAL_TSV PROGRAM COMMAND [ARGS...] > real.json
"""
import json
import sys


def main():
    tsv, program, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    runs, names = [], []
    for line in open(tsv):
        p, malloc, round_, ms = line.split()
        if p != program:
            continue
        if malloc not in names:
            names.append(malloc)
        runs.append({"combination": malloc, "round": int(round_), "ok": True,
                     "cpu_seconds": float(ms) / 1000})
    json.dump({"program": {"command": command, "baseline": "glibc",
                           "combinations": [{"name": m, "malloc": m, "knobs": {}} for m in names],
                           "runs": runs}},
              sys.stdout, indent=1)


if __name__ == "__main__":
    main()
