#!/usr/bin/env python3
"""check_prompt_profile.py REQUESTS.jsonl KERNEL: the first request's prompt
has the Nsight Compute section with a line for KERNEL and its metrics."""
import json
import sys

body = json.loads(json.loads(open(sys.argv[1]).readline())["body"])
prompt = next(m["content"] for m in body["messages"] if m["role"] == "user")
section = prompt.split("## Nsight Compute metrics")[1].split("\n## ")[0]
print(section.strip())
lines = [l for l in section.splitlines() if l.startswith("- ") and sys.argv[2] in l]
if not lines or "SM throughput" not in lines[0] or "time (ns)" not in lines[0]:
    sys.exit("no metrics for %s in the prompt" % sys.argv[2])
