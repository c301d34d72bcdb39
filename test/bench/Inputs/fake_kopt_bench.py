#!/usr/bin/env python3
"""Stands in for kopt-bench in eval-throughput.test: `check` does nothing,
`run ... --json OUT` writes one record with made-up numbers; a candidate
seen before (listed in $FAKE_SEEN) reads as a compile-cache hit."""
import json
import os
import sys

args = sys.argv[1:]
if args[0] == "check":
    sys.exit(0)
cand = args[args.index("--candidate") + 1]
out = args[args.index("--json") + 1]
seen_file = os.environ["FAKE_SEEN"]
seen = open(seen_file).read().split() if os.path.exists(seen_file) else []
cached = cand in seen
with open(seen_file, "a") as f:
    f.write(cand + "\n")
record = {
    "status": "ok", "messages": [],
    "compile": {"seconds": 0.0 if cached else 1.25, "cached": cached},
    "worker": {"seconds": 0.5},
    "stage_seconds": {"setup": 0.2, "inputs": 0.01, "reference": 0.02,
                      "candidate": 0.03, "compare": 0.04, "timing": 0.1},
    "timing": {"candidate": {"runs": 32}, "speedup": 1.001,
               "speedup_ci95": [0.999, 1.003]},
}
json.dump({"records": [record]}, open(out, "w"))
