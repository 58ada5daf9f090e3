#!/usr/bin/env python3
"""Runs worst_case_instructions under callgrind and prints the worst case per call in
instructions (the table of docs/embedded.md).

    bench/worst_case_table.py BUILD_DIR/bench/worst_case_instructions

Each measured call is one callgrind dump labelled "component operation"; the table gives, per
label, the calls measured, the median and the maximum instruction count. Exit 2 with one line
when the binary or valgrind is missing.
"""
import collections
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

TRIGGER = re.compile(r"^desc: Trigger: Client Request: (.+)$", re.M)
SUMMARY = re.compile(r"^summary: (\d+)$", re.M)


def run_callgrind(binary, out_dir):
    command = ["valgrind", "--tool=callgrind", "--collect-atstart=no", "--dump-instr=no",
               "--compress-strings=no", f"--callgrind-out-file={out_dir}/out.%p", binary]
    # Symbols bound at start-up: a lazy binding would charge the dynamic linker's ~1 000
    # instructions to the first call of each library function.
    environment = dict(os.environ, LD_BIND_NOW="1")
    done = subprocess.run(command, capture_output=True, text=True, env=environment)
    if done.returncode != 0:
        sys.exit(f"worst_case_table: {binary} failed under valgrind: {done.stderr.strip()[-300:]}")


def counts_by_label(out_dir):
    counts = collections.defaultdict(list)
    for dump in pathlib.Path(out_dir).glob("out.*"):
        text = dump.read_text()
        trigger, summary = TRIGGER.search(text), SUMMARY.search(text)
        if trigger and summary:
            counts[trigger.group(1)].append(int(summary.group(1)))
    return counts


def main():
    if len(sys.argv) != 2 or not pathlib.Path(sys.argv[1]).is_file():
        print("usage: worst_case_table.py PATH/TO/worst_case_instructions", file=sys.stderr)
        sys.exit(2)
    if shutil.which("valgrind") is None:
        print("worst_case_table: valgrind not found (apt install valgrind)", file=sys.stderr)
        sys.exit(2)
    with tempfile.TemporaryDirectory() as out_dir:
        run_callgrind(sys.argv[1], out_dir)
        counts = counts_by_label(out_dir)
    print("| component | operation | calls | median | worst |")
    print("|---|---|---:|---:|---:|")
    for label, values in sorted(counts.items(), key=lambda item: ORDER.get(item[0], 99)):
        component, _, operation = label.partition(" ")
        print(f"| `{component}` | {operation} | {len(values)} | "
              f"{statistics.median(values):.0f} | {max(values)} |")


ORDER = {label: i for i, label in enumerate([
    "arena_resource allocate", "arena_resource deallocate", "arena_resource rewind",
    "pool_resource allocate", "pool_resource deallocate",
    "multipool_resource allocate", "multipool_resource deallocate",
    "concurrent_multipool_resource allocate", "concurrent_multipool_resource deallocate",
    "concurrent_multipool_resource deallocate (remote)",
    "concurrent_multipool_resource first allocate of a thread",
    "glibc malloc", "glibc free", "dlmalloc malloc", "dlmalloc free"])}

if __name__ == "__main__":
    main()
