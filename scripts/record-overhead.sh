#!/usr/bin/env bash
# What recording costs (issue 21): CPU time (user + sys of the whole process tree, from wait4's
# rusage) of four programs run plain, under `alloclab record` and under heaptrack, REPS
# interleaved rounds, medians; and the bytes each recorder wrote per malloc-family call.
#   python3    the real interpreter (not a pyenv shim), PYTHONMALLOC=malloc,
#              bench/record_workloads/alloc_heavy.py
#   cc1plus    gcc's compiler proper on bench/record_workloads/header_heavy.cpp (run directly,
#              with the arguments `g++ -###` gives it)
#   threads    bench/record_workloads/cross_thread_frees.cpp (built here with c++ -O2), 4 threads
#   loop       tests/trace/malloc_loop.cpp (trace_malloc_loop): random 16-271 B malloc/free over
#              64 slots
# Then, on this machine's noise, the figures that do not move: `alloclab record -- /bin/true`
# (the fixed cost: record's own start, the preload, the trace's checks) and, with valgrind, the
# instructions per malloc/free pair of the loop (200 000 pairs) plain and recorded, and where
# they go (callgrind_annotate's self counts by part: the recorder, zstd, glibc's malloc and free,
# the loop itself, the rest).
#
# ALLOCLAB_BASELINE_BUILD=DIR adds the recorder of another build (e.g. main's build/release) as
# "record (baseline)", measured in the same interleaved rounds: before and after side by side.
# Needs a release build: cmake --build --preset release --target alloclab_cli alloclab_record
# trace_malloc_loop. heaptrack and valgrind are optional (their columns show "-" without them).
# Usage: scripts/record-overhead.sh [REPS (default 3)] [PROGRAM...] (python3 cc1plus threads loop)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ALLOCLAB_BUILD_DIR:-$root/build/release}
baseline=${ALLOCLAB_BASELINE_BUILD:-}
alloclab=$build/alloclab
loop=$build/tests/trace/trace_malloc_loop
workloads=$root/bench/record_workloads
reps=${1:-3}
shift || true
programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(python3 cc1plus threads loop)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for needed in "$alloclab" "$loop" ${baseline:+"$baseline/alloclab"}; do
  [ -x "$needed" ] || { echo "missing $needed (build the release preset first)" >&2; exit 2; }
done
have() { command -v "$1" >/dev/null && echo yes || echo no; }

# The real python3: /usr/bin/python3, else the newest pyenv interpreter (a shim execs through
# several programs, all of which would be measured).
python=/usr/bin/python3
[ -x "$python" ] || python=$(ls -d /root/.pyenv/versions/*/bin/python3 2>/dev/null | sort -V | tail -1)
cc1plus=$(g++ -print-prog-name=cc1plus)
c++ -O2 -pthread "$workloads/cross_thread_frees.cpp" -o "$work/cross_thread_frees"

# Runs a command with stdout discarded and stderr to $work/stderr; prints the CPU seconds (user +
# sys) of its process tree: wait4's rusage, in microseconds (/usr/bin/time rounds to 10 ms).
cat >"$work/cpu.py" <<'PY'
import os, subprocess, sys
with open(os.devnull, "wb") as out, open(sys.argv[1], "wb") as err:
    child = subprocess.Popen(sys.argv[2:], stdout=out, stderr=err)
    _, status, usage = os.wait4(child.pid, 0)
if os.waitstatus_to_exitcode(status) != 0:
    sys.exit(1)
print(f"{usage.ru_utime + usage.ru_stime:.4f}")
PY

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
    baseline) prefix=("$baseline/alloclab" record -o "$work/out/t" --) ;;
    heaptrack) prefix=(heaptrack -o "$work/out/heaptrack") ;;
  esac
  # PYTHONMALLOC=malloc (python's objects reach malloc) is in the environment, not an `env`
  # command: heaptrack records only the image it starts.
  local cpu
  cpu=$(cd "$work/out" && export PYTHONMALLOC=malloc &&
    python3 "$work/cpu.py" "$work/stderr" "${prefix[@]}" "${cmd[@]}") ||
    { echo "$program $mode failed:" >&2; cat "$work/stderr" >&2; exit 1; }
  local bytes calls
  bytes=$(find "$work/out" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
  # `record` says "recorded N calls ... into T" for each image's trace.
  calls=$(sed -n 's/^alloclab: recorded \([0-9]*\) calls.*/\1/p' "$work/stderr" | awk '{s += $1} END {print s + 0}')
  echo "$program $mode $cpu $bytes $calls" >>"$work/rows"
}

modes=(plain record)
[ -n "$baseline" ] && modes+=(baseline)
[ "$(have heaptrack)" = yes ] && modes+=(heaptrack)
for round in $(seq "$reps"); do
  for program in "${programs[@]}"; do
    for mode in "${modes[@]}"; do
      echo "round $round/$reps: $program $mode" >&2
      measure "$program" "$mode"
    done
  done
done

