#!/usr/bin/env python3
"""Prints, for each kopt-bench JSON given, the candidate's status, its
speedup and the largest absolute and relative error on each shape (or the
first message where the check stopped): how far a rounding-changing
rewrite moved the results."""
import json
import sys

for path in sys.argv[1:]:
    record = json.load(open(path))["records"][0]
    speedup = record.get("timing", {}).get("speedup")
    print("%s: %s%s" % (path, record.get("status"),
                        "" if speedup is None else ", speedup %.3f" % speedup))
    shapes = record.get("correctness", {}).get("shapes", [])
    for shape in shapes:
        print("  shape %s {%s}: max abs error %.3g, max rel error %.3g" %
              (shape.get("shape"), shape.get("sizes"),
               shape.get("max_abs_error", float("nan")),
               shape.get("max_rel_error", float("nan"))))
    if not shapes and record.get("messages"):
        print("  " + record["messages"][0].splitlines()[0])
