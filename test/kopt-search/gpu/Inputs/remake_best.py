#!/usr/bin/env python3
"""remake_best.py OUT ORIGINAL AGAIN: makes the search's best again from
OUT/recipe.txt with kopt-opt, into AGAIN. A recipe "llm#N | PASSES" starts
from OUT/llm-N.cu, any other from ORIGINAL; an empty pass list copies."""
import shutil
import subprocess
import sys

out, original, again = sys.argv[1:4]
recipe = open(out + "/recipe.txt").read().strip()
source, passes = original, recipe
if recipe.startswith("llm#"):
    head, _, passes = recipe.partition(" | ")
    source = "%s/llm-%s.cu" % (out, head[4:])
if passes:
    subprocess.run(["kopt-opt", source, "-passes=" + passes, "-o", again],
                   check=True)
else:
    shutil.copyfile(source, again)
print("remade from %s with %r" % (source, passes))
