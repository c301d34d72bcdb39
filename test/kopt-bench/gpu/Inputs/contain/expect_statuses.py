#!/usr/bin/env python3
"""Asserts each candidate's status in a kopt-bench JSON document.

  expect_statuses.py RUN.json NAME=EXPECT...

NAME is a candidate file's base name; EXPECT is one of
  ok                      status ok
  ok<X                    status ok and speedup below X
  ok~LO~HI                status ok and LO <= speedup <= HI
  STATUS                  that status (rejected, wrong-result, ...)
  STATUS/RULE1|RULE2      that status with one of the rules
  not-ok                  any status but ok
  A||B                    either expectation
Prints one line per candidate (status, rule, speedup, first message) and
exits 1 on the first mismatch, after printing them all.
"""
import json
import os
import sys


def main():
    doc = json.load(open(sys.argv[1]))
    records = {os.path.basename(r["candidate"]): r for r in doc["records"]}
    failures = []
    for spec in sys.argv[2:]:
        name, expect = spec.split("=", 1)
        r = records.get(name)
        if r is None:
            failures.append("%s: no record" % name)
            continue
        status, rule = r["status"], r.get("rule", "")
        speedup = (r.get("timing") or {}).get("speedup")
        first = (r.get("messages") or [""])[0].splitlines()[0:1]
        print("%-24s %-14s %-22s %-8s %s" % (
            name, status, rule, "%.3f" % speedup if speedup else "-",
            first[0][:110] if first else ""))
        if not any(matches(r, e) for e in expect.split("||")):
            failures.append("%s: %s/%s (speedup %s), expected %s" % (
                name, status, rule, speedup, expect))
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


def matches(r, expect):
    status, rule = r["status"], r.get("rule", "")
    speedup = (r.get("timing") or {}).get("speedup")
    if expect == "not-ok":
        return status != "ok"
    if expect.startswith("ok<"):
        return status == "ok" and speedup is not None and \
            speedup < float(expect[3:])
    if expect.startswith("ok~"):
        lo, hi = map(float, expect[3:].split("~"))
        return status == "ok" and speedup is not None and lo <= speedup <= hi
    if "/" in expect:
        want, rules = expect.split("/", 1)
        return status == want and rule in rules.split("|")
    return status == expect


main()
