#!/usr/bin/env bash
# Validates `alloclab advise TRACE` as a new user meets it (issue 42): each program is recorded
# with `alloclab record`, then advised on with nothing but the trace, so advise runs the
# recorded command for real (`try`, rounds paired, within --budget) and replays the trace as an
# estimate. Programs nobody here wrote: python3 (PYTHONMALLOC=malloc), cc1plus on a header-heavy
# file, a sqlite3 batch, jq over generated JSON, zstd -T4 (multi-threaded: worker threads free
# what the main thread allocated); plus the project's 4-thread ring with cross-thread frees
# (bench/record_workloads/cross_thread_frees.cpp, built here).
#
# Prints Markdown tables: the answer, whether decided real runs support it, the real runs'
# verdicts, what the replay alone would have answered, and the reversals advise warned of (a
# replay point estimate on the other side of 1 from a decided real direction); the knob settings
# the replay's sweep chose for real runs and what the real runs decided of them; the rate the
# replay's cost cap measured and what it replayed.
#
# usage: bench/advise_validation.sh [--budget T] [--repetitions N] [--mallocs LIST]
#                                   [--programs LIST] [--out DIR]
#   --budget: the real runs' budget per program (default 1m); --repetitions: replays per malloc
#   (default 3); --programs: comma-separated of python3, cc1plus, sqlite3, jq, zstd, ring.
#   ALLOCLAB=path/to/alloclab overrides the binary (default build/release/alloclab).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
budget=1m
repetitions=3
wanted_mallocs=glibc,jemalloc,mimalloc,tcmalloc
wanted_programs=python3,cc1plus,sqlite3,jq,zstd,ring
out="$root/validation-results/advise-$(date -u +%Y%m%dT%H%M%SZ)"
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift 2 ;;
    --repetitions) repetitions=$2; shift 2 ;;
    --mallocs) wanted_mallocs=$2; shift 2 ;;
    --programs) wanted_programs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--budget T] [--repetitions N] [--mallocs LIST] [--programs LIST] [--out DIR]" >&2; exit 2 ;;
  esac
done
alloclab=${ALLOCLAB:-$root/build/release/alloclab}
[ -x "$alloclab" ] || { echo "no $alloclab: cmake --preset release && cmake --build --preset release" >&2; exit 2; }
inputs="$root/scripts/validate-replay"
mkdir -p "$out"
out=$(cd "$out" && pwd)

# Inputs: JSON for jq, data for zstd, the ring program.
python3 - "$out/items.json" <<'PY'
import json, sys
items = [{"id": i, "name": "item-%d" % i, "tags": ["t%d" % (i % 7)] * (i % 5), "v": i * 0.5}
         for i in range(60000)]
json.dump(items, open(sys.argv[1], "w"))
PY
printf '%s\n' '[.[] | select(.id % 3 == 0) | {id, n: (.name + "-x"), t: (.tags | join(","))}] | length' >"$out/filter.jq"
head -c 48000000 /dev/urandom | base64 >"$out/data.txt"
c++ -O2 -pthread "$here/record_workloads/cross_thread_frees.cpp" -o "$out/ring"

cc1plus=$(g++ -print-prog-name=cc1plus)
multiarch=$(gcc -print-multiarch)
declare -A command environment
command[python3]="/usr/bin/python3 $inputs/workload.py"
environment[python3]="PYTHONMALLOC=malloc"
command[cc1plus]="$cc1plus -quiet -imultiarch $multiarch -D_GNU_SOURCE -O0 $here/record_workloads/header_heavy.cpp -o /dev/null"
command[sqlite3]="/usr/bin/sqlite3 :memory: .read\\ $inputs/batch.sql"
command[jq]="/usr/bin/jq -c -f $out/filter.jq $out/items.json"
command[zstd]="/usr/bin/zstd -T4 -3 -q -f $out/data.txt -o /dev/null"
command[ring]="$out/ring 200000"
# The in-process resource each replay adds: the arena serves one thread only.
declare -A strategy
for p in python3 cc1plus sqlite3 jq; do strategy[$p]=arena; done
for p in zstd ring; do strategy[$p]=alloclab_concurrent_multipool; done
argv_of() { eval "printf '%s\n' ${command[$1]}"; }

