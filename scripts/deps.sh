#!/usr/bin/env bash
# Installs the Debian packages alloclab needs, only those missing.
# Sourced by run-lab.sh and run-tests.sh; runnable on its own.
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail

# The benchmarks' peers (bench/) build against libfoonathan-memory-dev, libboost-container-dev
# and libmimalloc-dev.
ALLOCLAB_BUILD_PACKAGES=(g++ cmake ninja-build pkg-config git libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libcpp-httplib-dev prometheus-cpp-dev
  libfoonathan-memory-dev libboost-container-dev libmimalloc-dev
  libmd4c-dev libmd4c-html0-dev libjs-chart.js)
# The malloc table's packages (src/lab/mallocs/malloc_table.cpp; tests/lab/malloc_table_test.cpp
# fails when the two disagree): each preloaded malloc's library, and newlib's sources the lab
# builds newlib and newlib-nano from. libc6 is every system's; dlmalloc's emscripten is fetched
# without installing it (alloclab_ensure_dlmalloc_source below).
ALLOCLAB_MALLOC_PACKAGES=(libjemalloc2 libmimalloc2.0 libtcmalloc-minimal4 libtbbmalloc2
  newlib-source)
# chromium: report.html is tested in a real (headless) browser. python3-prometheus-client parses
# `serve`'s /metrics; python3-yaml and shellcheck check the job definitions in deploy/; clang-tidy
# keeps functions under 80 lines (scripts/check-function-size.sh).
ALLOCLAB_TEST_PACKAGES=(clang libclang-rt-14-dev clang-format clang-tidy chromium
  python3-prometheus-client python3-yaml shellcheck)
# The simulated cost (`run --simulate`, docs/simulated-cost.md): Callgrind, and strace for the
# memory syscalls the simulation leaves out.
ALLOCLAB_SIMULATION_PACKAGES=(valgrind strace)
# 32-bit ARM (scripts/cross-tests.sh): armhf cross compiler and qemu-user; bare-metal Cortex-M
# compiler with newlib's libstdc++ and qemu-system-arm; GoogleTest's source, built for armhf.
ALLOCLAB_CROSS_PACKAGES=(g++-arm-linux-gnueabihf qemu-user gcc-arm-none-eabi
  libstdc++-arm-none-eabi-newlib qemu-system-arm googletest)
# Load generators of the serve frame (`alloclab load`, tests/load).
ALLOCLAB_LOAD_PACKAGES=(hey wrk)
# The real programs scripts/validate-replay.sh records, runs and replays (interpreters, a
# compiler from g++ above, a database).
ALLOCLAB_VALIDATION_PACKAGES=(python3 perl gawk lua5.4 sqlite3)

# Seed 003's dlmalloc 2.8.6 comes out of Debian's emscripten package without installing it
# (scripts/fetch-dlmalloc.sh; docs/heap-study.md says why): CMake builds the lab's dlmalloc
# preload from it, and fetches it itself when this has not run.
alloclab_ensure_dlmalloc_source() {
  "$(dirname "${BASH_SOURCE[0]}")/fetch-dlmalloc.sh" >/dev/null ||
    echo "alloclab: no dlmalloc.c: the dlmalloc preload will not be built" >&2
}

alloclab_missing_packages() {
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || echo "$pkg"
  done
}

alloclab_ensure_packages() {
  local missing
  mapfile -t missing < <(alloclab_missing_packages "$@")
  [ "${#missing[@]}" -eq 0 ] && return 0
  local install=(apt-get install -y --no-install-recommends "${missing[@]}")
  if [ "$(id -u)" -ne 0 ]; then
    echo "alloclab: missing Debian packages. Run as root:" >&2
    echo "  apt-get update && ${install[*]}" >&2
    return 1
  fi
  echo "alloclab: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  "${install[@]}" >/dev/null
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  alloclab_ensure_packages "${ALLOCLAB_BUILD_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}" "${ALLOCLAB_TEST_PACKAGES[@]}" "${ALLOCLAB_LOAD_PACKAGES[@]}" "${ALLOCLAB_SIMULATION_PACKAGES[@]}" "${ALLOCLAB_CROSS_PACKAGES[@]}"
  alloclab_ensure_dlmalloc_source
fi
