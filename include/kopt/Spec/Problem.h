//===- Problem.h - A benchmark problem as problem.json states it -*- C++
//-*-===//
//
// The in-memory form of problem.json (docs/problem-spec.md): the entry
// function, its arguments in order, the shapes to check and time, and the
// tolerance. Everything here is plain data; ProblemParser fills it and
// ProblemValidator checks it against the source.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_PROBLEM_H
#define KOPT_SPEC_PROBLEM_H

#include "kopt/Spec/DType.h"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kopt::spec {

/// How a buffer's elements are drawn before each run.
struct Init {
  enum class Kind { Normal, Uniform, RandInt, Constant };
  Kind Dist = Kind::Normal;
  /// Normal: mean, std. Uniform and RandInt: lo, hi (RandInt excludes hi).
  /// Constant: value in First.
  double First = 0.0;
  double Second = 1.0;
};

struct Tolerance {
  double Atol = 1e-5;
  double Rtol = 1e-5;
};

/// One extent of a buffer: a size name of the shape or a literal count.
struct Dim {
  std::string SizeName; // empty for a literal
  std::int64_t Literal = 0;
};

enum class Intent { In, Out, InOut };

struct Arg {
  enum class Kind { Buffer, Scalar, Stream };
  std::string Name;
  Kind ArgKind = Kind::Buffer;
  DType Type = DType::F32; // buffers and scalars

  // Buffers.
  std::vector<Dim> Shape;
  Init Initializer;
  Intent BufferIntent = Intent::In;
  std::optional<Tolerance> OwnTolerance;

  // Scalars: a literal number, or the name of a size of the shape.
  double Value = 0.0;
  std::string ValueSizeName;

  bool isBuffer() const { return ArgKind == Kind::Buffer; }
  bool isScalar() const { return ArgKind == Kind::Scalar; }
  bool isStream() const { return ArgKind == Kind::Stream; }
  bool isOutput() const { return isBuffer() && BufferIntent != Intent::In; }
  bool isInput() const { return isBuffer() && BufferIntent != Intent::Out; }
};

/// One problem size: named extents, in the order problem.json lists them.
struct Shape {
  std::vector<std::pair<std::string, std::int64_t>> Sizes;

  std::optional<std::int64_t> size(const std::string &Name) const;
  /// "n=16777216, m=3" for messages.
  std::string describe() const;
};

/// FileCheck patterns a candidate's compiler output must match
/// (problem.json "filecheck"); a candidate that fails them is rejected.
struct FileCheckSpec {
  enum class Input { Ptxas, Sass, Ptx };
  /// nvcc's ptxas -v output, cuobjdump -sass, or the PTX (nvcc -ptx).
  Input Over = Input::Ptxas;
  std::string File;                  // the check file, relative to Directory
  std::vector<std::string> Prefixes; // empty: CHECK
};

struct Problem {
  std::string Name;
  std::string Source;    // relative to Directory
  std::string Entry;     // host launcher function
  std::string Reference; // relative to Directory; defaults to Source
  std::vector<Arg> Args;
  std::vector<Shape> Shapes;
  std::size_t BenchmarkShape = 0;
  Tolerance DefaultTolerance;

  // Extensions (docs/problem-spec.md).
  std::string BytesExpression; // bytes moved per run; empty: from buffers
  std::string FlopsExpression; // floating-point operations per run
  std::vector<std::string> AllowLibraries;
  bool FastMath = false;
  double TimeoutSeconds = 60.0;
  std::vector<std::string> NvccFlags;
  int Seeds = 3;
  std::vector<FileCheckSpec> FileChecks;

  std::filesystem::path Directory; // where problem.json lives
  std::filesystem::path SpecPath;  // problem.json itself

  std::filesystem::path sourcePath() const { return Directory / Source; }
  std::filesystem::path referencePath() const { return Directory / Reference; }
  /// True when the entry takes a cudaStream_t; otherwise it runs on the
  /// legacy default stream and synchronizes itself.
  bool hasStreamArg() const;
};

/// Elements of buffer \p A at shape \p S (0 if a size is unknown).
std::int64_t elementCount(const Arg &A, const Shape &S);

/// Bytes of buffer \p A at shape \p S, or nullopt when the element count or
/// the byte size overflows int64 (or a size is unknown).
std::optional<std::int64_t> checkedBufferBytes(const Arg &A, const Shape &S);

/// The value scalar \p A takes at shape \p S.
double scalarValue(const Arg &A, const Shape &S);

/// Bytes one run moves at shape \p S: the problem's "bytes" expression, or
/// every input read once and every output written once.
double bytesMoved(const Problem &P, const Shape &S);

/// Floating-point operations of one run, if the problem states them.
std::optional<double> flopCount(const Problem &P, const Shape &S);

} // namespace kopt::spec

#endif // KOPT_SPEC_PROBLEM_H
