"""Checks the kernels/ suite as a whole (no compiler, no GPU, no torch):

- at least MIN problems, each a directory with problem.json and its source;
- every problem.json states "bytes" and "flops";
- every problem has a shape with a size that is not a multiple of 8, so
  vector widths and block sizes never divide every shape;
- every entry is extern "C" (bench/torch_bench.py calls it through ctypes);
- bench/torch_impls.py defines one function per problem, and no others,
  whose parameters are the problem's input buffers and its scalars that are
  numbers, by name (bench/torch_bench.py passes them as keywords).
"""
import ast
import json
import os
import re
import sys

MIN = 14


def main(kernels, impls):
    errors = []
    names = []
    params = {}
    for d in sorted(os.listdir(kernels)):
        spec_path = os.path.join(kernels, d, "problem.json")
        if not os.path.isfile(spec_path):
            continue
        spec = json.load(open(spec_path))
        names.append(spec["name"])
        params[spec["name"]] = {
            a["name"] for a in spec["args"]
            if ("buffer" in a and a.get("intent", "in") in ("in", "inout"))
            or ("scalar" in a and not isinstance(a["value"], str))}
        if spec["name"] != d:
            errors.append("%s: name %r is not the directory's" % (d, spec["name"]))
        for field in ("bytes", "flops"):
            if field not in spec:
                errors.append("%s: no %r" % (d, field))
        if not any(v % 8 for shape in spec["shapes"] for v in shape.values()):
            errors.append("%s: every size of every shape is a multiple of 8" % d)
        src = open(os.path.join(kernels, d, spec["source"])).read()
        if not re.search(r'extern\s+"C"[^;{]*\b%s\s*\(' % re.escape(spec["entry"]),
                         src):
            errors.append("%s: entry %s is not extern \"C\"" % (d, spec["entry"]))
    if len(names) < MIN:
        errors.append("%d problems, fewer than %d" % (len(names), MIN))
    tree = ast.parse(open(impls).read())
    defs = {n.name: n for n in tree.body
            if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    funcs = set(defs)
    for n in sorted(set(names) & funcs):
        got = {a.arg for a in defs[n].args.args}
        if got != params[n]:
            errors.append("%s: %s takes %s, the problem passes %s" % (
                n, os.path.basename(impls), sorted(got), sorted(params[n])))
    for n in sorted(set(names) - funcs):
        errors.append("%s: no function in %s" % (n, os.path.basename(impls)))
    for n in sorted(funcs - set(names)):
        errors.append("%s: a function in %s without a problem" % (
            n, os.path.basename(impls)))
    for e in errors:
        print("error: " + e)
    print("%d problems: %s" % (len(names), " ".join(names)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
