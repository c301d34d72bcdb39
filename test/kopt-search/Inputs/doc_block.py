#!/usr/bin/env python3
"""doc_block.py DOC NAME: prints the fenced block between
<!-- begin NAME --> and <!-- end NAME --> in DOC, without its fences."""
import sys

text = open(sys.argv[1]).read()
begin, end = "<!-- begin %s -->\n" % sys.argv[2], "<!-- end %s -->" % sys.argv[2]
if begin not in text or end not in text:
    sys.exit("%s: no block %s" % (sys.argv[1], sys.argv[2]))
block = text.split(begin, 1)[1].split(end, 1)[0]
lines = block.splitlines(keepends=True)
if len(lines) < 2 or not lines[0].startswith("```") or not lines[-1].startswith("```"):
    sys.exit("%s: block %s is not fenced" % (sys.argv[1], sys.argv[2]))
sys.stdout.write("".join(lines[1:-1]))