# The fixed cost: 20 runs of record -- /bin/true (and of the baseline), interleaved.
for i in $(seq 20); do
  for mode in record ${baseline:+baseline}; do
    bin=$alloclab
    [ "$mode" = baseline ] && bin=$baseline/alloclab
    cpu=$(cd "$work" && python3 "$work/cpu.py" "$work/stderr" "$bin" record -o "$work/true.trace" -- /bin/true)
    echo "true $mode $cpu" >>"$work/fixed"
  done
done

# Instructions per malloc/free pair of the loop (callgrind counts are repeatable here).
if [ "$(have valgrind)" = yes ]; then
  pairs=200000
  # instructions LIBRARY NAME: of the loop, preloaded with LIBRARY unless empty; its profile,
  # annotated, goes to $work/annotated.NAME. (valgrind's own launcher, exec'd on the way, loads
  # the recorder too: the loop is a later image.)
  instructions() {
    rm -f "$work"/cg.* "$work"/i.trace*
    ALLOCLAB_RECORD_FILE=$work/i.trace ALLOCLAB_RECORD_FOLLOW_EXEC=1 \
      valgrind --tool=callgrind --trace-children=yes \
      --callgrind-out-file="$work/cg.%p" env ${1:+LD_PRELOAD=$1} "$loop" "$pairs" >/dev/null 2>&1
    local profile
    profile=$(grep -H '^totals:' "$work"/cg.* | sort -t' ' -k2 -n | tail -1 | cut -d: -f1)
    callgrind_annotate --inclusive=no --threshold=100 "$profile" >"$work/annotated.$2" 2>/dev/null
    grep -h '^totals:' "$profile" | awk '{print $2}'
  }
  echo "loop plain $(instructions "" plain)" >>"$work/instructions"
  echo "loop record $(instructions "$build/liballoclab_record.so" record)" >>"$work/instructions"
  [ -n "$baseline" ] && echo "loop baseline $(instructions "$baseline/liballoclab_record.so" \
    baseline)" >>"$work/instructions"
  echo "$pairs" >"$work/pairs"
fi

python3 - "$work" "$reps" <<'PY'
import os, re, statistics, sys
work, reps = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(f"{work}/rows")]
modes = list(dict.fromkeys(r[1] for r in rows))
def med(program, mode, column):
    values = [float(r[column]) for r in rows if r[0] == program and r[1] == mode]
    return statistics.median(values) if values else None
names = {"record": "alloclab record", "baseline": "record (baseline)", "heaptrack": "heaptrack"}
shown = [m for m in ("record", "baseline", "heaptrack") if m in modes]
print(f"CPU seconds (user + sys, whole process tree), medians of {reps} interleaved rounds")
print("| program | calls | plain | " + " | ".join(f"{names[m]} | x plain" for m in shown) +
      " | " + " | ".join(f"{names[m]} B/call" for m in shown) + " |")
print("|---|---:|---:|" + "---:|---:|" * len(shown) + "---:|" * len(shown))
for program in dict.fromkeys(r[0] for r in rows):
    plain = med(program, "plain", 2)
    calls = med(program, "record", 4)
    cells = []
    for m in shown:
        cpu = med(program, m, 2)
        cells += [f"{cpu:.3f}", f"{cpu / plain:.2f}" if plain else "-"]
    sizes = [f"{med(program, m, 3) / calls:.2f}" if calls else "-" for m in shown]
    print(f"| {program} | {int(calls)} | {plain:.3f} | " + " | ".join(cells) + " | " +
          " | ".join(sizes) + " |")
fixed = [l.split() for l in open(f"{work}/fixed")]
print("\nfixed cost, `alloclab record -- /bin/true`, CPU ms (median of 20): " + ", ".join(
    f"{names[m]} {1000 * statistics.median(float(f[2]) for f in fixed if f[1] == m):.1f}"
    for m in dict.fromkeys(f[1] for f in fixed)))
if os.path.exists(f"{work}/instructions"):
    pairs = int(open(f"{work}/pairs").read())
    counts = {l.split()[1]: int(l.split()[2]) for l in open(f"{work}/instructions")}
    print(f"loop under callgrind, instructions per malloc/free pair ({pairs} pairs): " + ", ".join(
        f"{'plain' if m == 'plain' else names[m]} {counts[m] / pairs:.0f}" for m in counts))
    # Where they go: callgrind_annotate's self counts summed by part. A line names its object
    # in brackets, or none when it is the previous line's.
    def part(place, obj):
        if "liballoclab_record" in obj: return "recorder hooks and writer"
        if "libzstd" in obj: return "zstd"
        if "/malloc/" in place and "libc.so" in obj: return "glibc malloc/free"
        if obj.endswith("trace_malloc_loop"): return "the loop"
        return "other"
    for m in counts:
        path = f"{work}/annotated.{m}"
        if not os.path.exists(path): continue
        parts, obj = {}, ""
        for line in open(path):
            row = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S+)(?: \[(.*)\])?$", line)
            if not row or row[2] == "PROGRAM": continue
            obj = row[3] or obj
            key = part(row[2], obj)
            parts[key] = parts.get(key, 0) + int(row[1].replace(",", ""))
        print(f"  {'plain' if m == 'plain' else names[m]}, per pair: " + ", ".join(
            f"{k} {v / pairs:.0f}" for k, v in sorted(parts.items(), key=lambda kv: -kv[1])))
PY
