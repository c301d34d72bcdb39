"""The table of a suite search: one row per problem from its report.json.

usage: search_table.py DIR [--json OUT]   (DIR holds one --out per problem)
Speedups are over the naive kernel (the problem's source), measured by
kopt-bench inside the search: -O is the search's own -O root, so both
columns come from one run on one device.
"""
import argparse
import glob
import json
import math
import os

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--json")
args = ap.parse_args()

rows = []
for path in sorted(glob.glob(os.path.join(args.dir, "*", "report.json"))):
    r = json.load(open(path))
    baselines = r.get("baselines") or {}
    best, o = r.get("best") or {}, baselines.get("O") or {}
    original = baselines.get("original") or {}
    o_note = None
    if o.get("status") == "duplicate":
        # -O built the same source or the same SASS as an earlier candidate:
        # the same machine code, so that candidate's measurement is -O's.
        if o.get("duplicate_of") == original.get("id"):
            o_note = "same binary as naive"
            o = original
        else:
            o_note = f"duplicate of #{o.get('duplicate_of')}"
    elif o and "speedup" not in o:
        o_note = o.get("status")
    row = {"problem": r["problem"]["name"], "stopped_by": r["stopped_by"],
           "o_note": o_note,
           "evaluations": r["evaluations"], "gpu_seconds": r["gpu_seconds"],
           "device": (r.get("device") or {}).get("name"),
           "o_speedup": o.get("speedup"), "o_ci": o.get("speedup_ci"),
           "search_speedup": best.get("speedup"),
           "search_ci": best.get("speedup_ci"), "recipe": best.get("recipe")}
    if row["o_ci"] and row["search_ci"]:
        lo, hi = row["search_ci"]
        olo, ohi = row["o_ci"]
        row["vs_O"] = "equal" if lo <= ohi and olo <= hi else (
            "faster" if lo > ohi else "slower")
    rows.append(row)


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def fmt(v, ci, note=None):
    text = "-" if v is None else f"{v:.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{text} ({note})" if note else text


print(f"{'problem':24} {'-O vs naive':46} {'search vs naive':24} {'vs -O':7} "
      f"{'evals':>5} {'GPU-s':>6} {'evals/GPU-min':>13}  recipe")
for r in rows:
    rate = 60 * r["evaluations"] / r["gpu_seconds"] if r["gpu_seconds"] else 0
    print(f"{r['problem']:24} {fmt(r['o_speedup'], r['o_ci'], r['o_note']):46} "
          f"{fmt(r['search_speedup'], r['search_ci']):24} {r.get('vs_O', '-'):7} "
          f"{r['evaluations']:5d} {r['gpu_seconds']:6.1f} {rate:13.1f}  "
          f"{r['recipe'] if r['recipe'] else '(original)'}")
summary = {
    "geomean_o_vs_naive": geomean([r["o_speedup"] for r in rows]),
    "geomean_search_vs_naive": geomean([r["search_speedup"] for r in rows]),
    "evaluations_per_gpu_minute": (60 * sum(r["evaluations"] for r in rows) /
                                   sum(r["gpu_seconds"] for r in rows))
    if rows and sum(r["gpu_seconds"] for r in rows) else None,
    # Only problems where both were measured count either way.
    "search_not_slower_than_O": sum(r.get("vs_O") in ("equal", "faster")
                                    for r in rows),
    "search_slower_than_O": sum(r.get("vs_O") == "slower" for r in rows),
    "no_O_measurement": [r["problem"] for r in rows if "vs_O" not in r],
    "problems": len(rows),
}
print(json.dumps(summary, indent=1))
if args.json:
    json.dump({"rows": rows, "summary": summary}, open(args.json, "w"), indent=1)
