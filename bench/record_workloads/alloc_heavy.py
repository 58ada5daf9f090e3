# An allocation-heavy python3 workload for scripts/record-overhead.sh (run with
# PYTHONMALLOC=malloc so that every object goes through malloc): dicts, lists, strings and
# tuples built and dropped, with a live set that grows to some hundred thousand objects.
import sys

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
keep = []
for r in range(rounds):
    table = {}
    for i in range(120000):
        key = "k%d_%d" % (i, r)
        table[key] = (i, str(i * 7), [i, i + 1])
    words = " ".join(table.keys()).split()
    keep.append({w: len(w) for w in words[:: 4]})
    if len(keep) > 3:
        keep.pop(0)
print(sum(len(k) for k in keep))
