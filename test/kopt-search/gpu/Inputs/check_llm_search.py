#!/usr/bin/env python3
"""check_llm_search.py STORE OUT --winner llm#N --cheats llm#A,llm#B
[--neutralized llm#C] [--min-speedup X] [--passes-on llm#N]: of the LLM's
candidates (recipes llm#...), the search measured llm#N (or passes run on
it) best, with its whole interval above X; every cheat was caught
(wrong-result, rejected, runtime-error or timeout; a duplicate was never
looked at); a --neutralized cheat was caught or measured ok without a gain
(interval not above 1.05: under containment the judge replays what its
entry did when captured, so a cheat that behaves differently on later calls
is timed as its honest first call); with --passes-on, some candidate ran
passes on llm#N's source and was evaluated. Prints what it found."""
import argparse
import json
import sqlite3
import sys

ap = argparse.ArgumentParser()
ap.add_argument("store")
ap.add_argument("out")
ap.add_argument("--winner", required=True)
ap.add_argument("--cheats", default="")
ap.add_argument("--neutralized", default="")
ap.add_argument("--min-speedup", type=float, default=1.0)
ap.add_argument("--passes-on")
a = ap.parse_args()

db = sqlite3.connect("file:%s?mode=ro" % a.store, uri=True)
rows = db.execute("SELECT c.id, c.recipe, c.status, e.speedup, e.speedup_low "
                  "FROM candidates c LEFT JOIN evaluations e "
                  "ON e.candidate_id = c.id ORDER BY c.id").fetchall()
for r in rows:
    print("#%d %-40s %-14s %s" % (r[0], r[1][:40], r[2],
                                  "" if r[3] is None else "%.3fx [%.3f, ...]" % (r[3], r[4])))
errors = []
best = json.load(open(a.out + "/report.json"))["best"]
print("best overall: %s %.3fx [%.3f, %.3f]" % (
    best["recipe"], best["speedup"], best["speedup_ci"][0],
    best["speedup_ci"][1]))
# The roots (the original and its -O) compete too; the test is about the
# LLM's candidates, so the winner is looked for among them.
llm_ok = [r for r in rows if r[1].startswith("llm#") and r[2] == "ok"
          and r[3] is not None]
if not llm_ok:
    errors.append("no candidate of the LLM was measured ok")
else:
    top = max(llm_ok, key=lambda r: r[3])
    print("best of the LLM's: %s %.3fx [%.3f, ...]" % (top[1], top[3], top[4]))
    if top[1] != a.winner and not top[1].startswith(a.winner + " | "):
        errors.append("the LLM's best is %r, not %s" % (top[1], a.winner))
    if top[4] <= a.min_speedup:
        errors.append("its interval starts at %.3f, not above %.3f"
                      % (top[4], a.min_speedup))
by_recipe = {r[1]: r for r in rows}
for cheat in filter(None, a.neutralized.split(",")):
    r = by_recipe.get(cheat)
    if r is None:
        errors.append("no candidate %s" % cheat)
    elif r[2] == "ok" and r[4] is not None and r[4] > 1.05:
        errors.append("the cheat %s was measured ok with a gain" % cheat)
    elif r[2] not in ("ok", "wrong-result", "rejected", "runtime-error",
                      "timeout"):
        errors.append("the cheat %s ended %s" % (cheat, r[2]))
for cheat in filter(None, a.cheats.split(",")):
    r = by_recipe.get(cheat)
    if r is None:
        errors.append("no candidate %s" % cheat)
    elif r[2] == "ok":
        errors.append("the cheat %s was measured ok" % cheat)
    elif r[2] not in ("wrong-result", "rejected", "runtime-error", "timeout"):
        errors.append("the cheat %s ended %s, not caught" % (cheat, r[2]))
if a.passes_on:
    runs = [r for r in rows if r[1].startswith(a.passes_on + " | ") and r[3] is not None]
    if not runs:
        errors.append("no candidate ran passes on %s's source" % a.passes_on)
for e in errors:
    print("error: " + e)
sys.exit(1 if errors else 0)
