#!/usr/bin/env python3
"""Prints the peer table and issue 9's targets from one alloclab_bench JSON file.

    bench/peer_table.py results.json

Every number is the median over repetitions of nanoseconds per operation
(1e9 / items_per_second; for threaded runs items_per_second is the total over
all threads). Every ratio compares two rows of the same file: the same run.
"""
import json
import sys


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if not b.get("error_occurred")]
    medians = [b for b in rows if b.get("aggregate_name") == "median"]
    chosen = medians or [b for b in rows if b.get("run_type") == "iteration"]
    ns = {b["run_name"]: 1e9 / b["items_per_second"] for b in chosen if b.get("items_per_second")}
    return data.get("context", {}), ns


def table(ns, prefix):
    rows = sorted((v, k[len(prefix):]) for k, v in ns.items() if k.startswith(prefix))
    print(f"\n### {prefix.rstrip('/')}\n")
    print("| peer | ns per op (median) | × fastest |")
    print("|---|---:|---:|")
    for v, name in rows:
        print(f"| {name} | {v:.2f} | {v / rows[0][0]:.2f} |")


def main():
    if len(sys.argv) != 2:
        print("usage: peer_table.py results.json", file=sys.stderr)
        return 2
    try:
        context, ns = load(sys.argv[1])
    except (OSError, ValueError, KeyError) as e:
        print(f"peer_table.py: cannot read {sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    print(f"build: {context.get('alloclab_build', '?')}; load average: "
          f"{context.get('load_avg', '?')}; {context.get('num_cpus', '?')} CPUs")
    for prefix in ("peer_alloc_free_16B/", "peer_alloc_free_64B/", "peer_alloc_free_256B/",
                   "peer_random_8_1024_live64/", "peer_producer_consumer/"):
        table(ns, prefix)

    r = "peer_random_8_1024_live64/"
    pc = "peer_producer_consumer/"

    def get(name):
        return ns.get(name)

    print("\n### issue 9 targets\n")
    print("| measurement | target | measured | verdict |")
    print("|---|---|---:|---|")

    def speedup(label, target, ours, theirs, minimum):
        a, b = get(ours), get(theirs)
        if a is None or b is None:
            print(f"| {label} | {target} | not measured | missed |")
            return
        ratio = b / a
        print(f"| {label} | {target} | {ratio:.2f}× | {'met' if ratio >= minimum else 'missed'} |")

    static, pmr = r + "alloclab_multipool_allocator", r + "alloclab_multipool_pmr"
    speedup("multipool allocator, random", "≥ 2× mi_malloc", static, r + "mi_malloc", 2)
    speedup("multipool allocator, random", "≥ 1.5× foonathan collection (identity)", static,
            r + "foonathan_pool_collection_identity", 1.5)
    speedup("multipool allocator, random", "≥ 6× libstdc++ unsync pool", static,
            r + "std_unsync_pool_pmr", 6)
    speedup("multipool allocator, random", "≥ 3× Boost unsync pool", static,
            r + "boost_unsync_pool_pmr", 3)
    speedup("multipool pmr, random", "≥ 4× libstdc++ unsync pool", pmr, r + "std_unsync_pool_pmr", 4)
    speedup("multipool pmr, random", "≥ 1.6× Boost unsync pool", pmr, r + "boost_unsync_pool_pmr",
            1.6)
    if None not in (get(pmr), get(static), get(r + "do_nothing_pmr")):
        bound = 1.25 * (get(r + "do_nothing_pmr") + get(static))
        verdict = "met" if get(pmr) <= bound else "missed"
        print(f"| multipool pmr, random | ≤ 1.25 × (do-nothing pmr + allocator path) = "
              f"{bound:.2f} ns | {get(pmr):.2f} ns | {verdict} |")
    conc = r + "alloclab_concurrent_multipool_pmr/real_time/threads:"
    speedup("concurrent multipool, 1 thread, pmr", "≥ 5× libstdc++ sync pool",
            r + "alloclab_concurrent_multipool_pmr", r + "std_sync_pool_pmr", 5)
    speedup("concurrent multipool, 1 thread, pmr", "≥ 2× Boost sync pool",
            r + "alloclab_concurrent_multipool_pmr", r + "boost_sync_pool_pmr", 2)
    speedup("concurrent multipool, 2 threads", "total throughput ≥ 1.7× one thread", conc + "2",
            conc + "1", 1.7)
    speedup("concurrent multipool, producer/consumer", "≥ 3× libstdc++ sync pool",
            pc + "alloclab_concurrent_multipool_pmr/manual_time", pc + "std_sync_pool_pmr/manual_time",
            3)
    speedup("concurrent multipool, producer/consumer", "not slower than glibc malloc (≥ 1×)",
            pc + "alloclab_concurrent_multipool_pmr/manual_time", pc + "malloc/manual_time", 1)
    tls = "concurrent_tls/one_pool/"  # issue 18: the hot path compiled -fPIC into a shared library
    speedup("concurrent multipool in a shared library", "within 1.2× the executable (≥ 0.83×)",
            tls + "in_shared_library", tls + "in_executable", 1 / 1.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
