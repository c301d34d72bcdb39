//===- Options.h - Each pass's typed options, from Passes.def ---*- C++ -*-===//
//
// For every KOPT_PASS(NAME, ID, ...) in Passes.def this declares
//
//   struct IDOptions {
//     <C++ type of each parameter> FIELD;   // one per KOPT_PASS_PARAM
//     static IDOptions from(const PassInstance &);
//   };
//
// so a pass reads `options().Width` (a std::optional<uint64_t>, empty for
// "auto") instead of looking a string key up.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_OPTIONS_H
#define KOPT_PASSES_OPTIONS_H

#include "kopt/Pass/PassOptions.h"

namespace kopt {

#define KOPT_PASS(NAME, ID, SUMMARY) struct ID##Options {
#define KOPT_PASS_PARAM(ID, FIELD, KEY, TYPE, DEFAULT, EFFECT, SEARCH, HELP)   \
  ParamCType<ParamType::TYPE>::type FIELD{};
#define KOPT_PASS_END(ID)                                                      \
  static ID##Options from(const PassInstance &Instance);                       \
  }                                                                            \
  ;
#include "Passes.def"

#define KOPT_PASS(NAME, ID, SUMMARY)                                           \
  inline ID##Options ID##Options::from(                                        \
      [[maybe_unused]] const PassInstance &Instance) {                         \
    ID##Options O;
#define KOPT_PASS_PARAM(ID, FIELD, KEY, TYPE, DEFAULT, EFFECT, SEARCH, HELP)   \
  O.FIELD = Instance.get<ParamType::TYPE>(KEY);
#define KOPT_PASS_END(ID)                                                      \
  return O;                                                                    \
  }
#include "Passes.def"

} // namespace kopt

#endif // KOPT_PASSES_OPTIONS_H
