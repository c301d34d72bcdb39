"""Two kopt-search reports of the same problem and settings hold the same
candidates (id, recipe, status, speedup) and the same best; with
--memo-made-all the second made every candidate from the memo."""
import json
import sys

a, b = (json.load(open(p)) for p in sys.argv[1:3])


def rows(r):
    return [(c["id"], c["recipe"], c["status"], c.get("speedup"))
            for c in r["candidates"]]


assert rows(a) == rows(b), (rows(a), rows(b))
assert a["best"]["id"] == b["best"]["id"], (a["best"], b["best"])
if "--memo-made-all" in sys.argv:
    made_with_passes = sum(1 for c in b["candidates"]
                           if c["recipe"] and c["status"] != "pending")
    assert b["ahead"]["memo_hits"] == made_with_passes, (b["ahead"], made_with_passes)
print("same_search: ok")
