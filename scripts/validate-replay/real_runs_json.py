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
    runs = {}
    for line in open(tsv):
        p, malloc, _, ms = line.split()
        if p == program:
            runs.setdefault(malloc, []).append(float(ms))
    cells = [{"malloc": m, "status": "ok", "program": {"cpu_ms": {"per_repetition": v}}}
             for m, v in runs.items()]
    json.dump({"workloads": [{"kind": "program", "command": command,
                              "baseline": {"malloc": "glibc"}, "cells": cells}]},
              sys.stdout, indent=1)


if __name__ == "__main__":
    main()
