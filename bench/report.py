#!/usr/bin/env python3
"""The benchmark table: collects bench/gpu-bench's measurements into one JSON
file per run, and renders one or more such files (runs over different
problems, merged by problem) as a markdown table and an SVG chart.

  report.py collect --kopt-dir DIR --torch FILE --env FILE --out FILE
                    [--search-dir DIR]
  report.py render RUN.json [RUN.json...] --prefix PATH   (PATH.{md,json,svg})

Only numbers measured by kopt-bench (naive, kopt -O and kopt-search's best,
each timed against the naive kernel) and by bench/torch_bench.py (PyTorch)
appear; a missing measurement is a "-", a search not run an empty cell.
"""
import argparse
import datetime
import glob
import html
import json
import math
import os
import sys

# FP32 lanes per multiprocessor (CUDA programming guide, arithmetic
# instructions throughput): the peak is lanes x 2 (FMA) x SMs x max clock.
FP32_LANES_PER_SM = {(7, 0): 64, (8, 0): 64, (8, 6): 128, (8, 9): 128,
                     (9, 0): 128, (10, 0): 128, (12, 0): 128}


def load(path):
    with open(path) as f:
        return json.load(f)


def collect(args):
    env = load(args.env)
    torch_run = load(args.torch) if os.path.exists(args.torch) else {}
    cap = tuple(torch_run.get("capability", []))
    lanes = FP32_LANES_PER_SM.get(cap)
    device = {
        "name": env.get("name"), "uuid": env.get("uuid"),
        "driver": env.get("driver"), "max_sm_mhz": env.get("max_sm_mhz"),
        "multiprocessors": torch_run.get("multiprocessors"),
        "l2_bytes": torch_run.get("l2_bytes"),
        "compute_capability": list(cap) if cap else None,
    }
    if lanes and device["multiprocessors"] and device["max_sm_mhz"]:
        device["fp32_lanes_per_sm"] = lanes
        device["fp32_peak_gflops"] = (lanes * 2 * device["multiprocessors"]
                                      * device["max_sm_mhz"] / 1e3)
    problems = {}
    for meta_path in sorted(glob.glob(os.path.join(args.kopt_dir,
                                                   "*.meta.json"))):
        meta = load(meta_path)
        name = meta["problem"]
        row = {"changed": meta.get("changed"),
               "applied": meta.get("applied", []),
               "kopt_opt_exit": meta.get("kopt_opt_exit"),
               "kopt_bench_exit": meta.get("kopt_bench_exit")}
        rec_path = os.path.join(args.kopt_dir, name + ".json")
        if os.path.exists(rec_path):
            rec = load(rec_path)["records"][0]
            t = rec.get("timing") or {}
            row["kopt"] = {
                "status": rec.get("status"), "rule": rec.get("rule"),
                "messages": rec.get("messages", [])[:5],
                "sizes": t.get("sizes"),
                "naive_ms": (t.get("baseline") or {}).get("median_ms"),
                "opt_ms": (t.get("candidate") or {}).get("median_ms"),
                "naive": t.get("baseline"), "opt": t.get("candidate"),
                "speedup": t.get("speedup"),
                "speedup_ci95": t.get("speedup_ci95"),
                "bytes": t.get("bytes"), "flops": t.get("flops"),
                "achieved_gbps": t.get("achieved_gbps"),
                "achieved_gflops": t.get("achieved_gflops"),
                "registers": [k.get("registers") for k in
                              (rec.get("resources") or {}).get("kernels", [])],
            }
            dev = rec.get("device") or {}
            if dev.get("copy_bandwidth_gbps"):
                device["copy_bandwidth_gbps"] = dev["copy_bandwidth_gbps"]
        search = search_row(args.search_dir, name) if args.search_dir else None
        if search:
            row["search"] = search
        trow = (torch_run.get("problems") or {}).get(name)
        if trow is not None:
            row["torch"] = trow
        problems[name] = row
    run = {"tool": "bench/gpu-bench",
           "date": datetime.datetime.now(datetime.timezone.utc)
           .strftime("%Y-%m-%d %H:%M UTC"),
           "device": device, "kopt_opt": env.get("kopt_opt"),
           "torch": torch_run.get("torch"), "problems": problems}
    with open(args.out, "w") as f:
        json.dump(run, f, indent=1)


