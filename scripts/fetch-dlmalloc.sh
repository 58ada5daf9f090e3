#!/usr/bin/env bash
# Takes Doug Lea's dlmalloc 2.8.6 (one file) out of Debian's emscripten package, without installing
# emscripten: `apt-get download` (~109 MB .deb, kept only while extracting), then dpkg-deb. The
# file is never committed: the lab's dlmalloc preload (src/preload) is built from this copy.
#
#   scripts/fetch-dlmalloc.sh [DEST_DIR]    # default: the cache dir below
#
# DEST_DIR defaults to ${ALLOCLAB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/alloclab}/emscripten,
# where CMake looks for it (src/preload/CMakeLists.txt). Prints the file's path. Works as a normal
# user (apt-get download needs no root); exits 1 with one line when apt cannot fetch the package.
set -euo pipefail

member=./usr/share/emscripten/system/lib/dlmalloc.c
dest=${1:-${ALLOCLAB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/alloclab}/emscripten}
target=$dest/dlmalloc.c

is_dlmalloc_286() {
  grep -q "Version 2.8.6 Wed Aug 29 06:57:58 2012" "$1"
}

if [ -f "$target" ] && is_dlmalloc_286 "$target"; then
  echo "$target"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
download() { (cd "$work" && apt-get download -q emscripten >/dev/null 2>"$work/apt.log"); }
# A fresh machine (a container) may have no package lists yet; root can fetch them.
if ! download && { [ "$(id -u)" -ne 0 ] || ! apt-get update -qq >/dev/null 2>&1 || ! download; }; then
  echo "fetch-dlmalloc: apt-get download emscripten failed: $(tail -1 "$work/apt.log")" >&2
  exit 1
fi
deb=$(ls "$work"/emscripten_*.deb)
dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work" "$member"
if ! is_dlmalloc_286 "$work/$member"; then
  echo "fetch-dlmalloc: $(basename "$deb") does not hold dlmalloc 2.8.6 at $member" >&2
  exit 1
fi
mkdir -p "$dest"
mv "$work/$member" "$target.tmp.$$"
mv "$target.tmp.$$" "$target"
basename "$deb" >"$dest/dlmalloc.c.from"
echo "$target"
