#!/usr/bin/env bash
# Every test alloclab has, from a fresh clone:
#   1. Release build (g++): unit tests, lab tests, usage examples, lab smoke run, the style checks
#      (.clang-format; no function over 80 lines: clang-tidy, scripts/check-function-size.sh);
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer (unoptimised, line
#      tables only: -g1 names every frame of a report and builds faster than -g; compiled in
#      unity batches where the files allow, as most test drivers of step 1 are: never the lab
#      binary of step 1);
#   3. clang++ as C++20 with -Werror (unoptimised): the library, its tests, the lab (its test
#      drivers and tests run in steps 1 and 2) and short libFuzzer runs (the header checks in
#      step 1 cover both compilers);
#   4. the threaded tests (concurrent_multipool, synchronized, scratch_stack) under ThreadSanitizer;
#   5. install + find_package(alloclab) and pkg-config from a separate consumer project (the lab
#      run from an install tree is a ctest of step 1, lab.installed_layout);
#   6. 32-bit ARM (scripts/cross-tests.sh): the library's tests for armhf under qemu-user, with and
#      without exceptions, and the portable headers on a Cortex-M3 under qemu-system-arm.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
alloclab_ensure_packages "${ALLOCLAB_BUILD_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}" "${ALLOCLAB_LOAD_PACKAGES[@]}" "${ALLOCLAB_TEST_PACKAGES[@]}" "${ALLOCLAB_SIMULATION_PACKAGES[@]}" "${ALLOCLAB_CROSS_PACKAGES[@]}"
alloclab_ensure_dlmalloc_source

jobs=$(nproc)
summary=$(mktemp)
# Each step's header says when it started (seconds since the script began) and the CPU time its
# commands used so far (user + system): per-step costs, also on a machine shared with other work.
times_file=$(mktemp)
trap 'rm -f "$summary" "$times_file"' EXIT
step() {
  times >"$times_file"  # in this shell: the children's times are on its second line
  printf '\n== %s (at %d s, %d CPU s) ==\n' "$*" "$SECONDS" \
    "$(awk 'NR == 2 { gsub(/[ms]/, " "); print int($1 * 60 + $2 + $3 * 60 + $4) }' "$times_file")"
}
# Runs ctest, keeping its "N tests failed out of M" and "***Skipped" lines for the total.
run_ctest() { ctest "$@" | tee >(grep -E 'tests failed out of|\*\*\*Skipped' >>"$summary"); }

for preset in release sanitize clang-cxx20; do
  step "configure + build: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  step "test: $preset"
  run_ctest --preset "$preset" -j "$jobs" --timeout 600
done

step "configure + build: tsan (alloclab_tests only)"
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "$jobs"
step "test: tsan (the threaded tests)"
run_ctest --preset tsan -j "$jobs" --timeout 600

step "downstream use: install + find_package, pkg-config, and add_subdirectory"
rm -rf build/install-test build/consumer-installed build/consumer-pkg-config build/consumer-subdir
cmake --install build/release --prefix build/install-test >/dev/null
cmake -S tests/consumer -B build/consumer-installed -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install-test" >/dev/null
cmake --build build/consumer-installed
run_ctest --test-dir build/consumer-installed --output-on-failure
PKG_CONFIG_PATH="$PWD/build/install-test/lib/pkgconfig" \
  cmake -S tests/consumer -B build/consumer-pkg-config -G Ninja -DALLOCLAB_USE_PKG_CONFIG=ON >/dev/null
cmake --build build/consumer-pkg-config
run_ctest --test-dir build/consumer-pkg-config --output-on-failure
cmake -S tests/consumer -B build/consumer-subdir -G Ninja -DALLOCLAB_SOURCE_DIR="$PWD" >/dev/null
cmake --build build/consumer-subdir
run_ctest --test-dir build/consumer-subdir --output-on-failure

step "cross: armhf under qemu-user, Cortex-M under qemu-system-arm"
scripts/cross-tests.sh build
run_ctest --test-dir build/armhf -L library -j "$jobs" --timeout 600 --output-on-failure
run_ctest --test-dir build/cortex-m3 -j "$jobs" --timeout 120 --output-on-failure

step "done"
sleep 1  # let the last tee flush
awk '/Skipped/ { skipped++; next }
     { total += $NF; failed += $(NF-5) }
     END { printf "\ntests: %d passed, %d failed, %d skipped\n", total - failed - skipped, failed, skipped }' "$summary"
