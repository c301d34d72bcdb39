"""Checks the combined children of a search's report.json: each replays on
its parent a move that improved on one of the parent's ancestors (the
child's interval above the ancestor's), and at least one was made.

usage: check_combined.py REPORT.json
"""
import json
import re
import sys


def steps(recipe):
    out, depth, cur = [], 0, ""
    for ch in recipe:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    if cur:
        out.append(cur)
    return out


def main():
    report = json.load(open(sys.argv[1]))
    cands = {c["id"]: c for c in report["candidates"]}
    combined = [c for c in cands.values()
                if c["proposer"].startswith("passes: combine ")
                and not c["proposer"].startswith("passes: combine all")]
    if not combined:
        sys.exit("no combined child was proposed")
    for c in combined:
        m = re.search(r"it made #(\d+) [0-9.]+x of #(\d+)\)$", c["proposer"])
        if not m:
            sys.exit("#%d does not say which move it replays: %s" %
                     (c["id"], c["proposer"]))
        q, a, p = cands[int(m.group(1))], cands[int(m.group(2))], \
            cands[c["parent"]]
        if q["parent"] != a["id"]:
            sys.exit("#%d: #%d is not a child of #%d" % (c["id"], q["id"],
                                                         a["id"]))
        if not q["speedup_ci"][0] > a["speedup_ci"][1]:
            sys.exit("#%d replays #%d, which did not improve on #%d" %
                     (c["id"], q["id"], a["id"]))
        lineage, i = set(), p["id"]
        while i:
            lineage.add(i)
            i = cands[i]["parent"]
        if a["id"] not in lineage or q["id"] in lineage:
            sys.exit("#%d: #%d is not an ancestor of #%d" % (c["id"], a["id"],
                                                             p["id"]))
        # The steps: the parent's, with what the move appended or without
        # what it removed; a changed parameter changes the parent's step of
        # that pass.
        added = [s for s in steps(q["recipe"]) if s not in steps(a["recipe"])]
        gone = [s for s in steps(a["recipe"]) if s not in steps(q["recipe"])]
        mine, got = steps(p["recipe"]), steps(c["recipe"])
        if added and gone:
            name = added[0].split("{")[0]
            ok = ([s for s in got if not s.startswith(name)] ==
                  [s for s in mine if not s.startswith(name)]) and got != mine
        else:
            ok = sorted(got) == sorted([s for s in mine if s not in gone] +
                                       added)
        if not ok:
            sys.exit("#%d (%s) is not #%d (%s) with the move of #%d" %
                     (c["id"], c["recipe"], p["id"], p["recipe"], q["id"]))
    print("%d combined children checked" % len(combined))


main()
