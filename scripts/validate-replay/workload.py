# The interpreter program of scripts/validate-replay.sh: builds, serialises and parses a list of
# dicts, then indexes it with a regular expression. Run with PYTHONMALLOC=malloc so every object
# allocation reaches malloc (python's own small-object allocator would hide most of them).
import json
import re

items = [{"id": i, "name": "item-%d" % i, "tags": ["t%d" % (i % 7), "x" * (i % 50)]}
         for i in range(80000)]
text = json.dumps(items)
parsed = json.loads(text)
index = {w: len(w) for w in re.findall(r"item-\d+", text)}
print(len(parsed), len(index))
