#!/usr/bin/env bash
# The main job: build alloclab in Release and run the default lab suite,
# which writes results/<UTC timestamp>/{results.json,report.md,report.html}.
# Extra arguments go to `alloclab run` (e.g. --quick, --malloc all).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/deps.sh
alloclab_ensure_packages "${ALLOCLAB_BUILD_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}" "${ALLOCLAB_LOAD_PACKAGES[@]}" "${ALLOCLAB_SIMULATION_PACKAGES[@]}"
alloclab_ensure_dlmalloc_source

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target alloclab_cli
exec build/release/alloclab run "$@"
