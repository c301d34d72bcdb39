#!/usr/bin/env python3
"""The evaluator's wall time per candidate, split by stage.

Run by bench/eval-throughput on a GPU host. For each problem of
bench/eval-problems (small: 4 MiB input, medium: 64 MiB, large: 256 MiB;
kernels/layernorm_f32 with a larger benchmark shape), `kopt-bench run` is
timed with one candidate, the problem's own kernel with a unique line added,
three ways:

  cold    nothing cached: the reference and the candidate are compiled
  fresh   the reference's library is cached, the candidate is new (a search's
          usual case: a candidate compiled once)
  cached  the same candidate again: its library comes from the compile cache

The copy-bandwidth probe is cached in every row (it is measured once per
device). Wall seconds are the whole `kopt-bench run` command; `parent` is what
the parent spent (device probe, preprocessing, nvcc, static rules), `worker`
the evaluation child, split by the stages it reports in `stage_seconds` (an
evaluator that does not report them leaves those columns empty).

Prints a Markdown table and writes eval-throughput.json to --out.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBLEMS = ["small", "medium", "large"]
STAGES = ["setup", "inputs", "reference", "candidate", "compare", "timing"]


def candidate_source(work, tag):
    """The problem's kernel with one line no other candidate has, so its
    preprocessed text, and so its compile-cache key, is new."""
    with open(os.path.join(ROOT, "kernels/layernorm_f32/kernel.cu")) as f:
        text = f.read()
    path = os.path.join(work, "candidate-%s.cu" % tag)
    with open(path, "w") as f:
        f.write(text)
        f.write("\nstatic const int kopt_eval_throughput_%s = 0;\n" %
                uuid.uuid4().hex)
    return path


def run_once(bench, problem, candidate, json_path, extra):
    cmd = [bench, "run", problem, "--candidate", candidate, "--json", json_path]
    cmd += extra
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - start
    record = {}
    try:
        with open(json_path) as f:
            record = json.load(f)["records"][0]
    except (OSError, ValueError, KeyError, IndexError):
        pass
    return proc, wall, record


def row_for(name, mode, proc, wall, record):
    worker = (record.get("worker") or {}).get("seconds")
    compile_ = record.get("compile") or {}
    timing = record.get("timing") or {}
    row = {
        "problem": name,
        "mode": mode,
        "exit_code": proc.returncode,
        "status": record.get("status", "?"),
        "wall_s": wall,
        "worker_s": worker,
        "parent_s": wall - worker if worker is not None else None,
        "nvcc_s": compile_.get("seconds"),
        "compile_cached": compile_.get("cached"),
        "stage_seconds": record.get("stage_seconds") or {},
        "timed_pairs": (timing.get("candidate") or {}).get("runs"),
        "speedup": timing.get("speedup"),
        "speedup_ci95": timing.get("speedup_ci95"),
        "clock_warnings": [m for m in record.get("messages", [])
                           if "clock" in m or "throttl" in m],
    }
    if proc.returncode not in (0, 1) or not record:
        row["error"] = (proc.stdout + proc.stderr)[-2000:]
    return row


def fmt(v, pattern="%.2f"):
    return pattern % v if isinstance(v, (int, float)) else "-"


def print_table(rows):
    head = ["problem", "run", "status", "wall s", "parent s", "nvcc s",
            "worker s"] + ["%s s" % s for s in STAGES] + ["pairs", "self/self"]
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join(" --- " for _ in head) + "|")
    for r in rows:
        st = r["stage_seconds"]
        cells = [r["problem"], r["mode"], r["status"], fmt(r["wall_s"]),
                 fmt(r["parent_s"]),
                 fmt(r["nvcc_s"]) + (" (cached)" if r["compile_cached"] else ""),
                 fmt(r["worker_s"])]
        cells += [fmt(st.get(s)) for s in STAGES]
        cells += [fmt(r["timed_pairs"], "%d"), fmt(r["speedup"], "%.3f")]
        print("| " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bench", required=True, help="the kopt-bench binary")
    ap.add_argument("--out", required=True, help="folder for the JSON")
    ap.add_argument("--runs", default="cold,fresh,cached",
                    help="comma-separated: cold, fresh, cached")
    ap.add_argument("--label", default="", help="a name for this evaluator")
    ap.add_argument("problems", nargs="*", default=PROBLEMS)
    ap.add_argument("--kopt-bench-arg", action="append", default=[],
                    help="an extra argument for every kopt-bench run")
    args = ap.parse_args()
    modes = [m for m in args.runs.split(",") if m]
    for m in modes:
        if m not in ("cold", "fresh", "cached"):
            ap.error("unknown run '%s' (cold, fresh, cached)" % m)
    for p in args.problems:
        if p not in PROBLEMS:
            ap.error("unknown problem '%s' (%s)" % (p, ", ".join(PROBLEMS)))
    cache = os.environ.get("KOPT_CACHE_DIR")
    if not cache:
        ap.error("set KOPT_CACHE_DIR (the compile cache is cleared for 'cold')")
    os.makedirs(args.out, exist_ok=True)
    work = os.path.join(args.out, "eval-throughput-work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    rows = []
    for name in args.problems:
        problem = os.path.join(ROOT, "bench/eval-problems", name)
        fresh = None
        if "cold" not in modes:
            # The reference's library into the compile cache (no GPU): the
            # rows below then compile only their candidate.
            subprocess.run([args.bench, "check", problem], capture_output=True)
        for mode in modes:
            if mode == "cold":
                shutil.rmtree(os.path.join(cache, "compile"), ignore_errors=True)
                cand = candidate_source(work, name + "-cold")
            elif mode == "fresh" or fresh is None:
                fresh = cand = candidate_source(work, name + "-fresh")
            else:
                cand = fresh
            out = os.path.join(work, "%s-%s.json" % (name, mode))
            proc, wall, record = run_once(args.bench, problem, cand, out,
                                          args.kopt_bench_arg)
            row = row_for(name, mode, proc, wall, record)
            rows.append(row)
            print("eval-throughput: %s %s: %s in %.1f s" %
                  (name, mode, row["status"], wall), file=sys.stderr, flush=True)

    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version",
                              "--format=csv,noheader"], capture_output=True,
                             text=True).stdout.strip()
    except OSError:
        smi = "unknown (no nvidia-smi)"
    result = {"tool": "bench/eval-throughput", "label": args.label,
              "device": smi, "rows": rows}
    with open(os.path.join(args.out, "eval-throughput.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("device: %s%s" % (smi, "; evaluator: " + args.label if args.label else ""))
    print_table(rows)
    bad = [r for r in rows if r["status"] != "ok"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
