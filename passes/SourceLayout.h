//===- SourceLayout.h - Offsets and indentation for text rewrites -*- C++
//-*-===//
//
// Passes that rebuild a loop or a block as text (vectorize-loads,
// register-cache, warp-reduce) need the same few things: where a statement
// ends (through its ';'), the indentation of a line, copied code nested one
// level deeper, a slice of the file with some of its ranges replaced,
// where a file-scope helper goes, and the texts of a launch that a pass
// writes again (coalesce, row-reduce).
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_SOURCELAYOUT_H
#define KOPT_PASSES_SOURCELAYOUT_H

#include "kopt/Analysis/CudaAST.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kopt {

/// Character offsets [Begin, End) of a statement in the main file, through
/// the trailing semicolon of a statement that does not end in a `}`; none
/// if it is written in a macro.
std::optional<std::pair<unsigned, unsigned>>
stmtOffsets(const clang::Stmt *S, clang::ASTContext &Ctx);

/// Like stmtOffsets, for a loop whose whole head is one macro's expansion
/// and whose body follows it in the file (`CUDA_KERNEL_LOOP(i, n) {...}`):
/// from the macro's name through the body, for an edit that replaces the
/// loop (the macro stays defined, so its text may be kept in a copy).
std::optional<std::pair<unsigned, unsigned>>
macroHeadLoopOffsets(const clang::ForStmt *F, clang::ASTContext &Ctx);

/// Character offsets [Begin, End) of an expression in the main file.
std::optional<std::pair<unsigned, unsigned>>
exprOffsets(const clang::Expr *E, clang::ASTContext &Ctx);

/// Like exprOffsets, but E may begin or end with a whole macro expansion
/// (`(n + BLOCK - 1) / BLOCK`): the text it expands from, for an edit that
/// keeps that text as written (wraps it) rather than rewrites inside it.
std::optional<std::pair<unsigned, unsigned>>
expandedExprOffsets(const clang::Expr *E, clang::ASTContext &Ctx);

/// A read of threadIdx, blockIdx, blockDim or gridDim and its offsets
/// (none when it is written in a macro).
struct BuiltinUse {
  BuiltinRef Ref;
  unsigned Begin = 0, End = 0;
  bool InMacro = false;
};

/// Every builtin read in S (the builtin itself, not the casts around it),
/// in source order.
std::vector<BuiltinUse> builtinUses(const clang::Stmt *S,
                                    clang::ASTContext &Ctx);

/// True when one of Uses is written in a macro.
bool anyInMacro(const std::vector<BuiltinUse> &Uses);

/// Leading whitespace of the line holding Offset.
std::string indentAt(llvm::StringRef Code, unsigned Offset);

/// Leading whitespace of the main-file line where \p Loc is expanded.
std::string indentOf(clang::SourceLocation Loc, const clang::ASTContext &Ctx);

/// A kernel's definition as the passes that write a renamed copy of it
/// (row-reduce, thread-per-block, cluster-split) see it: [Begin, End) from
/// its first token (`template` for a template or an instantiation of one)
/// through its closing brace, its name at [NameAt,
/// NameEnd), BodyStart just inside its opening brace, and the indentation
/// of its body's statements.
struct DefinitionLayout {
  const clang::CompoundStmt *Body = nullptr;
  unsigned Begin = 0, End = 0, NameAt = 0, NameEnd = 0, BodyStart = 0;
  std::string Indent;
};
/// F's layout; none when F has no compound body, part of it from its name
/// to its closing brace is written in a macro, or its name does not lie
/// inside it.
std::optional<DefinitionLayout> definitionLayout(const clang::FunctionDecl *F,
                                                 clang::ASTContext &Ctx);
/// Adds Extra after every newline that starts a non-empty line.
std::string reindent(llvm::StringRef Text, llvm::StringRef Extra);

/// Where file-scope text (a helper function) goes so that every one of
/// Users sees it: before the earliest top-level declaration holding one of
/// them (the namespace, class or `extern "C"` block it is in); invalid when
/// Users is empty.
clang::SourceLocation
fileScopeBefore(const std::vector<const clang::Decl *> &Users,
                const clang::ASTContext &Ctx);

/// True if the file declares a function (or function template) Name at
/// file scope: a helper a pass added on an earlier run.
bool declaresFileScopeFunction(const clang::ASTContext &Ctx,
                               llvm::StringRef Name);

/// Code[Begin, End) with the (offset, length, text) replacements applied.
std::string
splice(llvm::StringRef Code, unsigned Begin, unsigned End,
       std::vector<std::tuple<unsigned, unsigned, std::string>> Replacements);

/// The statements of a loop body (without the braces of a compound body,
/// trimmed; ";" when there are none) with the replacements applied, nested
/// for a new position: lines after the first are moved from the body's
/// indentation to Indent, and the caller writes Indent before the first.
std::string bodyStatements(
    llvm::StringRef Code, const clang::Stmt *Body,
    std::vector<std::tuple<unsigned, unsigned, std::string>> Replacements,
    llvm::StringRef Indent, clang::ASTContext &Ctx);

/// The edit that makes a copy of F's definition declare
/// __launch_bounds__(Threads): F's own attribute replaced, or one inserted
/// before F's name; none when F's attribute is not written in the main file.
std::optional<std::tuple<unsigned, unsigned, std::string>>
launchBoundsReplacement(const clang::FunctionDecl *F, unsigned Threads,
                        clang::ASTContext &Ctx);

/// Character offsets [Begin, End) of attribute A as written in the main
/// file (the invocation of the macro that spells it); none elsewhere.
std::optional<std::pair<unsigned, unsigned>>
attrOffsets(const clang::Attr *A, clang::ASTContext &Ctx);

/// A launch `callee<<<config>>>(args)` as written, for passes that re-launch
/// it: the callee's text, the configuration arguments the user wrote
/// (grid, block, then shared bytes and stream where given) and the call's
/// arguments.
struct LaunchPieces {
  /// The kernel's name as written (`ns::k`), and the template arguments
  /// written after it (`<float, 256>`, or empty).
  std::string Callee, CalleeArgs;
  /// The launched kernel, its name with Suffix appended (a renamed copy).
  std::string callee(llvm::StringRef Suffix = "") const {
    return Callee + Suffix.str() + CalleeArgs;
  }
  std::vector<std::string> Config; ///< at least grid and block
  std::vector<std::string> Args;
  std::vector<const clang::Expr *> ConfigExprs; ///< as Config
};

/// The pieces of Call; none when part of it is written in a macro or an
/// argument is defaulted (it has no text).
std::optional<LaunchPieces> launchPieces(const clang::CUDAKernelCallExpr *Call,
                                         clang::ASTContext &HC);

} // namespace kopt

#endif // KOPT_PASSES_SOURCELAYOUT_H
