//===- ObjectRules.h - Host calls read off the compiled library -*- C++ -*-===//
//
// What a candidate's host code calls is decided from the shared library
// nvcc built, not from the names in its text: a local called `system` or an
// event called `fork` calls nothing, while a call through a macro, a pasted
// token or a header does leave an import behind. The library links the
// CUDA runtime, the C and C++ libraries dynamically (`-cudart shared`), so
// every function of theirs it calls, or whose address it takes, is an
// undefined symbol of its dynamic symbol table; its own functions are
// hidden and bound locally (-fvisibility=hidden, -Bsymbolic).
//
// Rules (names as in StaticChecks.h):
//   process-control        imports of HostApiRules.h's list (processes,
//                          threads, signals, tracing, page protection);
//                          system-call or timer instructions in host code
//                          (inline assembly), read with objdump
//   baseline-interference  imports that change device state for later work
//   vendor-library         imports of a vendor library problem.json does
//                          not allow, of a code loader (dlopen, dlsym,
//                          cuModuleLoad*, NVRTC, nvJitLink), or of a driver
//                          entry-point lookup unless every driver function
//                          name among the library's strings is a pointer
//                          query (and there is one)
//   timer-read             imports of a host clock (clock, clock_gettime,
//                          gettimeofday, std::chrono's now,
//                          cudaEventElapsedTime); rdtsc in host code
//
// A problem that allows a library (allow_libraries) gets the library's own
// imports too (thrust imports cudaSetDevice and dlsym): there the source
// rules decide, as before, and the object's findings are notes.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_OBJECTRULES_H
#define KOPT_EVAL_OBJECTRULES_H

#include "kopt/Eval/StaticChecks.h"
#include "kopt/Spec/Problem.h"

#include <optional>
#include <string>
#include <vector>

namespace kopt::eval {

/// What a linked ELF shared library refers to outside itself.
struct ObjectImports {
  std::vector<std::string> Undefined; // dynamic symbols it imports
  std::vector<std::string> Strings;   // NUL-terminated strings of .rodata
};

/// Reads \p File's bytes; nullopt with \p Error when they are not a 64-bit
/// ELF library with a dynamic symbol table.
std::optional<ObjectImports> readObjectImports(const std::string &File,
                                               std::string &Error);

/// The rules over \p Imports, and over \p Disassembly (objdump -d of the
/// library's .text; empty when objdump is not available).
std::vector<RuleViolation> checkObjectRules(const ObjectImports &Imports,
                                            const std::string &Disassembly,
                                            const spec::Problem &P);

struct ObjectInspection {
  /// false: the library or its instructions could not be read (Error);
  /// Violations then holds what could be decided.
  bool Inspected = false;
  std::string Error;
  std::vector<RuleViolation> Violations;
};

/// Reads the library at \p LibraryPath and applies the rules; \p Objdump
/// (may be empty) disassembles its host code.
ObjectInspection inspectHostObject(const std::string &LibraryPath,
                                   const std::string &Objdump,
                                   const spec::Problem &P);

/// What a candidate's violations come to: those that reject it, and the
/// second opinions left as notes (rules host-api-source, host-api-object).
struct SettledRules {
  std::vector<RuleViolation> Rejections;
  std::vector<RuleViolation> Notes;
};

/// Settles the source, preprocessed-source and object rules' findings
/// together: one rejection a rule and line (one a message where there is no
/// line), one note a message. A name in the source rejects only where the
/// object could not decide (not inspected, or allow_libraries lists a
/// library whose own imports are in the object: there the object's
/// findings are the notes).
SettledRules settleRules(std::vector<RuleViolation> Violations,
                         const ObjectInspection &Object,
                         const spec::Problem &P);

} // namespace kopt::eval

#endif // KOPT_EVAL_OBJECTRULES_H
