"""Checks a kopt-search --out directory: every output exists and parses,
the report is consistent with the store, and the best is the fastest."""
import argparse
import html.parser
import json
import os
import sqlite3
import sys

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--evaluations", type=int)
ap.add_argument("--stopped-by")
ap.add_argument("--all-distinct-evaluated", action="store_true")
ap.add_argument("--store", help="default: OUT/search.sqlite")
ap.add_argument("--overlapped", action="store_true",
                help="the device evaluated while the search made candidates")
ap.add_argument("--sass", action="store_true", help="validated candidates carry a SASS hash")
args = ap.parse_args()

report = json.load(open(os.path.join(args.out, "report.json")))
assert report["tool"] == "kopt-search"
if args.stopped_by:
    assert report["stopped_by"] == args.stopped_by, report["stopped_by"]
if args.evaluations is not None:
    assert report["evaluations"] == args.evaluations, report["evaluations"]

# Where the time went: every phase, none negative, together the elapsed
# time. With --no-overlap the device runs only while the search waits for
# it (gpu_busy at most the evaluating share); by default it also runs while
# the search makes and compiles.
times = report["time_s"]
phases = {"proposing", "making", "compiling", "evaluating", "repairing", "other"}
assert set(times) == phases, times
assert all(v >= 0 for v in times.values()), times
assert abs(sum(times.values()) - report["elapsed_s"]) < 0.05 + 0.01 * report["elapsed_s"], (times, report["elapsed_s"])
busy = report["gpu_busy"]
waiting = times["evaluating"] / report["elapsed_s"]
overlap = "--no-overlap" not in report["command"]
assert 0 <= busy <= (1 if overlap else min(1, waiting)) + 1e-3, (busy, times)
if args.overlapped:
    assert overlap and busy > waiting + 0.01, (busy, times)
ahead = report["ahead"]
assert set(ahead) == {"seconds", "made", "memo_hits"} and min(ahead.values()) >= 0, ahead
assert ahead["seconds"] <= times["evaluating"] + 1e-3, (ahead, times)
assert "GPU busy" in open(os.path.join(args.out, "report.html")).read()

ok = [c for c in report["candidates"] if c["status"] == "ok"]
best = report["best"]
assert best and best["speedup"] == max(c["speedup"] for c in ok), best
# The roots are always candidates: the original and -O.
proposers = {c["proposer"] for c in report["candidates"]}
assert {"original", "O"} <= proposers, proposers
assert report["lineage"][-1]["id"] == best["id"]
assert len(report["convergence"]) == report["evaluations"]
speeds = [p["best_speedup"] for p in report["convergence"]]
assert speeds == sorted(speeds), speeds

best_cu = open(os.path.join(args.out, "best.cu")).read()
recipe = open(os.path.join(args.out, "recipe.txt")).read()
assert recipe == best["recipe"] + "\n", (recipe, best["recipe"])

# report.html parses, is self-contained and names the problem.
page = open(os.path.join(args.out, "report.html")).read()
html.parser.HTMLParser().feed(page)
assert "http://" not in page and "https://" not in page
assert report["problem"]["name"] in page and "<svg" in page

# The store agrees: one evaluation per evaluated candidate, the best's
# source is best.cu.
db = sqlite3.connect(args.store or os.path.join(args.out, "search.sqlite"))
rows = db.execute("select candidate_id, count(*) from evaluations group by "
                  "candidate_id, executor").fetchall()
assert all(n == 1 for _, n in rows)
src = db.execute("select source from candidates where id=?", (best["id"],)).fetchone()[0]
assert src == best_cu
if args.all_distinct_evaluated:
    left = db.execute("select count(*) from candidates where status in "
                      "('pending','made','validated')").fetchone()[0]
    assert left == 0, left
if args.sass:
    missing = db.execute("select count(*) from candidates where status in "
                         "('validated','ok','wrong-result','runtime-error',"
                         "'timeout') and coalesce(sass_sha256,'')=''").fetchone()[0]
    assert missing == 0, missing
print("check_report: ok")
