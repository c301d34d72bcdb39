#!/usr/bin/env python3
"""A kopt-opt that miscompiles on purpose, so difftest's tests can fail:
it runs $KOPT_REAL (the real kopt-opt), then spoils the output of every
`launch-bounds` job on a program with a thread-per-row kernel:
BREAK=compile adds an #error line, BREAK=wrong turns the row kernels'
sums into differences."""
import json
import os
import re
import subprocess
import sys

proc = subprocess.run([os.environ["KOPT_REAL"]] + sys.argv[1:])
batch = [a[len("--batch="):] for a in sys.argv[1:] if a.startswith("--batch=")]
for path in batch:
    for line in open(path):
        job = json.loads(line)
        if job["passes"] != "launch-bounds" or \
                "_rowred(" not in open(job["input"]).read():
            continue
        text = open(job["output"]).read()
        if os.environ["BREAK"] == "compile":
            text += "#error kopt-broken\n"
        else:
            text = re.sub(r"\bs \+= ", "s -= ", text)
        open(job["output"], "w").write(text)
sys.exit(proc.returncode)
