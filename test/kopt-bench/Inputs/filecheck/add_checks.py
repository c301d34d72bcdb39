#!/usr/bin/env python3
"""Adds a "filecheck" list to a copied problem.json.

usage: add_checks.py PROBLEM_JSON OVER:FILE[:PREFIX] ...
"""
import json
import sys

path = sys.argv[1]
problem = json.load(open(path))
problem["filecheck"] = []
for spec in sys.argv[2:]:
    parts = spec.split(":")
    entry = {"over": parts[0], "file": parts[1]}
    if len(parts) > 2:
        entry["prefixes"] = [parts[2]]
    problem["filecheck"].append(entry)
json.dump(problem, open(path, "w"), indent=1)
