#!/usr/bin/env python3
"""Summarise an alloclab_bench JSON file: per-operation medians, ratios, targets.

Usage: bench/summarize.py build/release/bench/results.json

Every ratio is computed from medians of the same run (the same JSON file), as
issue 2 asks. The per-operation time is the `per_item` counter: CPU time of a
timed iteration divided by the operations in it. Prints Markdown.
"""
import json
import statistics
import sys
from collections import OrderedDict

# group -> (baseline variant, what the ratio column means)
BASELINES = {
    "arena_alloc_64B": "bump_inline",
    "arena_in_memory_64B": "bump_in_memory",
    "arena_runtime_request_64B": "bump_in_memory",
    "pool_alloc_free_16B": "malloc_free",
    "pool_alloc_free_64B": "malloc_free",
    "pool_alloc_free_256B": "malloc_free",
    "vector_push_back_1000": "std_allocator",
    "vector_push_back_1000_reserve": "std_allocator",
}


def load(path):
    with open(path) as f:
        data = json.load(f)
    samples = OrderedDict()  # name -> list of per-item ns (one per repetition)
    medians = {}
    cvs = {}
    errors = []
    for b in data["benchmarks"]:
        name = b.get("run_name", b["name"])
        if b.get("error_occurred"):
            errors.append(f"{name}: {b.get('error_message', '')}")
            continue
        if "per_item" not in b:
            continue
        kind = b.get("aggregate_name")
        if kind == "median":
            medians[name] = b["per_item"] * 1e9
            samples.setdefault(name, [])
        elif kind == "cv":
            cvs[name] = b["per_item"]
        elif kind is None:
            samples.setdefault(name, []).append(b["per_item"] * 1e9)
    for name, values in samples.items():
        if name not in medians and values:
            medians[name] = statistics.median(values)
    return data.get("context", {}), list(samples.keys()), medians, cvs, errors


def fmt(x):
    return f"{x:.3f}" if x < 10 else f"{x:.2f}"


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    context, names, med, cvs, errors = load(sys.argv[1])

    print(f"- build: {context.get('alloclab_build', '?')} ({context.get('alloclab_build_type', '?')}, "
          f"`{context.get('alloclab_cxx_flags', '?')}`, gcc {context.get('alloclab_compiler', '?')})")
    print(f"- date: {context.get('date', '?')}; host: {context.get('host_name', '?')}, "
          f"{context.get('num_cpus', '?')} CPUs at {context.get('mhz_per_cpu', '?')} MHz (nominal)")
    load_avg = context.get("load_avg")
    if load_avg:
        print(f"- load average when the run started: {', '.join(f'{x:.2f}' for x in load_avg)}")
    if errors:
        print("\n**Failed benchmarks (no numbers):**")
        for e in errors:
            print(f"- {e}")
    print()
    print("| benchmark | variant | median ns/op | CV | × baseline |")
    print("|---|---|---:|---:|---:|")
    for name in names:
        if name not in med:
            continue
        group, _, variant = name.partition("/")
        base = BASELINES.get(group)
        base_time = med.get(f"{group}/{base}") if base else None
        ratio = f"{med[name] / base_time:.2f}" if base_time else ""
        cv = f"{cvs[name] * 100:.1f}%" if name in cvs else ""
        print(f"| {group} | {variant} | {fmt(med[name])} | {cv} | {ratio} |")
    print()
    print("× baseline: this variant's median time / the group's baseline median time "
          "(arena: bump_inline or bump_in_memory, pool: malloc_free, vector: std_allocator); "
          "below 1 is faster.")

    def get(name):
        return med.get(name)

    rows = []

    def target(what, value, ok, shown):
        if value is None:
            rows.append((what, "not measured", "MISSED"))
        else:
            rows.append((what, shown, "met" if ok else "MISSED"))

    def ratio_target(what, top, bottom, ok):
        """A target on top/bottom of two medians of this run; ok(ratio) says whether it is met."""
        t, b = get(top), get(bottom)
        if not (t and b):
            target(what, None, False, "")
            return
        r = t / b
        target(what, r, ok(r), f"{fmt(t)} / {fmt(b)} ns = {r:.2f}×")

    ratio_target("arena allocate via pmr no slower than monotonic_buffer_resource",
                 "arena_alloc_64B/alloclab_arena_pmr", "arena_alloc_64B/std_monotonic_pmr",
                 lambda r: r <= 1.0)
    ratio_target("arena allocate via alloclab::allocator within 1.1× of the inlined bump",
                 "arena_alloc_64B/alloclab_arena_allocator", "arena_alloc_64B/bump_inline",
                 lambda r: r <= 1.1)
    ratio_target("arena via alloclab::allocator within 1.1× of a bump whose state is in memory "
                 "(issue 8)",
                 "arena_in_memory_64B/alloclab_arena_allocator", "arena_in_memory_64B/bump_in_memory",
                 lambda r: r <= 1.1)
    ratio_target("arena with run-time sizes within 1.1× of the in-memory bump (issue 8)",
                 "arena_runtime_request_64B/alloclab_arena", "arena_runtime_request_64B/bump_in_memory",
                 lambda r: r <= 1.1)
    for size in (16, 64, 256):
        g = f"pool_alloc_free_{size}B"
        ratio_target(f"{size} B pool alloc+free via pmr ≥ 7× faster than unsynchronized_pool_resource",
                     f"{g}/std_unsynchronized_pool_pmr", f"{g}/alloclab_pool_pmr", lambda r: r >= 7)
        ratio_target(f"{size} B pool alloc+free via pmr ≥ 3× faster than malloc/free",
                     f"{g}/malloc_free", f"{g}/alloclab_pool_pmr", lambda r: r >= 3)
        p_alloc = get(f"{g}/alloclab_pool_allocator")
        target(f"{size} B pool alloc+free via alloclab::allocator ≤ 1.5 ns", p_alloc,
               p_alloc is not None and p_alloc <= 1.5, f"{fmt(p_alloc)} ns" if p_alloc else "")
    print()
    print("| target (issues 2 and 8) | measured (same run) | |")
    print("|---|---|---|")
    for what, shown, verdict in rows:
        print(f"| {what} | {shown} | {verdict} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
