//===- ReferenceStore.h - The reference's outputs kept on disk --*- C++ -*-===//
//
// Internal to the worker. The reference's outputs for one (reference
// library, problem, seed base) are computed once, by a child that loads no
// candidate (`kopt-bench __evaluate` with a reference-only job), and read by
// every candidate's child of the run or search: a content-addressed entry
// per (shape, seed) and a manifest that lists them. An entry is written only
// where recomputing the reference costs more than reading it back (policy
// `auto`) or always (`always`); the manifest also says which entries were
// not worth keeping, so those are recomputed in the candidate's child.
// Entries carry a checksum computed on the GPU; a damaged one is recomputed.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_REFERENCESTORE_H
#define KOPT_LIB_EVAL_DEVICE_REFERENCESTORE_H

#include "Evaluation.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kopt::eval::device {

/// Device buffers for one run's outputs, indexed like P.Args (empty where
/// the argument is not an output).
using DeviceOutputs = std::vector<DeviceMemory>;
DeviceOutputs allocateOutputs(const ProblemArguments &Args);
/// Copies the argument buffers' outputs into \p Into (device to device).
void copyOutputs(ProblemArguments &Args, DeviceOutputs &Into,
                 cudaStream_t Stream);

class ReferenceStore {
public:
  /// No store: nothing is read or written.
  ReferenceStore() = default;
  /// The store whose manifest is \p ManifestPath; a manifest that exists
  /// but cannot be read leaves the store empty and says why in \p Note.
  ReferenceStore(std::string ManifestPath, std::string &Note);
  /// An empty store that will be saved to \p ManifestPath (the reference
  /// child's).
  static ReferenceStore create(std::string ManifestPath);

  bool enabled() const { return !ManifestPath.empty(); }
  /// The reference child found the reference writes every output element
  /// of shape \p Shape (the check under the second poison).
  bool writesAllChecked(std::size_t Shape) const;
  /// Whether an entry for (\p Shape, \p Seed) was kept.
  bool has(std::size_t Shape, std::uint64_t Seed) const;
  /// Reads the entry into \p Into; false, with \p Why, when it is missing,
  /// unreadable or fails its checksum.
  bool load(std::size_t Shape, std::uint64_t Seed, ProblemArguments &Args,
            DeviceOutputs &Into, cudaStream_t Stream, std::string &Why) const;

  // The reference child's side.
  /// Records (\p Shape, \p Seed): writes its entry when \p Keep.
  void add(std::size_t Shape, std::uint64_t Seed, ProblemArguments &Args,
           const DeviceOutputs &Outputs, double ReferenceMs, bool Keep,
           cudaStream_t Stream);
  void markWritesAllChecked(std::size_t Shape);
  /// Writes the manifest (aside, then renamed).
  void save() const;

  /// How many entries were read and recomputed, for the record.
  mutable int Loaded = 0;

private:
  std::string ManifestPath;
  nlohmann::json Manifest = {{"version", 1},
                             {"entries", nlohmann::json::object()},
                             {"writes_all_checked", nlohmann::json::array()}};
  std::string entryName(std::size_t Shape, std::uint64_t Seed) const;
};

/// Whether the policy keeps an entry: `always`, or `auto` when one run of
/// the reference took longer than reading \p Bytes back is expected to.
bool worthKeeping(const std::string &Policy, double ReferenceMs,
                  std::size_t Bytes);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_REFERENCESTORE_H