def search_row(search_dir, name):
    """The search's best, timed by kopt-bench against the naive kernel in
    this run (<name>.json), with its recipe (<name>.recipe.txt)."""
    rec_path = os.path.join(search_dir, name + ".json")
    if not os.path.exists(rec_path):
        return None
    rec = load(rec_path)["records"][0]
    t = rec.get("timing") or {}
    recipe_path = os.path.join(search_dir, name + ".recipe.txt")
    recipe = (open(recipe_path).read().strip()
              if os.path.exists(recipe_path) else None)
    row = {"status": rec.get("status"), "speedup": t.get("speedup"),
           "speedup_ci95": t.get("speedup_ci95"),
           "median_ms": (t.get("candidate") or {}).get("median_ms"),
           "recipe": recipe}
    # kopt-search's own report: how the search ended and what it spent.
    report_path = os.path.join(search_dir, name + ".report.json")
    if os.path.exists(report_path):
        report = load(report_path)
        for key in ("stopped_by", "evaluations", "gpu_seconds"):
            if key in report:
                row[key] = report[key]
    return row


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def target_notes(problems, names):
    """The search issue's measures over the rows that have them: geomean
    speedup of -O and of search over naive, problems where search is below
    -O with disjoint intervals, and evaluations per GPU-minute."""
    both = [n for n in names
            if (problems[n].get("search") or {}).get("speedup") and
            (problems[n].get("kopt") or {}).get("speedup")]
    if not both:
        return []
    opt = [problems[n]["kopt"]["speedup"] for n in both]
    found = [problems[n]["search"]["speedup"] for n in both]
    notes = ["Over the %d problems with both a -O and a search speedup: "
             "geomean over naive %.3fx for -O, %.3fx for search." % (
                 len(both), geomean(opt), geomean(found))]
    below = []
    for n in both:
        s_hi = (problems[n]["search"].get("speedup_ci95") or [None, None])[1]
        o_lo = (problems[n]["kopt"].get("speedup_ci95") or [None, None])[0]
        if isinstance(s_hi, (int, float)) and isinstance(o_lo, (int, float)) \
                and s_hi < o_lo:
            below.append(n)
    notes.append("Search below -O (intervals disjoint): %s." % (
        ", ".join(below) if below else "none"))
    spent = [problems[n]["search"] for n in names
             if (problems[n].get("search") or {}).get("gpu_seconds")]
    if spent:
        evals = sum(s.get("evaluations", 0) for s in spent)
        gpu_s = sum(s["gpu_seconds"] for s in spent)
        notes.append("Evaluations per GPU-minute: %.1f (%d evaluations in "
                     "%.0f GPU-s over %d searches)." % (
                         60 * evals / gpu_s, evals, gpu_s, len(spent)))
    return notes


def search_cell(row):
    s = row.get("search")
    if not s:
        return ""
    if s.get("status") != "ok" or not s.get("speedup"):
        return "**%s**" % s.get("status")
    ci = s.get("speedup_ci95") or [None, None]
    return "%s [%s, %s]" % (fmt(s["speedup"], "%.3f"), fmt(ci[0], "%.3f"),
                            fmt(ci[1], "%.3f"))


def fmt(v, spec="%.4f"):
    return spec % v if isinstance(v, (int, float)) else "-"


