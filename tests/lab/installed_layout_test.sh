#!/bin/sh
# lab.installed_layout: `cmake --install BUILD_DIR` into a fresh prefix puts alloclab and
# alloclab-lab in bin/ and the libraries they preload in lib/alloclab/, and the installed lab
# finds them there: `record` and `try` run from the install tree. `record` with its library
# missing says "alloclab: error: ..." and exits 2.
set -eu
build_dir=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build_dir" --prefix "$prefix" >/dev/null
for file in bin/alloclab bin/alloclab-lab lib/alloclab/liballoclab_record.so \
            lib/alloclab/liballoclab_program_probe.so lib/pkgconfig/alloclab.pc; do
  [ -f "$prefix/$file" ] || { echo "not installed: $file"; exit 1; }
done
cd "$prefix"
ALLOCLAB_LOCK_FILE=none bin/alloclab record -o "$prefix/true.trace" -- /bin/true
[ -s "$prefix/true.trace" ] || { echo "record wrote no trace"; exit 1; }
ALLOCLAB_LOCK_FILE=none bin/alloclab try --rounds 2 --malloc glibc -o "$prefix" -- /bin/true \
  >/dev/null
rm lib/alloclab/liballoclab_record.so
status=0
bin/alloclab record -o "$prefix/again.trace" -- /bin/true 2>"$prefix/err" || status=$?
[ "$status" -eq 2 ] || { echo "record without its library: exit $status, not 2"; exit 1; }
grep -q '^alloclab: error: liballoclab_record.so' "$prefix/err" ||
  { echo "record without its library said:"; cat "$prefix/err"; exit 1; }
echo "installed layout: ok"
