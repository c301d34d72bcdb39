//===- ResourceUsage.h - What ptxas and the SASS say ------------*- C++ -*-===//
//
// Per kernel: registers, shared memory, stack frame and spills from
// `ptxas -v`, and how wide its global loads and stores are from
// `cuobjdump -sass` (LDG.E.128 is a 16-byte load). These explain timings
// and let a search see whether a vectorizing rewrite took effect.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_RESOURCEUSAGE_H
#define KOPT_EVAL_RESOURCEUSAGE_H

#include <map>
#include <string>
#include <vector>

namespace kopt::eval {

struct KernelResources {
  std::string MangledName;
  std::string Name; // demangled when possible
  int Registers = -1;
  int SharedBytes = 0;
  int StackFrameBytes = 0;
  int SpillStoreBytes = 0;
  int SpillLoadBytes = 0;
  /// Access width in bits -> number of SASS instructions.
  std::map<int, int> GlobalLoadWidths;
  std::map<int, int> GlobalStoreWidths;
};

struct ResourceUsage {
  std::vector<KernelResources> Kernels;
  bool SassAvailable = false;

  KernelResources &kernel(const std::string &Mangled);
};

/// Reads `ptxas -v` output (nvcc -Xptxas -v prints it on stderr).
void parsePtxasLog(const std::string &Log, ResourceUsage &Usage);

/// Reads `cuobjdump -sass` output; counts LDG/STG by width per function.
void parseSass(const std::string &Sass, ResourceUsage &Usage);

/// The width in bits of a global access opcode such as "LDG.E.128"
/// (0 when the opcode is not a global load or store).
int globalAccessWidth(const std::string &Opcode);

std::string demangle(const std::string &Mangled);

} // namespace kopt::eval

#endif // KOPT_EVAL_RESOURCEUSAGE_H
