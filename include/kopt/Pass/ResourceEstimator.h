//===- ResourceEstimator.h - Registers and spills of a source ---*- C++ -*-===//
//
// Some rewrites trade registers for memory traffic and are only worth it if
// the compiler does not spill. A pass never runs a compiler itself: it asks
// the estimator the tool gives it (kopt-opt compiles with nvcc -Xptxas -v;
// kopt-search caches the answers by source; tests use a fake).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASS_RESOURCEESTIMATOR_H
#define KOPT_PASS_RESOURCEESTIMATOR_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt {

/// What ptxas reports for one kernel.
struct KernelResources {
  std::string Name; ///< demangled, e.g. "k(float*, int)", or plain "k"
  unsigned Registers = 0;
  uint64_t SharedBytes = 0;
  uint64_t StackFrameBytes = 0;
  uint64_t SpillStoreBytes = 0;
  uint64_t SpillLoadBytes = 0;

  bool usesLocalMemory() const {
    return StackFrameBytes || SpillStoreBytes || SpillLoadBytes;
  }
  /// More stack frame, spill stores or spill loads than Other.
  bool moreLocalMemoryThan(const KernelResources &Other) const {
    return StackFrameBytes > Other.StackFrameBytes ||
           SpillStoreBytes > Other.SpillStoreBytes ||
           SpillLoadBytes > Other.SpillLoadBytes;
  }
  /// "8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
  std::string localMemory() const {
    return std::to_string(StackFrameBytes) + " bytes stack frame, " +
           std::to_string(SpillStoreBytes) + " bytes spill stores, " +
           std::to_string(SpillLoadBytes) + " bytes spill loads";
  }
};

struct ResourceReport {
  std::vector<KernelResources> Kernels;
  /// The kernels called Name: the kernel, or each instantiation of the
  /// template kernel Name ("void Name<256>(float*)"), in the report's order.
  std::vector<const KernelResources *> kernels(llvm::StringRef Name) const;
};

/// Each kernel called Name in After (each instantiation of a template
/// kernel) with the same kernel in Before, null where Before has none: what
/// a rewrite's resource check compares.
std::vector<std::pair<const KernelResources *, const KernelResources *>>
matchKernels(const ResourceReport &Before, const ResourceReport &After,
             llvm::StringRef Name);

class ResourceEstimator {
public:
  virtual ~ResourceEstimator();
  /// Why no estimate can be made at all (e.g. no compiler), or nothing.
  virtual std::optional<std::string> unavailable() const = 0;
  /// Compiles Code (the text of the file at Path, whose directory is on the
  /// include path) for Arch and reports each kernel's resources; an error
  /// when the source does not compile or no compiler is available.
  virtual llvm::Expected<ResourceReport> estimate(llvm::StringRef Path,
                                                  llvm::StringRef Code,
                                                  llvm::StringRef Arch) = 0;
};

} // namespace kopt

#endif // KOPT_PASS_RESOURCEESTIMATOR_H
