#!/usr/bin/env bash
# The recorder's overhead on the issue's malloc-bound loop (random 16-271 B malloc/free over 64
# slots, 4 M pairs), side by side with heaptrack, REPS runs of each, interleaved. Prints a
# markdown table of medians. Needs a release build (cmake --build --preset release --target
# trace_malloc_loop alloclab_cli). Usage: scripts/trace-overhead.sh [REPS (default 5)] [PAIRS]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${ALLOCLAB_BUILD_DIR:-$root/build/release}
loop=$build/tests/trace/trace_malloc_loop
alloclab=$build/alloclab
reps=${1:-5}
pairs=${2:-4000000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NAME COMMAND...: appends "name wall_ns cpu_ns total_cpu_s bytes" to $work/rows
run() {
  local name=$1
  shift
  rm -f "$work"/out.* "$work"/heaptrack.*
  /usr/bin/time -f "%U %S" -o "$work/time" "$@" >"$work/stdout" 2>"$work/stderr"
  local wall cpu total bytes
  wall=$(grep -o '[0-9.]* ns per pair (wall)' "$work/stdout" | cut -d' ' -f1)
  cpu=$(grep -o '[0-9.]* ns per pair (process CPU)' "$work/stdout" | cut -d' ' -f1)
  total=$(awk '{print $1 + $2}' "$work/time")
  bytes=$({ cat "$work"/out.trace "$work"/heaptrack.* 2>/dev/null || true; } | wc -c)
  echo "$name $wall $cpu $total $bytes" >>"$work/rows"
}

for _ in $(seq "$reps"); do
  run unrecorded "$loop" "$pairs"
  run "record(zstd-1)" "$alloclab" record -o "$work/out.trace" -- "$loop" "$pairs"
  run "record(raw)" "$alloclab" record --zstd-level 0 -o "$work/out.trace" -- "$loop" "$pairs"
  run "record(no-timestamps)" "$alloclab" record --no-timestamps -o "$work/out.trace" -- "$loop" "$pairs"
  (cd "$work" && run heaptrack heaptrack -o "$work/heaptrack.loop" "$loop" "$pairs")
done

python3 - "$work/rows" "$pairs" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
pairs = int(sys.argv[2])
names = list(dict.fromkeys(r[0] for r in rows))
med = {n: [statistics.median(float(r[i]) for r in rows if r[0] == n) for i in (1, 2, 3, 4)] for n in names}
base = med["unrecorded"]
print(f"| run ({len(rows)//len(names)} each, medians) | ns/pair wall | x unrecorded (wall) | ns/pair process CPU | x unrecorded (CPU) | total CPU s (all processes) | bytes on disk | bytes/event |")
print("|---|---|---|---|---|---|---|---|")
for n in names:
    w, c, t, b = med[n]
    per_event = f"{b / (2 * pairs):.2f}" if b else "-"
    print(f"| {n} | {w:.1f} | {w / base[0]:.2f} | {c:.1f} | {c / base[1]:.2f} | {t:.2f} | {int(b)} | {per_event} |")
PY
