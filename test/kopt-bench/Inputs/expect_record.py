#!/usr/bin/env python3
"""Runs a kopt-bench command and asserts on its exit code and JSON record.

GPU hosts have no FileCheck, so kopt-bench's tests assert through this
script. Usage:

  expect_record.py [--exit N] [--status S] [--rule R] [--contains TEXT]...
                   [--speedup-between LO HI] [--record I] [--check EXPR]...
                   -- kopt-bench ...

--check EXPR is a Python expression over `r` (the record) and `d` (the whole
JSON document) that must be true.

It appends `--json FILE` to the command, prints the command's output (so a
failing test shows it), and exits non-zero with a reason on any mismatch.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("expect_record.py: missing '--' before the command")
    split = argv.index("--")
    parser = argparse.ArgumentParser()
    parser.add_argument("--exit", type=int)
    parser.add_argument("--status")
    parser.add_argument("--rule")
    parser.add_argument("--contains", action="append", default=[])
    parser.add_argument("--speedup-between", nargs=2, type=float)
    parser.add_argument("--record", type=int, default=0)
    parser.add_argument("--save-json")
    parser.add_argument("--check", action="append", default=[])
    args = parser.parse_args(argv[:split])
    command = argv[split + 1:]

    fd, path = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    proc = subprocess.run(command + ["--json", path], capture_output=True,
                          text=True)
    sys.stdout.write(proc.stdout)
    sys.stdout.write(proc.stderr)
    failures = []
    if args.exit is not None and proc.returncode != args.exit:
        failures.append("exit code %d, expected %d" % (proc.returncode,
                                                      args.exit))
    record = None
    try:
        with open(path) as f:
            doc = json.load(f)
        if args.save_json:
            with open(args.save_json, "w") as f:
                json.dump(doc, f, indent=2)
        record = doc["records"][args.record]
    except (OSError, ValueError, KeyError, IndexError) as e:
        if (args.status or args.rule or args.contains or args.speedup_between
                or args.check):
            failures.append("no record %d in the JSON: %s" % (args.record, e))
    finally:
        os.unlink(path)

    if record is not None:
        if args.status and record.get("status") != args.status:
            failures.append("status %r, expected %r" % (record.get("status"),
                                                        args.status))
        if args.rule and record.get("rule") != args.rule:
            failures.append("rule %r, expected %r" % (record.get("rule"),
                                                      args.rule))
        messages = "\n".join(record.get("messages", []))
        for text in args.contains:
            if text not in messages:
                failures.append("no message contains %r" % text)
        if args.speedup_between:
            lo, hi = args.speedup_between
            speedup = record.get("timing", {}).get("speedup")
            if speedup is None or not lo <= speedup <= hi:
                failures.append("speedup %r not within [%g, %g]" %
                                (speedup, lo, hi))
            else:
                print("speedup %.4f within [%g, %g]" % (speedup, lo, hi))
        for expr in args.check:
            try:
                ok = eval(expr, {}, {"r": record, "d": doc})
            except Exception as e:  # a missing key is a failed check
                ok = False
                expr += " (%s: %s)" % (type(e).__name__, e)
            if ok:
                print("check ok: " + expr)
            else:
                failures.append("check failed: " + expr)
    if failures:
        for f in failures:
            print("expect_record.py: FAIL: " + f)
        sys.exit(1)
    print("expect_record.py: ok")


if __name__ == "__main__":
    main()
