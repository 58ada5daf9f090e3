#!/usr/bin/env bash
# Functions stay under 80 lines: clang-tidy's readability-function-size (configured in
# .clang-tidy) over every source file of src/ in BUILD_DIR's compile_commands.json, and the
# functions of src/'s headers those files include. Fails on a long function that is not in
# `allowed` below, and on an entry of `allowed` that is no longer long (take it off: the list only
# shrinks). Run by the ctest style.function_size of the release build.
# Usage: scripts/check-function-size.sh BUILD_DIR [JOBS]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build_dir="$(cd "${1:?usage: $0 BUILD_DIR [JOBS]}" && pwd)"
jobs="${2:-$(nproc)}"

# The long functions not split yet, "path: function" (path relative to the checkout). The list
# only shrinks: a function that grows past 80 lines is split, not added here.
allowed=()

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log="$work/clang-tidy.log"
# The build's precompiled headers are GCC's: clang would find cmake_pch.hxx.gch beside each
# cmake_pch.hxx and refuse it. Copies of the (textual) headers in $work have none beside them.
while IFS= read -r -d '' header; do
  mkdir -p "$work/pch$(dirname "$header")"
  cp "$header" "$work/pch$header"
done < <(find "$build_dir" -name cmake_pch.hxx -print0)
sed "s|-include \(/[^ ]*/cmake_pch\.hxx\)|-include $work/pch\1|g" \
  "$build_dir/compile_commands.json" >"$work/compile_commands.json"
if ! run-clang-tidy -quiet -j "$jobs" -p "$work" -header-filter "^$root/src/" \
  "^$root/src/" >"$log" 2>&1; then
  cat "$log"
  echo "check-function-size: clang-tidy failed on a file (above)" >&2
  exit 1
fi
# run-clang-tidy asks for colour: strip it, then keep "path: function" of each warning.
found="$(sed 's/\x1b\[[0-9;]*m//g' "$log" |
  sed -n "s|^$root/\([^:]*\):[0-9]*:[0-9]*: warning: function '\([^']*\)' exceeds .*\[readability-function-size\]\$|\1: \2|p" |
  sort -u)"
expected="$(printf '%s\n' "${allowed[@]}" | sed '/^$/d' | sort -u)"

status=0
while IFS= read -r entry; do
  [[ -n "$entry" ]] || continue
  echo "over 80 lines: $entry; split it into functions that say what they do" >&2
  status=1
done < <(comm -23 <(printf '%s\n' "$found") <(printf '%s\n' "$expected"))
while IFS= read -r entry; do
  [[ -n "$entry" ]] || continue
  echo "no longer over 80 lines: $entry; take it off \`allowed\` in $0" >&2
  status=1
done < <(comm -13 <(printf '%s\n' "$found") <(printf '%s\n' "$expected"))
[[ $status -eq 0 ]] && echo "check-function-size: ${#allowed[@]} known long functions, no new one"
exit "$status"