def row_numbers(row, device):
    """Times per variant, the ceiling used, and the fraction of it each
    variant reached."""
    k = row.get("kopt") or {}
    t = row.get("torch") or {}
    times = {"naive": k.get("naive_ms"), "opt": k.get("opt_ms"),
             "eager": (t.get("eager") or {}).get("median_ms"),
             "compile": (t.get("compile") or {}).get("median_ms")}
    bytes_ = k.get("bytes") or t.get("bytes")
    flops = k.get("flops") or t.get("flops")
    copy = device.get("copy_bandwidth_gbps")
    peak = device.get("fp32_peak_gflops")
    # Whichever floor is higher bounds the problem: moving its bytes at the
    # copy bandwidth, or doing its flops at the f32 peak.
    bound, ceiling = "bytes", None
    if bytes_ and copy:
        ceiling = bytes_ / (copy * 1e9)
    if flops and peak and (ceiling is None or flops / (peak * 1e9) > ceiling):
        bound, ceiling = "flops", flops / (peak * 1e9)
    frac = {}
    for key, ms in times.items():
        if isinstance(ms, (int, float)) and ms > 0 and ceiling:
            frac[key] = ceiling / (ms * 1e-3)
    return times, bound, frac


def best_ms(t, key):
    """The faster of a variant's direct-call and CUDA-graph medians."""
    vals = [(t.get(k) or {}).get("median_ms") for k in (key, key + "_graph")]
    vals = [v for v in vals if isinstance(v, (int, float)) and v > 0]
    return min(vals) if vals else None


def harness_ratio(t):
    """torch.compile's time over -O's, both timed by the PyTorch harness in
    one interleaved run (each the faster of direct call and graph replay);
    above 1 where -O is faster. None without both."""
    c, o = best_ms(t, "compile"), best_ms(t, "opt_harness")
    return c / o if c and o else None


def torch_cell(t, key):
    """Direct-call median, and the CUDA-graph replay's where it is at least
    10% faster (launch overhead that direct calls did not hide)."""
    ms = (t.get(key) or {}).get("median_ms")
    graph = (t.get(key + "_graph") or {}).get("median_ms")
    cell = fmt(ms)
    if isinstance(ms, (int, float)) and isinstance(graph, (int, float)) and \
            graph < 0.9 * ms:
        cell += " (graph %s)" % fmt(graph)
    return cell


def check_cell(t):
    if not t:
        return "-"
    if "error" in t:
        return "error"
    cells = []
    for key in ("eager_check", "compile_check"):
        v = t.get(key, "-")
        cells.append("**%s**" % v if v == "DIFFERS" else v)
    return " / ".join(cells)


