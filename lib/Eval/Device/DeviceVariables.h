//===- DeviceVariables.h - The candidate's device variables -----*- C++ -*-===//
//
// Internal to the capture child (CaptureWorker.cpp). A launcher may keep
// state in its `__device__` and `__constant__` variables: coefficients
// copied on the first call, a table copied from host memory on every call.
// The replay loads the candidate's device code afresh, so the capture names
// each such variable as the device code knows it and carries what is
// needed: the values the direct calls left (CapturedGlobal), and for a copy
// from host memory into one, its name and offset.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LIB_EVAL_DEVICE_DEVICEVARIABLES_H
#define KOPT_LIB_EVAL_DEVICE_DEVICEVARIABLES_H

#include "kopt/Eval/Capture.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kopt::eval::device {

struct DeviceVariable {
  std::string Name; // as the device code knows it
  std::uint64_t Address = 0;
  std::uint64_t Bytes = 0;
};

/// The device variables of the library loaded at \p Base from the file
/// \p LibraryPath: each data object of its symbol table that the CUDA
/// runtime knows as a registered variable's host shadow.
std::vector<DeviceVariable> findDeviceVariables(const std::string &LibraryPath,
                                                std::uintptr_t Base);

/// The variable holding \p Address, or nullptr.
const DeviceVariable *variableAt(const std::vector<DeviceVariable> &Variables,
                                 std::uint64_t Address);

/// Their values now; throws when they are more than a capture carries.
std::vector<CapturedGlobal>
snapshotVariables(const std::vector<DeviceVariable> &Variables);

} // namespace kopt::eval::device

#endif // KOPT_LIB_EVAL_DEVICE_DEVICEVARIABLES_H
