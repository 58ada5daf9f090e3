#!/usr/bin/env bash
# Every test alloclab has, from a fresh clone:
#   1. Release build (g++): unit tests, lab tests, usage examples, lab smoke run;
#   2. the same tests under AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. clang++ as C++20 with -Werror, plus a short libFuzzer run of the model;
#   4. install + find_package(alloclab) from a separate consumer project.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
alloclab_ensure_packages "${ALLOCLAB_BUILD_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}" "${ALLOCLAB_TEST_PACKAGES[@]}"

jobs=$(nproc)
step() { printf '\n== %s ==\n' "$*"; }

for preset in release sanitize clang-cxx20; do
  step "configure + build: $preset"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  step "test: $preset"
  ctest --preset "$preset" -j "$jobs" --timeout 600
done

step "install + find_package consumer"
rm -rf build/install-test build/consumer
cmake --install build/release --prefix build/install-test >/dev/null
cmake -S tests/consumer -B build/consumer -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install-test" >/dev/null
cmake --build build/consumer
ctest --test-dir build/consumer --output-on-failure
