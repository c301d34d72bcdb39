#!/usr/bin/env python3
"""check_profile.py RECORDS.json KERNEL: the first record's "profile" has
exactly one launch of KERNEL with a positive duration and every metric
kopt-bench asks ncu for."""
import json
import sys

doc = json.load(open(sys.argv[1]))
records = doc if isinstance(doc, list) else doc.get("records", [doc])
profile = records[0].get("profile")
if not isinstance(profile, dict) or "kernels" not in profile:
    sys.exit("no metrics: %s" % json.dumps(profile))
launches = [k for k in profile["kernels"] if sys.argv[2] in k["name"]]
if len(launches) != 1:
    sys.exit("%d launches of %s, not 1: %s" % (len(launches), sys.argv[2],
                                              json.dumps(profile)))
metrics = launches[0]["metrics"]
expected = ["gpu__time_duration.sum",
            "sm__throughput.avg.pct_of_peak_sustained_elapsed",
            "dram__throughput.avg.pct_of_peak_sustained_elapsed",
            "sm__warps_active.avg.pct_of_peak_sustained_active",
            "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
            "launch__registers_per_thread",
            "launch__occupancy_limit_registers"]
missing = [m for m in expected if m not in metrics]
if missing:
    sys.exit("missing metrics %s: %s" % (missing, json.dumps(metrics)))
if metrics["gpu__time_duration.sum"] <= 0:
    sys.exit("a kernel of no duration: %s" % json.dumps(metrics))
print("profile ok: %s" % json.dumps(launches[0]))
