//===- DeviceNames.h - A variable's name on each side of nvcc ---*- C++ -*-===//
//
// nvcc registers each `__device__`/`__constant__` variable with the CUDA
// runtime under the name its device code knows it by; the host shadow the
// runtime keys it on has a host name. They are the same, except for
// variables of internal linkage, which each side names after the
// translation unit differently.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_DEVICENAMES_H
#define KOPT_EVAL_DEVICENAMES_H

#include <string>
#include <vector>

namespace kopt::eval {

/// The name the device code knows a variable by, from its host shadow's
/// name \p Host and the host library's strings \p Strings (where the
/// registration strings are).
std::string deviceName(const std::string &Host,
                       const std::vector<std::string> &Strings);

} // namespace kopt::eval

#endif // KOPT_EVAL_DEVICENAMES_H
