//===- ReplayedEntry.h - A candidate's captured work, replayed --*- C++ -*-===//
//
// Internal to the worker, under containment (include/kopt/Eval/Capture.h):
// the candidate's device code is loaded from its library's fat binary (no
// host code runs), and each call replays the graph the capture child
// recorded for the call's shape, with the capture's addresses translated
// into this call's buffers. A capture that does not fit the device code
// (an unknown kernel, parameters of other sizes, an address in no known
// memory where one is required) ends the evaluation: rejected,
// `not-replayable`.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_REPLAYEDENTRY_H
#define KOPT_LIB_EVAL_DEVICE_REPLAYEDENTRY_H

#include "DeviceSupport.h"

#include "kopt/Eval/Capture.h"
#include "kopt/Eval/WorkerJob.h"
#include "kopt/Spec/Problem.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace kopt::eval::device {

class ReplayedEntry : public Entry {
public:
  /// \p FatBinaries: the candidate library's device code.
  ReplayedEntry(const spec::Problem &P, std::vector<std::string> FatBinaries,
                CaptureReport Capture);
  ~ReplayedEntry() override;
  void call(void *const *Args, cudaStream_t Stream) const override;

private:
  struct Instance;
  const spec::Problem &P;
  CaptureReport Capture;
  std::vector<std::string> FatBinaries; // kept while the libraries are loaded
  std::vector<cudaLibrary_t> Libraries;
  mutable std::vector<std::unique_ptr<Instance>> Instances;

  const CapturedShape &shapeFor(void *const *Args) const;
  std::unique_ptr<Instance> instantiate(const CapturedShape &S,
                                        void *const *Args,
                                        cudaStream_t Stream) const;
  cudaKernel_t kernel(const std::string &Name) const;
  /// The device variable \p Name of the loaded code: address and size.
  std::optional<std::pair<void *, std::size_t>>
  findVariable(const std::string &Name) const;
  /// \p Offset bytes into the device variable \p Name, which must hold
  /// \p Extent bytes from there.
  void *variable(const std::string &Name, std::uint64_t Offset,
                 std::uint64_t Extent) const;
};

/// The reference under containment: each call is captured once (per
/// shape and buffer set) into a CUDA graph and replayed, so that the
/// baseline is launched the way the replayed candidate is (one graph launch
/// each) and microsecond kernels are compared on equal terms. A reference
/// whose work cannot be captured is called directly (GraphFallback says
/// why).
class GraphedEntry : public Entry {
public:
  GraphedEntry(const spec::Problem &P, std::unique_ptr<Entry> Inner)
      : P(P), Inner(std::move(Inner)) {}
  ~GraphedEntry() override;
  void call(void *const *Args, cudaStream_t Stream) const override;
  const std::string &graphFallback() const { return GraphFallback; }

private:
  const spec::Problem &P;
  std::unique_ptr<Entry> Inner;
  mutable std::vector<std::pair<std::vector<std::uint64_t>, cudaGraphExec_t>>
      Graphs;
  mutable std::string GraphFallback;
};

/// What identifies a call for a cached graph: its scalar slots and buffer
/// pointers, in argument order.
std::vector<std::uint64_t> callKey(const spec::Problem &P, void *const *Args);

/// Throws Verdict (rejected, `tampering`) unless the file at \p Path still
/// has SHA-256 \p Sha256 (the parent's, taken before candidate code ran).
/// Returns the bytes it hashed.
std::string readUnchanged(const std::string &Path, const std::string &Sha256,
                          const std::string &What);

/// The contained candidate of \p Job: its library's device code (checked
/// against the job's hash) and its checked capture.
std::unique_ptr<Entry> loadReplayedCandidate(const spec::Problem &P,
                                             const WorkerJob &Job);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_REPLAYEDENTRY_H