def render(args):
    runs = [load(p) for p in args.runs]
    devices = []
    problems = {}
    for run in runs:
        dev = run["device"]
        if dev not in devices:
            devices.append(dev)
        for name, row in run["problems"].items():
            row = dict(row)
            row["device_index"] = devices.index(dev)
            row["date"] = run["date"]
            row["kopt_opt"] = run.get("kopt_opt")
            row["torch_version"] = run.get("torch")
            problems[name] = row
    names = sorted(problems)

    lines = []
    lines.append("| problem | shape | naive ms | kopt -O ms | -O speedup "
                 "[95% CI] | -O changed | search speedup [95% CI] | "
                 "torch eager ms | "
                 "torch.compile ms | -O achieved | % of ceiling: naive / -O / "
                 "eager / compile | torch agrees (eager / compile) | "
                 "compile / -O, one harness |")
    lines.append("| --- | --- | ---: | ---: | --- | --- | --- | ---: | ---: "
                 "| ---: | --- | --- | ---: |")
    chart = []
    for name in names:
        row = problems[name]
        dev = devices[row["device_index"]]
        k = row.get("kopt") or {}
        t = row.get("torch") or {}
        times, bound, frac = row_numbers(row, dev)
        ci = k.get("speedup_ci95") or [None, None]
        status = k.get("status")
        speedup = ("%s [%s, %s]" % (fmt(k.get("speedup"), "%.3f"),
                                    fmt(ci[0], "%.3f"), fmt(ci[1], "%.3f"))
                   if k.get("speedup") else (status or "-"))
        if status and status != "ok":
            speedup = "**%s**" % status
        changed = {True: "yes", False: "no"}.get(row.get("changed"), "-")
        if row.get("applied"):
            changed += " (" + ", ".join(row["applied"]) + ")"
        pct = " / ".join(fmt(100 * frac[v], "%.0f") if v in frac else "-"
                         for v in ("naive", "opt", "eager", "compile"))
        pct += " (f32 peak)" if bound == "flops" else " (copy BW)"
        achieved = (fmt(k.get("achieved_gflops"), "%.0f GFLOP/s")
                    if bound == "flops" else
                    fmt(k.get("achieved_gbps"), "%.0f GB/s"))
        sizes = k.get("sizes") or ", ".join(
            "%s=%s" % kv for kv in (t.get("sizes") or {}).items()) or "-"
        ratio = harness_ratio(t)
        if ratio and (t.get("opt_check") == "DIFFERS"):
            ratio_cell = "**DIFFERS**"
        else:
            ratio_cell = fmt(ratio, "%.3fx")
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | "
                     "%s | %s |" % (
                         name, sizes, fmt(times["naive"]), fmt(times["opt"]),
                         speedup, changed, search_cell(row),
                         torch_cell(t, "eager"),
                         torch_cell(t, "compile"), achieved, pct,
                         check_cell(t), ratio_cell))
        chart.append((name, bound, frac))

    notes = []
    for i, dev in enumerate(devices):
        peak = dev.get("fp32_peak_gflops")
        notes.append(
            "Device%s: %s (driver %s, %s SMs, max SM clock %s MHz); measured "
            "copy bandwidth %s GB/s (kopt-bench: best of 10 device-to-device "
            "copies, bytes read + written); f32 peak %s GFLOP/s, derived as "
            "%s FP32 lanes/SM x 2 (FMA) x SMs x max SM clock, not measured." % (
                " %d" % (i + 1) if len(devices) > 1 else "", dev.get("name"),
                dev.get("driver"), dev.get("multiprocessors"),
                dev.get("max_sm_mhz"), fmt(dev.get("copy_bandwidth_gbps"), "%.0f"),
                fmt(peak, "%.0f"), dev.get("fp32_lanes_per_sm", "?")))
    if len(devices) > 1:
        notes.append("Rows by device: " + "; ".join(
            "%s: device %d" % (n, problems[n]["device_index"] + 1)
            for n in names) + ". Each row was measured on one machine.")
    dates = sorted({problems[n]["date"] for n in names})
    # One -O pipeline is listed once, even when the runs used several
    # builds of kopt-opt (their hashes are in the JSON).
    pipelines = sorted({(problems[n].get("kopt_opt") or {}).get("pipeline", "?")
                        for n in names})
    notes.append("Measured %s with bench/gpu-bench. kopt -O: %s. PyTorch %s." % (
        ", ".join(dates), "; ".join(pipelines),
        ", ".join(sorted({str(problems[n].get("torch_version")) for n in names}))))
    # The harness times the naive kernel too, through ctypes: where that
    # differs from kopt-bench's time, its PyTorch times carry the same bias.
    skew = []
    for n in names:
        a = (problems[n].get("kopt") or {}).get("naive_ms")
        b = ((problems[n].get("torch") or {}).get("naive_harness") or {}).get(
            "median_ms")
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and \
                abs(b / a - 1) > 0.05:
            skew.append("%s %s vs %s ms" % (n, fmt(b), fmt(a)))
    if skew:
        notes.append("The PyTorch harness's own timing of the naive kernel "
                     "(direct ctypes calls) differs by more than 5% from "
                     "kopt-bench's for: " + "; ".join(skew) + ".")
    both = [n for n in names
            if harness_ratio(problems[n].get("torch") or {}) and
            (problems[n].get("torch") or {}).get("opt_check") != "DIFFERS"]
    if both:
        notes.append(
            "compile / -O, one harness: torch.compile's time over the -O "
            "output's, both timed by the PyTorch harness in one interleaved "
            "run (each the faster of its direct call and CUDA-graph replay; "
            "above 1 where -O is faster); geomean over the %d problems with "
            "both: %.3fx. kopt -O ms is kopt-bench's time of the same "
            "output." % (len(both), geomean(
                [harness_ratio(problems[n]["torch"]) for n in both])))
    differs = [n for n in names
               if (problems[n].get("torch") or {}).get("opt_check") == "DIFFERS"]
    if differs:
        notes.append("The -O output's result, checked again by the PyTorch "
                     "harness, differs from the naive kernel's for: " +
                     ", ".join(differs) + ".")
    disagreements = [n for n in names if "DIFFERS" in check_cell(
        problems[n].get("torch"))]
    if disagreements:
        notes.append("PyTorch's result differs from the kernel's beyond the "
                     "problem's tolerance for: " + ", ".join(disagreements) +
                     " (details in the JSON).")
    errors = ["%s (%s)" % (n, (problems[n].get("torch") or {}).get("error"))
              for n in names if "error" in (problems[n].get("torch") or {})]
    if errors:
        notes.append("PyTorch not measured: " + "; ".join(errors) + ".")
    notes += target_notes(problems, names)
    md = "\n".join(lines) + "\n\n" + "\n\n".join(notes) + "\n"

    merged = {"tool": "bench/gpu-bench", "devices": devices,
              "problems": {n: problems[n] for n in names}}
    with open(args.prefix + ".md", "w") as f:
        f.write(md)
    with open(args.prefix + ".json", "w") as f:
        json.dump(merged, f, indent=1)
    with open(args.prefix + ".svg", "w") as f:
        f.write(svg(chart, devices))
    sys.stdout.write(md)


