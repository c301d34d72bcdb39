//===- Capture.h - A candidate's GPU work, recorded for replay --*- C++ -*-===//
//
// Containment (`kopt-bench run --contain`, docs/evaluator.md): the
// candidate's host code runs only in a capture child (`kopt-bench
// __capture`), which calls its entry once per shape under CUDA stream
// capture and writes down the graph it produced: kernels by name with their
// launch shape and parameter bytes, memsets, device-to-device copies and
// their dependencies, plus the device memory those refer to. The evaluation
// child never loads the candidate's host code: it loads the candidate's
// device code only and replays the recorded graph on its own buffers, with
// every address the capture saw translated into its own memory.
//
// The capture child runs the candidate's code, so what it writes is
// untrusted: captureFromJson checks every field and bound, and the replay
// checks each kernel's parameters against the device code it loaded. A lie
// can only make the replay compute something else (caught by the
// correctness check) or fail; it cannot reach the judge's clock or verdict.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_CAPTURE_H
#define KOPT_EVAL_CAPTURE_H

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kopt::eval {

/// Device memory the capture saw: a buffer argument (Arg >= 0: the problem
/// argument it was), or memory the entry itself allocated (Arg = -1), which
/// the replay allocates too (zero-filled, kept across calls).
struct CapturedRange {
  int Arg = -1;
  std::uint64_t Address = 0;
  std::uint64_t Bytes = 0;
};

enum class CapturedNodeKind { Kernel, Memset, Copy, Empty };

struct CapturedNode {
  CapturedNodeKind Kind = CapturedNodeKind::Empty;
  /// Indices of earlier nodes this one waits for.
  std::vector<std::size_t> Dependencies;

  // Kernel: its (mangled) name, launch shape and each parameter's bytes.
  std::string Kernel;
  std::array<unsigned, 3> Grid = {1, 1, 1};
  std::array<unsigned, 3> Block = {1, 1, 1};
  unsigned SharedBytes = 0;
  std::vector<std::vector<unsigned char>> Params;

  // Memset (Destination, Value, ElementSize, Width, Height, Pitch) and
  // one-dimensional copy (Destination, Width; Source, from device memory,
  // or HostBytes, from host memory by value). A copy into a device variable
  // names it (Symbol), Destination then being the offset in it.
  std::uint64_t Destination = 0;
  std::uint64_t Source = 0;
  unsigned Value = 0;
  unsigned ElementSize = 1;
  std::uint64_t Width = 0;
  std::uint64_t Height = 1;
  std::uint64_t Pitch = 0;
  std::vector<unsigned char> HostBytes;
  std::string Symbol;
};

/// One shape's call: its scalar arguments (the 8-byte slots the shim reads,
/// in argument order, buffers skipped) identify it at replay.
struct CapturedShape {
  std::size_t Shape = 0;
  std::vector<std::uint64_t> Scalars;
  std::vector<CapturedRange> Ranges;
  std::vector<CapturedNode> Nodes; // in dependency order
};

/// Something the capture child found that makes the candidate unacceptable,
/// with the rule it breaks ("not-capturable", "baseline-interference",
/// "uncaptured-work") and what it saw.
struct CaptureFinding {
  std::string Rule;
  std::string Evidence;
};

/// A device variable of the candidate's (`__device__`, `__constant__`) as
/// its direct calls left it: state a launcher sets up once (coefficients
/// copied to a `__constant__` on the first call) that no later graph holds.
/// The replay writes it into its own copy of the device code, by name.
struct CapturedGlobal {
  std::string Name;
  std::vector<unsigned char> Bytes;
};

struct CaptureReport {
  std::vector<CapturedShape> Shapes;
  std::vector<CapturedGlobal> Globals;
  std::vector<CaptureFinding> Findings;
  /// Whether GPU work outside the captured calls could be seen (CUPTI).
  bool ActivityTraced = false;
  /// How the capture child's file system and system calls were confined
  /// ("landlock", "seccomp", ...), for the record.
  std::vector<std::string> Confinement;
};

/// Bounds on what the parser accepts.
struct CaptureLimits {
  static constexpr std::size_t MaxShapes = 64;
  static constexpr std::size_t MaxNodes = 4096;
  static constexpr std::size_t MaxParamBytes = 32764; // CUDA's own limit
  static constexpr std::size_t MaxRanges = 256;
  static constexpr std::size_t MaxNameBytes = 4096;
  static constexpr std::size_t MaxFindings = 64;
  static constexpr std::size_t MaxHostCopyBytes = 64 * 1024;
  static constexpr std::size_t MaxGlobals = 256;
  static constexpr std::size_t MaxGlobalBytes = 4u << 20; // all of them
};

nlohmann::json captureToJson(const CaptureReport &Report);

/// Reads what a capture child wrote. Every field is checked (types, bounds,
/// dependencies pointing backwards, ranges that do not overlap); nullopt
/// with \p Error saying what is wrong otherwise.
std::optional<CaptureReport> captureFromJson(const nlohmann::json &J,
                                             std::string &Error);

/// Empty when two captures of one shape on different buffers did the same
/// work: the same nodes in the same order (kernels by name and launch
/// shape, memsets and copies by size), waiting for the same nodes; else
/// the first difference. Parameter bytes are not compared: the buffers
/// moved.
std::string captureDifference(const CapturedShape &A, const CapturedShape &B);

/// The range holding \p Address, or else the one it is one past the end of
/// (end pointers), or nullptr.
const CapturedRange *findRange(const CapturedShape &S, std::uint64_t Address);

} // namespace kopt::eval

#endif // KOPT_EVAL_CAPTURE_H
