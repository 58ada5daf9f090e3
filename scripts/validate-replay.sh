#!/usr/bin/env bash
# Validates `alloclab replay` against real runs (issue 21's acceptance test). Unmodified Debian
# programs, each allocation-heavy and calling the system malloc (python3 with PYTHONMALLOC=malloc,
# perl, gawk, lua5.4; cc1plus and sqlite3 on request with --programs), are recorded, run for real
# under every installed malloc with `alloclab try` (shuffled rounds, each run's malloc proven live,
# adaptive: rounds until every CPU ratio to glibc is decided or the budget is spent), and replayed
# with `alloclab replay --malloc LIST`. Prints the real and replay ratios side by side with the
# rankings and Spearman's rank correlation (Markdown), and keeps everything under the output
# directory.
#
# The replay is judged twice: by its malloc call time alone, and by its replayed program time
# (calls plus the modelled program work over the live blocks, trace/replay.hpp); for each, the
# Spearman rank correlation with the real runs and every malloc whose decided real direction
# (faster or slower than glibc, as `try` judged it) the replay reverses.
#
# usage: scripts/validate-replay.sh [--budget T | --rounds N] [--repetitions N] [--mallocs LIST]
#                                   [--out DIR] [--programs LIST] [--stage all|real|replay]
#   --budget: `try`'s budget per program (default 4m); --rounds N: a fixed number of rounds.
#   --programs: comma-separated, of python3, perl, gawk, lua, cc1plus, sqlite3 (default
#   python3,perl,gawk,lua). Run it at high priority on a shared machine (nice -n -15) so other
#   work disturbs the real runs less.
#   --stage real: record and run for real only; --stage replay: replay and compare what an
#   earlier run left in --out (traces, try-PROGRAM/). Each stage skips what --out already holds.
#   ALLOCLAB=path/to/alloclab overrides the binary (default build/release/alloclab).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
rounds=
budget=4m
repetitions=5
wanted_programs=python3,perl,gawk,lua
stage=all
wanted_mallocs=glibc,jemalloc,mimalloc,tcmalloc,tbbmalloc
out="$root/validation-results/$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift 2 ;;
    --budget) budget=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --mallocs) wanted_mallocs=$2; shift 2 ;;
    --stage) stage=$2; shift 2 ;;
    --programs) wanted_programs=$2; shift 2 ;;
    *) echo "usage: $0 [--budget T | --rounds N] [--repetitions N] [--mallocs LIST] [--out DIR] [--programs LIST] [--stage all|real|replay]" >&2; exit 2 ;;
  esac
done
# shellcheck source=deps.sh
source "$here/deps.sh"
alloclab_ensure_packages "${ALLOCLAB_VALIDATION_PACKAGES[@]}" "${ALLOCLAB_MALLOC_PACKAGES[@]}"
alloclab=${ALLOCLAB:-$root/build/release/alloclab}
[ -x "$alloclab" ] || { echo "no $alloclab: cmake --preset release && cmake --build --preset release" >&2; exit 2; }
inputs="$here/validate-replay"
mkdir -p "$out"

cc1plus=$(g++ -print-prog-name=cc1plus)
multiarch=$(gcc -print-multiarch)
declare -A command environment
command[python3]="/usr/bin/python3 $inputs/workload.py"
environment[python3]="PYTHONMALLOC=malloc"
command[cc1plus]="$cc1plus -quiet -imultiarch $multiarch -D_GNU_SOURCE -O1 $inputs/compile_me.cpp -o /dev/null"
environment[cc1plus]=""
command[sqlite3]="/usr/bin/sqlite3 :memory: .read\\ $inputs/batch.sql"
environment[sqlite3]=""
# perl (Debian's is built with usemymalloc=n) building, rewriting and sorting a 350 k-key hash;
# gawk growing and rewriting an associative array of 250 k strings. Both call malloc directly.
command[perl]="/usr/bin/perl $inputs/hashes.pl"
environment[perl]=""
command[gawk]="/usr/bin/gawk -f $inputs/assoc.awk"
environment[gawk]=""
command[lua]="/usr/bin/lua5.4 $inputs/trees.lua"
environment[lua]=""
programs=()
for p in ${wanted_programs//,/ }; do
  [ -n "${command[$p]+set}" ] || { echo "unknown program $p" >&2; exit 2; }
  programs+=("$p")
done

# The wanted mallocs installed here.
mallocs=()
for m in ${wanted_mallocs//,/ }; do
  "$alloclab" __malloc-env "$m" >/dev/null 2>&1 && mallocs+=("$m")
done
echo "mallocs: ${mallocs[*]}; real runs: ${rounds:+$rounds rounds}${rounds:-a $budget budget} per program; $repetitions replays per malloc; output $out" >&2

argv_of() { eval "printf '%s\n' ${command[$1]}"; }

for p in "${programs[@]}"; do
  [ "$stage" != replay ] && [ ! -s "$out/$p.trace" ] || continue
  mapfile -t argv < <(argv_of "$p")
  echo "recording $p" >&2
  env ${environment[$p]} "$alloclab" record -o "$out/$p.trace" -- "${argv[@]}" >/dev/null
done

if [ -n "$rounds" ]; then stopping=(--rounds "$rounds"); else stopping=(--budget "$budget"); fi
for p in "${programs[@]}"; do
  [ "$stage" != replay ] && [ ! -s "$out/try-$p/results.json" ] || continue
  mapfile -t argv < <(argv_of "$p")
  echo "running $p for real under each malloc" >&2
  env ${environment[$p]} "$alloclab" try --malloc "$(IFS=,; echo "${mallocs[*]}")" \
    "${stopping[@]}" -o "$out/try-$p" -- "${argv[@]}" >"$out/try-$p.txt" 2>"$out/try-$p.log"
done

[ "$stage" != real ] || exit 0
pairs=()
for p in "${programs[@]}"; do
  pairs+=("$p=$out/try-$p/results.json,$out/replay-$p/latest/results.json")
  [ ! -s "$out/replay-$p/latest/results.json" ] || continue
  echo "replaying $p" >&2
  "$alloclab" replay "$out/$p.trace" --malloc "$(IFS=,; echo "${mallocs[*]}")" \
    --repetitions "$repetitions" --out "$out/replay-$p" >/dev/null
done
python3 "$inputs/compare.py" "${pairs[@]}" | tee "$out/validation.md"
# advise on each program from its replay and its real runs.
for p in "${programs[@]}"; do
  "$alloclab" advise "$out/$p.trace" --results "$out/replay-$p/latest/results.json" \
    --real "$out/try-$p/results.json" >"$out/advise-$p.txt"
done
echo "advice on real runs: $out/advise-*.txt" >&2
