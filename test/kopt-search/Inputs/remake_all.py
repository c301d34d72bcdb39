"""Every candidate a search made with passes is what its recipe makes from
the problem's source, byte for byte, and so are its remarks: children made
from their parent's output (resumed kopt-opt jobs) included.

usage: remake_all.py KOPT_OPT OUT SOURCE   (OUT: a search's --out, run
with --keep-work)"""
import json
import os
import sqlite3
import subprocess
import sys

kopt_opt, out, source = sys.argv[1:4]
work = os.path.join(out, "work")
db = sqlite3.connect(os.path.join(out, "search.sqlite"))
rows = db.execute("select id, recipe, source from candidates where recipe != '' "
                  "and recipe not like 'llm#%' and source is not null").fetchall()
resumed = json.load(open(os.path.join(out, "report.json")))["made_from_parent"]
check = os.path.join(out, "remake")
os.makedirs(check, exist_ok=True)
batch = os.path.join(check, "jobs.jsonl")
with open(batch, "w") as f:
    for cid, recipe, _ in rows:
        f.write(json.dumps({"input": source, "passes": recipe,
                            "output": os.path.join(check, "%d.cu" % cid),
                            "remarks": os.path.join(check, "%d.json" % cid)}) + "\n")
subprocess.run([kopt_opt, "--batch", batch], check=True, capture_output=True)
for cid, recipe, stored in rows:
    made = open(os.path.join(check, "%d.cu" % cid)).read()
    assert made == stored, "candidate %d (%s): its source is not its recipe's" % (cid, recipe)
    remarks = os.path.join(work, "cand-%d.remarks.json" % cid)
    assert open(remarks).read() == open(os.path.join(check, "%d.json" % cid)).read(), \
        "candidate %d (%s): its remarks are not its recipe's" % (cid, recipe)
print("remake: %d candidates identical, %d made from their parent's output"
      % (len(rows), resumed))
