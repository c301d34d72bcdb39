//===- HiddenPointers.h - Memory past a kernel's parameters -*- C++ -*-===//
//
// `__restrict__` on a kernel's pointer parameters is proved by showing that
// they point into distinct allocations (at the launches, or at run time).
// That proves nothing about memory the kernel reaches through a pointer it
// did not get as a parameter: one stored in memory (a pointer table, a
// struct passed by value), a global pointer variable, or an integer cast to
// a pointer. Such a pointer may alias a parameter's allocation, and a store
// through one would break the promise. restrict-const asks this first.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_ANALYSIS_HIDDENPOINTERS_H
#define KOPT_ANALYSIS_HIDDENPOINTERS_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"

#include <optional>
#include <string>

namespace kopt {

/// True if a value of type T holds a pointer or reference (in a field, a
/// base or an array element); incomplete records count as holding one.
bool holdsPointer(clang::QualType T, const clang::ASTContext &Ctx);

/// Why Kernel may reach memory through a pointer other than one based on a
/// pointer parameter; none when every pointer it can use is: no parameter
/// whose pointee or value holds a pointer, and in its body and in the
/// functions of the main file it calls, no variable of static storage that
/// holds one and no integer made a pointer.
std::optional<std::string> hiddenPointer(const clang::FunctionDecl *Kernel,
                                         clang::ASTContext &Ctx);

} // namespace kopt

#endif // KOPT_ANALYSIS_HIDDENPOINTERS_H
