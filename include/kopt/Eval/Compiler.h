//===- Compiler.h - nvcc into loadable shared objects -----------*- C++ -*-===//
//
// The reference and every candidate are compiled by one function with one
// flag list, so the binary that is checked is the binary that is timed and
// no candidate gets different optimization than the baseline.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_COMPILER_H
#define KOPT_EVAL_COMPILER_H

#include "kopt/Eval/ResourceUsage.h"
#include "kopt/Spec/Problem.h"

#include <filesystem>
#include <string>
#include <vector>

namespace kopt::eval {

class CompileCache;

struct CompileOptions {
  std::string Nvcc;      // path to nvcc
  std::string Cuobjdump; // empty: SASS is not inspected
  std::string Objdump;   // empty: host instructions are not inspected
  std::string Arch = "sm_90a";
  double TimeoutSeconds = 300;
  /// With a cache and a digest of the kernel source as preprocessed for Arch
  /// (sourceDigest), the library is taken from the cache when it is there.
  const CompileCache *Cache = nullptr;
  std::string SourceDigest;
  std::string Toolchain; // toolchainIdentity(nvccVersion(Nvcc))
};

struct CompileResult {
  bool Ok = false;
  std::vector<std::string> Command;
  std::string Log; // nvcc's output, ptxas -v included
  std::string LibraryPath;
  std::string ShimPath;
  std::string Sass;
  /// cuobjdump ran and read the library (or found no device code in it).
  bool SassInspected = false;
  ResourceUsage Resources;
  double Seconds = 0;
  bool Cached = false;  // restored from the compile cache
  std::string CacheKey; // empty: the cache was not consulted
};

/// The flags every compile of \p P uses (no input or output names).
std::vector<std::string> evaluationFlags(const spec::Problem &P,
                                         const CompileOptions &Options);

/// Writes a shim for \p KernelSource into \p WorkDir and compiles both into
/// \p WorkDir/<Stem>.so; then reads its SASS when cuobjdump is available.
CompileResult compileEntryLibrary(const spec::Problem &P,
                                  const std::filesystem::path &KernelSource,
                                  const std::filesystem::path &WorkDir,
                                  const std::string &Stem,
                                  const CompileOptions &Options);

struct PreprocessResult {
  bool Ok = false;
  std::string Text; // nvcc -E output
  std::string Log;
};

/// Preprocesses \p Source with the evaluation's language flags (standard,
/// arch, include directory, fast math, the problem's nvcc_flags): the device
/// pass (__CUDA_ARCH__ defined), or the host pass when \p HostPass.
PreprocessResult preprocessSource(const spec::Problem &P,
                                  const std::filesystem::path &Source,
                                  const std::filesystem::path &WorkDir,
                                  const std::string &Stem,
                                  const CompileOptions &Options, bool HostPass);

/// The PTX of \p Source for Options.Arch's virtual architecture, with the
/// evaluation's language and optimization flags (`nvcc -ptx`): what a
/// problem's "ptx" FileCheck patterns read. Ok false with the log on failure.
PreprocessResult compilePtx(const spec::Problem &P,
                            const std::filesystem::path &Source,
                            const std::filesystem::path &WorkDir,
                            const std::string &Stem,
                            const CompileOptions &Options);

/// Directories whose headers belong to the toolkit (for \p Nvcc).
std::vector<std::string> toolkitDirectories(const std::string &Nvcc);

/// The digest of a kernel source for the compile cache: its device-pass
/// (for one arch) and host-pass preprocessed texts, line markers removed, so
/// every header it includes and every macro it sees is covered.
std::string sourceDigest(const std::string &DevicePass,
                         const std::string &HostPass);

/// What besides nvcc's path and the flags decides the binary: nvcc's
/// version (nvccVersion's text) and the host compiler nvcc calls (g++ on
/// PATH unless the flags say -ccbin).
std::string toolchainIdentity(const std::string &NvccVersion);

/// "Cuda compilation tools, release 13.0, V13.0.88" or empty.
std::string nvccVersion(const std::string &Nvcc);

/// nvcc from $KOPT_NVCC, $CUDA_PATH/bin, PATH, or /usr/local/cuda/bin.
std::string findNvcc();

/// \p Program's canonical path, size and time of change (another build or
/// install is another identity); \p Program itself when it is not there.
std::string programIdentity(const std::string &Program);

/// The environment, but for the variables a shell changes by itself (PWD,
/// OLDPWD, SHLVL, _), each after a NUL: what a wrapper or a stand-in tool
/// may answer by, for the keys of caches that outlive a process.
std::string environmentIdentity();

/// cuobjdump beside \p Nvcc or on PATH; empty when there is none.
std::string findCuobjdump(const std::string &Nvcc);

/// "sm_90a" for compute capability 9.0 (arch-specific features allowed
/// from Hopper on), "sm_86" for 8.6.
std::string archForComputeCapability(int Major, int Minor);

} // namespace kopt::eval

#endif // KOPT_EVAL_COMPILER_H
