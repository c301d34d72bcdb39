# lit configuration for kopt's FileCheck suite.
#
# Features:
#   kopt-opt      the Clang-based kopt-opt is available (a build with Clang, or
#                 a carried static binary)
#   filecheck     LLVM's FileCheck/not are available (not on GPU hosts)
#   cuda-toolkit  nvcc is available: rewritten kernels are compiled with it
#   cuobjdump     kopt-bench can read SASS (cuobjdump beside nvcc or on PATH)
#   cuda-gpu      an NVIDIA GPU is visible (set KOPT_LIT_NO_GPU=1 to hide it)
#   kopt-search   kopt-search is built (libsqlite3)
#   kopt-llm      ... with its llm proposer (libcurl)
#   chromium      a headless browser renders report.html
import os
import shutil
import subprocess

import lit.formats

config.name = "kopt"
config.test_format = lit.formats.ShTest(not lit_config.isWindows)
config.suffixes = [".cu", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kopt_obj_root, "test")

# Tests must not see the caller's CUDA_PATH or GPU selection by accident.
for var in ("CUDA_VISIBLE_DEVICES", "HOME", "TMPDIR", "PATH", "CUDA_PATH",
            "KOPT_LIT_NO_GPU", "KOPT_FILECHECK"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# kopt's caches (copy bandwidth per device, compiled libraries) go to the
# build tree, not the user's home; tests that check caching use their own.
config.environment["KOPT_CACHE_DIR"] = os.path.join(config.test_exec_root,
                                                    "kopt-cache")

tool_dirs = [config.kopt_tools_dir]
if config.llvm_tools_dir:
    tool_dirs.append(config.llvm_tools_dir)
config.environment["PATH"] = os.pathsep.join(
    tool_dirs + [config.environment.get("PATH", os.environ.get("PATH", ""))])

config.substitutions.append(("%kopt_src", config.kopt_src_root))
config.substitutions.append(("%kernels", os.path.join(config.kopt_src_root, "kernels")))
config.substitutions.append(("%python", "python3"))
# A rewritten .cu test still holds its own CHECK comments, which would match
# themselves: FileCheck the output with them removed.
config.substitutions.append(
    ("%strip_checks",
     "grep -v -E '^[[:space:]]*// [A-Z0-9]+(-(NEXT|DAG|NOT|LABEL|SAME|EMPTY))?:'"))

# Tools are found on PATH; a carried kopt-opt (GPU hosts) brings its folder.
if config.kopt_opt and os.path.exists(config.kopt_opt):
    config.available_features.add("kopt-opt")
    config.environment["PATH"] = os.pathsep.join(
        [os.path.dirname(config.kopt_opt), config.environment["PATH"]])

# kopt-search is built where libsqlite3 is (lib/Search/CMakeLists.txt);
# its llm proposer where libcurl is too.
kopt_search = os.path.join(config.kopt_tools_dir, "kopt-search")
if not os.path.exists(kopt_search):
    kopt_search = shutil.which("kopt-search", path=config.environment["PATH"])
if kopt_search:
    config.available_features.add("kopt-search")
    probe = subprocess.run([kopt_search, "--llm-print-template"],
                           capture_output=True, timeout=60)
    if probe.returncode == 0:
        config.available_features.add("kopt-llm")

# kopt-tidy and the clang-tidy module (builds with Clang); Debian's
# clang-tidy-22, clang-apply-replacements-22 and pre-commit for their tests.
if os.path.exists(os.path.join(config.kopt_tools_dir, "kopt-tidy")):
    config.available_features.add("kopt-tidy")
tidy_module = os.path.join(config.kopt_obj_root, "lib", "kopt-tidy-module.so")
for feature, tool in (("clang-tidy", "clang-tidy-22"),
                      ("clang-apply-replacements", "clang-apply-replacements-22"),
                      ("pre-commit", "pre-commit"), ("git", "git")):
    path = shutil.which(tool, path=config.environment["PATH"])
    if path and (feature != "clang-tidy" or os.path.exists(tidy_module)):
        config.available_features.add(feature)
        config.substitutions.append(("%" + feature.replace("-", "_"), path))
config.substitutions.append(("%kopt_tidy_module", tidy_module))
# A real browser for report.html (Debian's chromium; tests that need it are
# skipped where it is absent).
chromium = shutil.which("chromium", path=config.environment["PATH"])
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

# A one-node Slurm cluster for kopt-search's Slurm executor (slurm-wlm, munge).
if all(shutil.which(t) for t in ("slurmctld", "slurmd", "munged", "sbatch",
                                 "squeue", "scontrol", "scancel", "sinfo")):
    config.available_features.add("slurm")

def find_llvm_tool(name):
    if config.llvm_tools_dir:
        path = os.path.join(config.llvm_tools_dir, name)
        if os.path.exists(path):
            return path
    return shutil.which(name)

if find_llvm_tool("FileCheck") and find_llvm_tool("not"):
    config.available_features.add("filecheck")

if config.nvcc and os.path.exists(config.nvcc):
    config.available_features.add("cuda-toolkit")
    # Every rewritten kernel is compiled the way users compile it. (Longer
    # names first: lit substitutes in order.)
    config.substitutions.append(
        ("%nvcc_check", config.nvcc + " -arch=sm_90 -std=c++17 -c -o /dev/null"))
    config.substitutions.append(("%nvcc", config.nvcc))
    # kopt-bench reads SASS with the cuobjdump beside nvcc (or on PATH).
    if os.path.exists(os.path.join(os.path.dirname(config.nvcc), "cuobjdump")) \
            or shutil.which("cuobjdump"):
        config.available_features.add("cuobjdump")

def gpu_present():
    if os.environ.get("KOPT_LIT_NO_GPU"):
        return False
    smi = shutil.which("nvidia-smi")
    if not smi:
        return False
    try:
        out = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and "GPU" in out.stdout

if gpu_present():
    config.available_features.add("cuda-gpu")
