#!/usr/bin/env python3
"""same_candidates.py A.sqlite B.sqlite: exit 0 when both kopt-search stores
hold the same candidates (recipe, status, source hash), in the same order."""
import sqlite3
import sys


def rows(path):
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    return db.execute("SELECT recipe, status, COALESCE(source_sha256, '') "
                      "FROM candidates ORDER BY id").fetchall()


a, b = rows(sys.argv[1]), rows(sys.argv[2])
if a != b:
    for x, y in zip(a, b):
        if x != y:
            print("first difference: %r != %r" % (x, y))
            break
    print("%d candidates against %d" % (len(a), len(b)))
    sys.exit(1)
print("same %d candidates" % len(a))
