//===- DeviceNames.cpp - A variable's name on each side of nvcc -----------===//
#include "kopt/Eval/DeviceNames.h"

#include <algorithm>
#include <cctype>

namespace kopt::eval {

namespace {
/// The last name of a mangled one, length included ("12Coefficients" of
/// `_ZN51_GLOBAL__N__..._cu_78c9db6fL12CoefficientsE`, "1c" of `_ZL1c`), or
/// empty.
std::string lastComponent(const std::string &Mangled) {
  if (Mangled.rfind("_Z", 0) != 0)
    return "";
  std::size_t End = Mangled.size() - (Mangled.back() == 'E' ? 1 : 0);
  for (std::size_t P = End; P-- > 2;) {
    if (!std::isdigit(static_cast<unsigned char>(Mangled[P])) ||
        std::isdigit(static_cast<unsigned char>(Mangled[P - 1])))
      continue;
    std::size_t Digits = P;
    while (Digits < End &&
           std::isdigit(static_cast<unsigned char>(Mangled[Digits])))
      ++Digits;
    if (Digits - P <= 6 &&
        std::stoul(Mangled.substr(P, Digits - P)) == End - Digits)
      return Mangled.substr(P, End - P);
  }
  return "";
}

} // namespace

/// The name the device code knows a variable by, from its host shadow's
/// name \p Host: the same, unless it has internal linkage, which nvcc names
/// differently on each side (`_ZN51_GLOBAL__N__..._cu_78c9db6fL1cE` on
/// the host, `_ZN49_INTERNAL_..._cu_78c9db6f51_GLOBAL__N__..._1cE` in the
/// device code). The device name is a string the library registers the
/// variable with: among \p Strings, the internal one ending in the same
/// last name, if only one does.
std::string deviceName(const std::string &Host,
                       const std::vector<std::string> &Strings) {
  if (std::find(Strings.begin(), Strings.end(), Host) != Strings.end())
    return Host;
  std::string Last = lastComponent(Host);
  if (Last.empty())
    return Host;
  std::string Found;
  for (const std::string &S : Strings) {
    bool Internal = S.find("_INTERNAL_") != std::string::npos ||
                    S.find("_GLOBAL__N_") != std::string::npos;
    if (!Internal || S == Host || lastComponent(S) != Last)
      continue;
    if (!Found.empty() && Found != S)
      return Host; // ambiguous
    Found = S;
  }
  return Found.empty() ? Host : Found;
}

} // namespace kopt::eval
