#!/usr/bin/env python3
"""Runs fuzz/difftest and asserts on its exit code and report.

  run-difftest.py --exit N [--check EXPR]... -- DIFFTEST-ARGS...

--check EXPR is a Python expression over `d` (the --json report, which
this script asks for), `t` (its totals) and `f` (its findings) that must
be true. The device has no FileCheck, so the GPU tests assert this way too.
"""
import json
import os
import subprocess
import sys
import tempfile

argv = sys.argv[1:]
split = argv.index("--")
options, command = argv[:split], argv[split + 1:]
expected, checks = None, []
while options:
    key, value = options.pop(0), options.pop(0)
    if key == "--exit":
        expected = int(value)
    elif key == "--check":
        checks.append(value)
    else:
        sys.exit("run-difftest.py: unknown option " + key)
root = os.path.join(os.path.dirname(__file__), "..", "..", "..")
fd, report = tempfile.mkstemp(suffix=".json")
os.close(fd)
proc = subprocess.run([sys.executable, os.path.join(root, "fuzz", "difftest")]
                      + command + ["--json", report])
failures = []
if expected is not None and proc.returncode != expected:
    failures.append("exit %d, expected %d" % (proc.returncode, expected))
d = json.load(open(report)) if os.path.getsize(report) else {}
t, f = d.get("totals", {}), d.get("findings", [])
for check in checks:
    if not eval(check):
        failures.append("false: " + check)
if failures:
    print(json.dumps(d, indent=1)[:4000])
    sys.exit("run-difftest.py: " + "; ".join(failures))
print("run-difftest.py: ok")