def svg(chart, devices):
    """Grouped horizontal bars: % of the ceiling per variant and problem."""
    colors = [("naive", "#9e9e9e"), ("opt", "#1f77b4"), ("eager", "#ff7f0e"),
              ("compile", "#2ca02c")]
    labels = {"naive": "naive kernel", "opt": "kopt -O",
              "eager": "PyTorch eager", "compile": "torch.compile"}
    left, width, bar, gap, top = 190, 560, 9, 12, 60
    group = bar * len(colors) + gap
    height = top + group * len(chart) + 50
    # Scale to the largest fraction, at least 100%.
    most = max([1.0] + [v for _, _, f in chart for v in f.values()])
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'font-family="sans-serif" font-size="11">' % (left + width + 60,
                                                         height),
           '<rect width="100%" height="100%" fill="white"/>',
           '<text x="10" y="18" font-size="14">%s: fraction of the ceiling '
           '(measured copy bandwidth; f32 peak for compute-bound problems)'
           '</text>' % html.escape(", ".join(
               sorted({str(d.get("name")) for d in devices})))]
    for i, (key, color) in enumerate(colors):
        out.append('<rect x="%d" y="30" width="10" height="10" fill="%s"/>'
                   '<text x="%d" y="39">%s</text>' % (
                       10 + 130 * i, color, 24 + 130 * i, labels[key]))
    for pct in range(0, int(most * 100) + 1, 25):
        x = left + width * pct / 100 / most
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>'
                   '<text x="%.1f" y="%d" text-anchor="middle">%d%%</text>' % (
                       x, top - 5, x, height - 40, x, height - 26, pct))
    for g, (name, bound, frac) in enumerate(chart):
        y0 = top + g * group
        out.append('<text x="%d" y="%d" text-anchor="end">%s%s</text>' % (
            left - 6, y0 + 2 * bar + 4, html.escape(name),
            " (flops)" if bound == "flops" else ""))
        for i, (key, color) in enumerate(colors):
            if key not in frac:
                continue
            w = width * frac[key] / most
            out.append('<rect x="%d" y="%d" width="%.1f" height="%d" '
                       'fill="%s"><title>%s %s: %.1f%%</title></rect>' % (
                           left, y0 + i * bar, w, bar - 1, color,
                           html.escape(name), labels[key], 100 * frac[key]))
    out.append("</svg>\n")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--kopt-dir", required=True)
    c.add_argument("--torch", required=True)
    c.add_argument("--env", required=True)
    c.add_argument("--search-dir",
                   help="the search's best per problem, timed by kopt-bench")
    c.add_argument("--out", required=True)
    r = sub.add_parser("render")
    r.add_argument("runs", nargs="+")
    r.add_argument("--prefix", required=True)
    args = ap.parse_args()
    collect(args) if args.cmd == "collect" else render(args)


if __name__ == "__main__":
    main()
