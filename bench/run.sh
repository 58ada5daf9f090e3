#!/bin/sh
# Builds alloclab_bench in the Release tree and runs every microbenchmark side
# by side, writing Google Benchmark JSON to build/release/bench/results.json
# (ALLOCLAB_BENCH_BUILD_DIR / ALLOCLAB_BENCH_OUT override), then prints the
# Markdown summary (medians, ratios from this run, issue-2 targets).
#
#   bench/run.sh                          # 5 repetitions, aggregates only
#   ALLOCLAB_BENCH_REPETITIONS=10 bench/run.sh --benchmark_filter=pool
#
# Extra arguments go to alloclab_bench. The binary itself refuses to run from
# an unoptimised build (exit 2); any benchmark whose buffer is undersized makes
# it exit 1. Exit status: that of alloclab_bench.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
build=${ALLOCLAB_BENCH_BUILD_DIR:-$root/build/release}
out=${ALLOCLAB_BENCH_OUT:-$build/bench/results.json}
repetitions=${ALLOCLAB_BENCH_REPETITIONS:-5}
jobs=${ALLOCLAB_BENCH_JOBS:-2}

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt")
if [ "$build_type" != "Release" ]; then
  echo "run.sh: warning: $build has CMAKE_BUILD_TYPE='$build_type', not Release" >&2
fi
cmake --build "$build" --target alloclab_bench --parallel "$jobs"

# The machine may be shared: say so when it is busy (numbers are then noisy).
cpus=$(nproc 2>/dev/null || echo 1)
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" -v c="$cpus" 'BEGIN { exit !(l > 0.5 * c) }'; then
  echo "run.sh: warning: load average $load on $cpus CPUs; results will be noisy, re-run when idle" >&2
fi

mkdir -p "$(dirname "$out")"
status=0
"$build/bench/alloclab_bench" \
  --benchmark_repetitions="$repetitions" \
  --benchmark_report_aggregates_only=true \
  --benchmark_out="$out" --benchmark_out_format=json \
  "$@" || status=$?
echo "run.sh: JSON written to $out" >&2

if [ -s "$out" ] && command -v python3 >/dev/null 2>&1; then
  echo
  python3 "$root/bench/summarize.py" "$out" || true
fi
exit "$status"
