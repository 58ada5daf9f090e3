#!/usr/bin/env python3
"""Issue 37's agreement check, read from two results.json files.

Usage: bench/agreement.py FIRST.json SECOND.json

Takes the stop rule's comparisons of both runs (`budget.comparisons`, matched by id) and prints:

| figure | meaning |
|---|---|
| compared in both | comparisons with an interval in both runs |
| decided in both | decided (a direction, or the same within the margin) in both |
| opposite directions | one run decided "candidate faster", the other "candidate slower": the figure that must be 0 |
| a direction against "the same" | one run decided a direction, the other "the same within the margin" |
| intervals apart | the two intervals do not overlap (each run's interval misses the other's) |
| first's value outside second's interval | the first run's ratio lies outside the second run's interval |
| second's value outside first's interval | the same the other way round |

Two default main jobs back to back, or a budgeted run against a quiet `--full` run (fixed plan,
unpaired, judged once at 95 %), are the two uses (docs/budget.md, "Agreement"). The comparisons
that disagree are listed after the table.
"""
import json
import sys

FASTER, SLOWER, SAME = "candidate faster", "candidate slower", "the same within the margin"


def comparisons(path):
    with open(path) as f:
        budget = json.load(f).get("budget") or {}
    return {c["id"]: c for c in budget.get("comparisons", [])
            if c.get("low") is not None and c.get("high") is not None}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2])
    first, second = comparisons(sys.argv[1]), comparisons(sys.argv[2])
    both = sorted(set(first) & set(second))
    decided = opposite = direction_vs_same = apart = first_out = second_out = 0
    notes = []
    for key in both:
        a, b = first[key], second[key]
        va, vb = a.get("verdict"), b.get("verdict")
        if va != "open" and vb != "open":
            decided += 1
        if {va, vb} == {FASTER, SLOWER}:
            opposite += 1
            notes.append(f"opposite: {key}: {va} {a['value']:.3f} vs {vb} {b['value']:.3f}")
        elif SAME in (va, vb) and ({va, vb} & {FASTER, SLOWER}):
            direction_vs_same += 1
        first_out += not b["low"] <= a["value"] <= b["high"]
        second_out += not a["low"] <= b["value"] <= a["high"]
        if a["high"] < b["low"] or b["high"] < a["low"]:
            apart += 1
            notes.append(f"apart: {key}: [{a['low']:.3f}-{a['high']:.3f}] vs "
                         f"[{b['low']:.3f}-{b['high']:.3f}]")
    rows = [("compared in both", len(both)), ("decided in both", decided),
            ("opposite directions", opposite), ('a direction against "the same"', direction_vs_same),
            ("intervals apart", apart), ("first's value outside second's interval", first_out),
            ("second's value outside first's interval", second_out)]
    print("| figure | count |\n|---|---:|")
    for name, count in rows:
        print(f"| {name} | {count} |")
    for note in notes:
        print(note)


if __name__ == "__main__":
    main()
