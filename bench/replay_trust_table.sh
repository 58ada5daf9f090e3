#!/usr/bin/env bash
# Validates the replay's trust rule (src/lab/trace/replay_trust.hpp) on real programs nobody here
# wrote: records each one (short runs) and prints, from `alloclab trace info`, the share of its
# frees that are cross-thread, its producer/consumer pairs, how far its peak live bytes move
# between the interleavings the recording allows, and the verdict (predictive or not). Single-
# threaded: python3 (PYTHONMALLOC=malloc), cc1plus on a header-heavy file, a sqlite3 batch, jq
# (when installed). Multi-threaded: the 4-thread producer/consumer fixture
# (tests/trace/producer_consumer.cpp), git grep with 4 threads over 30 revisions of this
# repository, zstd -T2, and xz -T2 (whose threads free only their own blocks).
#
# usage: bench/replay_trust_table.sh [--out DIR]   (ALLOCLAB=path overrides build/release/alloclab)
# The table is Markdown (docs/replay.md, "When a replay predicts", shows one run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=$(mktemp -d)
keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out=$2; keep=1; shift 2 ;;
    *) echo "usage: $0 [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -n "$keep" ] || trap 'rm -rf "$out"' EXIT
mkdir -p "$out"
alloclab=${ALLOCLAB:-$root/build/release/alloclab}
fixture=${PRODUCER_CONSUMER:-$(dirname "$alloclab")/tests/trace/trace_producer_consumer}
[ -x "$alloclab" ] || { echo "no $alloclab: cmake --build --preset release --target alloclab_cli" >&2; exit 2; }
[ -x "$fixture" ] || { echo "no $fixture: cmake --build build/release --target trace_producer_consumer" >&2; exit 2; }
inputs="$root/scripts/validate-replay"

# Inputs: a JSON array for jq, a clone of this repository for git grep, text for zstd.
python3 - "$out/input.json" <<'EOF'
import json, random, sys
random.seed(1)
rows = [{"id": i, "name": "n%d" % i, "tags": [random.choice("abcdef") * 3 for _ in range(5)],
         "v": random.random()} for i in range(60000)]
open(sys.argv[1], "w").write(json.dumps(rows))
EOF
git clone -q --no-checkout "$root" "$out/repo"
revisions=$(git -C "$out/repo" rev-list -n 30 HEAD)
head -c 8000000 /dev/urandom | base64 >"$out/text"

record() {  # NAME THREADS-KIND ENV... -- COMMAND...
  local name=$1 kind=$2; shift 2
  local env=()
  while [ "$1" != -- ]; do env+=("$1"); shift; done
  shift
  env "${env[@]}" "$alloclab" record -o "$out/$name.trace" -- "$@" >/dev/null 2>"$out/$name.log" ||
    { echo "| $name | $kind | recording failed: $(tail -1 "$out/$name.log") | | | |"; return; }
  local info
  info=$("$alloclab" trace info "$out/$name.trace")
  local threads share pairs spread verdict
  threads=$(sed -n 's/^status .* from \([0-9]*\) threads\?.*/\1/p' <<<"$info")
  share=$(sed -n 's/^  cross-thread frees: \([0-9.]*\) % of frees.*/\1 %/p' <<<"$info")
  pairs=$(sed -n 's/.*producer\/consumer pairs: \([0-9]*\)$/\1/p' <<<"$info")
  spread=$(sed -n 's/.*allows: .* (\([0-9.]*\) % apart)$/\1 %/p' <<<"$info")
  verdict=$(sed -n 's/^  verdict: \(not predictive\|predictive\).*/\1/p' <<<"$info")
  echo "| $name | $kind, ${threads:-?} threads | $share | $pairs | ${spread:-unknown} | **$verdict** |"
}

cc1plus=$(g++ -print-prog-name=cc1plus)
echo "| program | kind | cross-thread frees | producer/consumer pairs | peak live spread over interleavings | verdict |"
echo "|---|---|---:|---:|---:|---|"
record python3 single-threaded PYTHONMALLOC=malloc -- /usr/bin/python3 "$inputs/workload.py"
record cc1plus single-threaded -- "$cc1plus" -quiet -imultiarch "$(gcc -print-multiarch)" \
  -D_GNU_SOURCE -O1 "$inputs/compile_me.cpp" -o /dev/null
record sqlite3 single-threaded -- /usr/bin/sqlite3 :memory: ".read $inputs/batch.sql"
if [ -x /usr/bin/jq ]; then
  record jq single-threaded -- /usr/bin/jq -c \
    'map(select(.v > 0.3) | .tags |= sort) | group_by(.tags[0]) | map({k: .[0].tags[0], n: length})' \
    "$out/input.json"
fi
record producer_consumer multi-threaded -- "$fixture" 200000
record git_grep multi-threaded -- /usr/bin/git -C "$out/repo" grep --threads 4 -n -e alloc -e free $revisions
[ -x /usr/bin/zstd ] && record zstd multi-threaded -- /usr/bin/zstd -T2 -3 -c "$out/text"
# Threads that free only their own blocks: the rule must not flag every multi-threaded program.
[ -x /usr/bin/xz ] && record xz multi-threaded -- /usr/bin/xz -T2 -0 -c "$out/text"
exit 0
