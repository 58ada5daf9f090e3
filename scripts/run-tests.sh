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

step "downstream use: install + find_package, and add_subdirectory"
rm -rf build/install-test build/consumer-installed build/consumer-subdir
cmake --install build/release --prefix build/install-test >/dev/null
cmake -S tests/consumer -B build/consumer-installed -G Ninja -DCMAKE_PREFIX_PATH="$PWD/build/install-test" >/dev/null
cmake --build build/consumer-installed
ctest --test-dir build/consumer-installed --output-on-failure
cmake -S tests/consumer -B build/consumer-subdir -G Ninja -DALLOCLAB_SOURCE_DIR="$PWD" >/dev/null
cmake --build build/consumer-subdir
ctest --test-dir build/consumer-subdir --output-on-failure
