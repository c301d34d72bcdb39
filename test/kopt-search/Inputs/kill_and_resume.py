"""Kills a search (SIGKILL, or SIGINT) mid-way, checks the store, resumes.

usage: kill_and_resume.py --signal KILL|INT OUT -- kopt-search ARGS...
The search must be run with --out OUT and a delay in --simulate so that it
is mid-evaluation when the signal comes. Bounded: every wait has a limit.
"""
import argparse
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--signal", choices=["KILL", "INT"], required=True)
ap.add_argument("--after", type=int, default=3, help="evaluations before the signal")
ap.add_argument("out")
ap.add_argument("cmd", nargs=argparse.REMAINDER)
args = ap.parse_args()
cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
store = os.path.join(args.out, "search.sqlite")


def evaluations():
    if not os.path.exists(store):
        return []
    try:
        db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=10)
        rows = db.execute("select candidate_id, executor, evaluated_at, speedup "
                          "from evaluations order by candidate_id").fetchall()
        db.close()
        return rows
    except sqlite3.Error:
        return []  # the schema is not there yet


proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
deadline = time.time() + 240
while len(evaluations()) < args.after:
    if proc.poll() is not None:
        sys.exit("the search ended before it could be interrupted:\n" +
                 proc.stdout.read().decode())
    if time.time() > deadline:
        proc.kill()
        sys.exit("no evaluations within 240 s")
    time.sleep(0.05)
proc.send_signal(signal.SIGKILL if args.signal == "KILL" else signal.SIGINT)
try:
    out, _ = proc.communicate(timeout=120)
except subprocess.TimeoutExpired:
    proc.kill()
    sys.exit("the search did not stop within 120 s of the signal")
print(out.decode())
before = evaluations()
assert len(before) >= args.after, before
if args.signal == "KILL":
    assert proc.returncode == -signal.SIGKILL, proc.returncode
else:
    # SIGINT: the running evaluation finishes, the outputs are written.
    assert proc.returncode == 130, proc.returncode
    report = json.load(open(os.path.join(args.out, "report.json")))
    assert report["stopped_by"] == "interrupted", report["stopped_by"]
    assert report["evaluations"] == len(before), (report["evaluations"], len(before))
    assert os.path.exists(os.path.join(args.out, "best.cu"))

# The store is readable after the signal.
db = sqlite3.connect(store)
assert db.execute("pragma integrity_check").fetchone()[0] == "ok"
db.close()

# The same command again: finishes, keeps every stored evaluation as it was
# (nothing evaluated twice), and reaches the budget.
again = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=600)
print(again.stdout.decode())
assert again.returncode == 0, again.returncode
after = evaluations()
assert after[:0] == [] and set(before) <= set(after), "an evaluation changed"
ids = [r[0] for r in after]
assert len(ids) == len(set(ids)), "a candidate was evaluated twice"
print(f"kill_and_resume: ok: {len(before)} evaluations before the signal, "
      f"{len(after)} after resuming")
