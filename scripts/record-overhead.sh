#!/usr/bin/env bash
# What recording costs (issue 21): CPU time (user + sys of the whole process tree, from wait4 via
# /usr/bin/time) of four programs run plain, under `alloclab record` and under heaptrack, REPS
# interleaved rounds, medians; and the bytes each recorder wrote per malloc-family call.
#   python3    the real interpreter (not a pyenv shim), PYTHONMALLOC=malloc,
#              bench/record_workloads/alloc_heavy.py
#   cc1plus    gcc's compiler proper on bench/record_workloads/header_heavy.cpp (run directly,
#              with the arguments `g++ -###` gives it)
#   4 threads  bench/record_workloads/cross_thread_frees.cpp (built here with c++ -O2)
#   64-live    tests/trace/malloc_loop.cpp (trace_malloc_loop): random 16-271 B malloc/free over
#              64 slots
# Needs a release build: cmake --build --preset release --target alloclab_cli alloclab_record
# trace_malloc_loop. heaptrack is optional (its columns show "-" without it).
# Usage: scripts/record-overhead.sh [REPS (default 3)] [PROGRAM...] (python3 cc1plus threads loop)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ALLOCLAB_BUILD_DIR:-$root/build/release}
alloclab=$build/alloclab
loop=$build/tests/trace/trace_malloc_loop
workloads=$root/bench/record_workloads
reps=${1:-3}
shift || true
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(python3 cc1plus threads loop)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for needed in "$alloclab" "$loop"; do
  [ -x "$needed" ] || { echo "missing $needed (build the release preset first)" >&2; exit 2; }
done
have_heaptrack=$(command -v heaptrack >/dev/null && echo yes || echo no)

# The real python3: /usr/bin/python3, else the newest pyenv interpreter (a shim execs through
# several programs, all of which would be measured).
python=/usr/bin/python3
[ -x "$python" ] || python=$(ls -d /root/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
cc1plus=$(g++ -print-prog-name=cc1plus)
c++ -O2 -pthread "$workloads/cross_thread_frees.cpp" -o "$work/cross_thread_frees"

# The command of program $1, one word a line.
command_of() {
  case $1 in
    python3) printf '%s\n' "$python" "$workloads/alloc_heavy.py" ;;
    cc1plus) printf '%s\n' "$cc1plus" -quiet -imultiarch x86_64-linux-gnu -D_GNU_SOURCE \
      "$workloads/header_heavy.cpp" -std=c++17 -O0 -o /dev/null ;;
    threads) printf '%s\n' "$work/cross_thread_frees" 2000000 ;;
    loop) printf '%s\n' "$loop" 4000000 ;;
  esac
}

# measure PROGRAM MODE: appends "program mode cpu_s bytes calls" to $work/rows.
measure() {
  local program=$1 mode=$2 cmd
  mapfile -t cmd < <(command_of "$program")
  rm -rf "$work/out" && mkdir "$work/out"
  local -a prefix=()
  case $mode in
    record) prefix=("$alloclab" record -o "$work/out/t" --) ;;
    heaptrack) prefix=(heaptrack -o "$work/out/heaptrack") ;;
  esac
  # PYTHONMALLOC=malloc (python's objects reach malloc) is in the environment, not an `env`
  # command: heaptrack records only the image it starts.
  (cd "$work/out" && export PYTHONMALLOC=malloc && /usr/bin/time -f "%U %S" -o "$work/time" "${prefix[@]}" "${cmd[@]}" \
    >/dev/null 2>"$work/stderr") || { echo "$program $mode failed:" >&2; cat "$work/stderr" >&2; exit 1; }
  local cpu bytes calls
  cpu=$(awk '{print $1 + $2}' "$work/time")
  bytes=$(find "$work/out" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  # `record` says "recorded N calls ... into T" for each image's trace.
  calls=$(sed -n 's/^alloclab: recorded \([0-9]*\) calls.*/\1/p' "$work/stderr" | awk '{s += $1} END {print s + 0}')
  echo "$program $mode $cpu $bytes $calls" >>"$work/rows"
}

modes=(plain record)
[ "$have_heaptrack" = yes ] && modes+=(heaptrack)
for round in $(seq "$reps"); do
  for program in "${programs[@]}"; do
    for mode in "${modes[@]}"; do
      echo "round $round/$reps: $program $mode" >&2
      measure "$program" "$mode"
    done
  done
done

python3 - "$work/rows" "$reps" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(program, mode, column):
    values = [float(r[column]) for r in rows if r[0] == program and r[1] == mode]
    return statistics.median(values) if values else None
print(f"CPU seconds (user + sys, whole process tree), medians of {sys.argv[2]} interleaved rounds")
print("| program | calls | plain | alloclab record | x plain | heaptrack | x plain | record B/call | heaptrack B/call |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for program in dict.fromkeys(r[0] for r in rows):
    plain, record, heap = (med(program, m, 2) for m in ("plain", "record", "heaptrack"))
    calls = med(program, "record", 4)
    record_bytes, heap_bytes = med(program, "record", 3), med(program, "heaptrack", 3)
    ratio = lambda v: f"{v / plain:.2f}" if v is not None and plain else "-"
    per_call = lambda b: f"{b / calls:.2f}" if b is not None and calls else "-"
    heap_s = f"{heap:.2f}" if heap is not None else "-"
    print(f"| {program} | {int(calls)} | {plain:.2f} | {record:.2f} | {ratio(record)} | {heap_s} | "
          f"{ratio(heap)} | {per_call(record_bytes)} | {per_call(heap_bytes)} |")
PY
