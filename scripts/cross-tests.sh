#!/usr/bin/env bash
# The library on 32-bit ARM, from Debian packages (scripts/deps.sh, ALLOCLAB_CROSS_PACKAGES):
#   build/armhf      the library's unit tests (GoogleTest, built from /usr/src/googletest for the
#                    target) and the portable-resources program with and without exceptions, for
#                    armhf (the Raspberry Pi's 32-bit ABI), run under qemu-arm -L /usr/arm-linux-gnueabihf;
#   build/cortex-m3  the portable-resources program for a bare-metal Cortex-M3 (-Os, no exceptions,
#                    no RTTI), run under qemu-system-arm -M mps2-an385 -semihosting.
# Both register their runs (and a header check with their compiler) as ctest tests.
# Usage: scripts/cross-tests.sh [build|test]   (default: test = build, then run ctest on both)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-test}
jobs=$(nproc)
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

cmake -S . -B build/armhf -G Ninja -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/armhf.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DALLOCLAB_BUILD_LAB=OFF -DALLOCLAB_BUILD_BENCH=OFF \
  -DALLOCLAB_BUILD_LAB_TESTS=OFF -DALLOCLAB_GTEST_SOURCE_DIR=/usr/src/googletest \
  "${launcher[@]}" >/dev/null
cmake --build build/armhf -j "$jobs" \
  --target alloclab_tests alloclab_portable_exceptions alloclab_portable_no_exceptions

cmake -S tests/embedded -B build/cortex-m3 -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/cortex-m3.cmake" "${launcher[@]}" >/dev/null
cmake --build build/cortex-m3 -j "$jobs"

if [[ $mode == test ]]; then
  ctest --test-dir build/armhf -L library -j "$jobs" --timeout 600 --output-on-failure
  ctest --test-dir build/cortex-m3 -j "$jobs" --timeout 120 --output-on-failure
fi
