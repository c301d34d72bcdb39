//===- Shim.h - The uniform C entry compiled next to a kernel ---*- C++ -*-===//
//
// Problems name any launcher: extern "C" or C++, typed or void* buffers,
// with or without a stream. The evaluator calls all of them through one C
// symbol that a generated shim defines: the shim #includes the kernel source
// and forwards each argument converted to the parameter's own type, which it
// reads from the entry's function type (so C++ overload rules and mangling
// never matter).
//
// ABI of the shim's symbol (kopt_shim_call):
//   int kopt_shim_call(void *const *Args, cudaStream_t Stream);
// Args[i] points to the value of problem argument i: a `void *` holding the
// device pointer for a buffer; for a scalar, a host value of the spec's
// dtype (f64 as double, f32/f16/bf16/fp8 as float, integers as their
// fixed-width type); nothing for the stream, which is Stream.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_SHIM_H
#define KOPT_EVAL_SHIM_H

#include "kopt/Spec/Problem.h"

#include <filesystem>
#include <string>

namespace kopt::eval {

inline constexpr const char *ShimCallSymbol = "kopt_shim_call";

/// The host type the shim reads a scalar of dtype \p T as.
const char *shimScalarHostType(spec::DType T);

/// The shim source that makes \p KernelSource callable through
/// kopt_shim_call with \p P's arguments.
std::string generateShim(const spec::Problem &P,
                         const std::filesystem::path &KernelSource);

} // namespace kopt::eval

#endif // KOPT_EVAL_SHIM_H