mallocs=()
for m in ${wanted_mallocs//,/ }; do
  "$alloclab" __malloc-env "$m" >/dev/null 2>&1 && mallocs+=("$m")
done
malloc_list=$(IFS=,; echo "${mallocs[*]}")
echo "mallocs: $malloc_list; real runs within $budget per program; $repetitions replays per malloc; output $out" >&2

for p in ${wanted_programs//,/ }; do
  [ -n "${command[$p]+set}" ] || { echo "unknown program $p" >&2; exit 2; }
  mapfile -t argv < <(argv_of "$p")
  echo "recording $p" >&2
  env ${environment[$p]:-} "$alloclab" record -o "$out/$p.trace" -- "${argv[@]}" >/dev/null
  echo "advising on $p (real runs, then the replay)" >&2
  start=$(date +%s)
  "$alloclab" advise "$out/$p.trace" --budget "$budget" --malloc "$malloc_list" \
    --repetitions "$repetitions" --strategies "${strategy[$p]}" --out "$out/advise-$p" --wait \
    >"$out/advise-$p.txt" 2>"$out/advise-$p.log" || echo "advise on $p exited $?" >&2
  echo "$(( $(date +%s) - start ))" >"$out/advise-$p.seconds"
done

python3 - "$out" ${wanted_programs//,/ } <<'PY' | tee "$out/validation.md"
import json, re, sys
out, programs = sys.argv[1], sys.argv[2:]
print("| program | advise's answer | supported by decided real runs | real verdicts | "
      "replay alone would answer | reversals warned | advise wall time |")
print("|---|---|---|---|---|---:|---:|")
knob_rows, cap_rows = [], []
for p in programs:
    try:
        text = open(f"{out}/advise-{p}.txt").read()
    except OSError:
        print(f"| {p} | (no advice) | | | | | |")
        continue
    answer = next((l[len("answer: "):] for l in text.splitlines() if l.startswith("answer: ")), None)
    if answer is None:
        error = [l for l in open(f"{out}/advise-{p}.log").read().splitlines() if "error" in l]
        print(f"| {p} | (advise failed: {error[-1] if error else 'see its log'}) | | | | | |")
        continue
    real = re.search(r"real runs of the program:.*?\n(.*?)\n   estimate \(replay\):", text, re.S)
    verdicts = re.findall(r"^   (\S+): [0-9.]+x.*?, (decided \w+|the same within ±[0-9.]+ %|open \([^)]*\))",
                          real.group(1), re.M) if real else []
    decided_faster = [m for m, v in verdicts if v == "decided faster"]
    if not real:
        supported = "no (no real runs)"
    elif answer.startswith("use "):
        supported = "yes" if answer.split(":")[0][4:] in decided_faster else "NO"
    else:
        supported = "yes (none decided faster)" if not decided_faster else "NO"
    alone = next((l.split(": ", 1)[1] for l in text.splitlines()
                  if l.startswith("   estimate (replay) alone would answer: ")), "?")
    reversals = sum(1 for l in text.splitlines() if l.startswith("   REVERSAL "))
    seconds = open(f"{out}/advise-{p}.seconds").read().strip()
    short = lambda s: s.split(" (U test")[0]
    print(f"| {p} | {short(answer.split('; knob')[0])} | {supported} | "
          f"{'; '.join(f'{m} {v}' for m, v in verdicts) or '-'} | {short(alone)} | {reversals} | {seconds} s |")
    # The knob advice: what the replay's sweep chose for real runs, and what the real runs said.
    tried = re.findall(r"(\S+(?: \S+=\S+)?) \(rank (\d+) of (\d+) \S+ settings swept, estimate ([0-9.]+)x", text)
    knobs = re.findall(r"^   real runs \S+ \((.+?) vs (\S+)\): ([0-9.]+x)[^,]*, (decided \w+|the same within ±[0-9.]+ %|open \([^)]*\))",
                       text, re.M)
    knob_rows.append(f"| {p} | {'; '.join(f'{l} (replay rank {r} of {n}, {e}x)' for l, r, n, e in tried) or '-'} | "
                     f"{'; '.join(f'{l}: {x}, {v}' for l, b, x, v in knobs) or '-'} | "
                     f"{'knob' + answer.split('; knob', 1)[1].split(' (real runs)')[0] if '; knob' in answer else '-'} |")
    try:
        log = json.load(open(f"{out}/advise-{p}/latest/results.json"))["workloads"][0]["trace"]["replayed"]
    except (OSError, KeyError, IndexError, ValueError):
        log = ""
    rate = re.search(r"^(.*?); the cost cap \(([0-9]+) s for ([0-9]+) whole replays\) sized at ([0-9]+) ns a replayed call, (timed on [0-9.]+ (?:M )?calls)", log)
    cap_rows.append(f"| {p} | {rate.group(4) + ' ns, ' + rate.group(5) if rate else '-'} | "
                    f"{rate.group(3) if rate else '-'} | {rate.group(1) if rate else '-'} |")
print("\n| program | knob settings tried as real runs (the replay's rank, estimate vs defaults) | "
      "real runs: setting ÷ its defaults | advise's knob answer |")
print("|---|---|---|---|")
print("\n".join(knob_rows))
print("\n| program | the replay's measured rate (probe) | whole replays | what was replayed |")
print("|---|---|---:|---|")
print("\n".join(cap_rows))
PY
