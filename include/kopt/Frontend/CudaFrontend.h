//===- CudaFrontend.h - Parse CUDA sources with Clang -----------*- C++ -*-===//
//
// Parses one CUDA translation unit twice: once for the device with a single
// explicit GPU arch (kernel bodies, with __CUDA_ARCH__ defined) and once for
// the host (launch sites). LibTooling would otherwise keep only the first cc1
// job of a CUDA compile, which is the device side of the lowest arch.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_FRONTEND_CUDAFRONTEND_H
#define KOPT_FRONTEND_CUDAFRONTEND_H

#include "clang/Frontend/ASTUnit.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kopt {

/// How to invoke Clang on a CUDA source.
struct FrontendOptions {
  /// The one GPU arch kernel bodies are parsed for.
  std::string GpuArch = "sm_90";
  /// CUDA installation; empty means $CUDA_PATH, then /usr/local/cuda.
  std::string CudaPath;
  /// Clang's resource directory; empty means the one found next to the
  /// running tool, then the one kopt was configured with.
  std::string ResourceDir;
  /// Further Clang flags (after `--` on the command line, or translated from a
  /// compilation database).
  std::vector<std::string> ExtraArgs;
  /// The directory that keeps the precompiled prefix (PrefixHeader.h);
  /// empty parses without one. kopt-opt gives $KOPT_CACHE_DIR/pch (or the
  /// default cache directory's pch/), but not with --batch: a preamble
  /// chained to the prefix makes a batch's many re-parses slower than the
  /// in-memory preamble alone (32 jobs on softmax_f32: 3.7 s, not 2.9 s).
  std::string PrefixHeaderDir;
};

enum class CudaSide { Device, Host };

/// Collects a parse's error diagnostics as "file:line:col: error: message"
/// lines (the first few: one broken brace can produce hundreds).
class ErrorCollector : public clang::DiagnosticConsumer {
public:
  static constexpr size_t MaxKept = 10;
  void HandleDiagnostic(clang::DiagnosticsEngine::Level Level,
                        const clang::Diagnostic &Info) override;
  void clear() override;
  std::vector<std::string> Messages;
};

/// Both parses of one source text. Offsets in either AST index into Code.
/// Each side keeps a precompiled preamble (the CUDA headers), so parsing an
/// edited text again costs little.
struct ParsedSource {
  std::string Path;
  std::string Code;
  std::unique_ptr<ErrorCollector> DeviceErrors, HostErrors;
  std::unique_ptr<clang::ASTUnit> Device;
  std::unique_ptr<clang::ASTUnit> Host;

  clang::ASTUnit &side(CudaSide S) {
    return S == CudaSide::Device ? *Device : *Host;
  }
};

/// Error of a source that does not parse; carries Clang's diagnostics.
class ParseError : public llvm::ErrorInfo<ParseError> {
public:
  static char ID;
  ParseError(CudaSide Side, std::vector<std::string> Diagnostics)
      : Side(Side), Diagnostics(std::move(Diagnostics)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;
  CudaSide Side;
  std::vector<std::string> Diagnostics;
};

/// The top-level declarations written in \p Ctx's main file (expansion
/// locations: a macro expanded there counts), in order. The CUDA and C++
/// headers' declarations are not among them, nor read back from a
/// precompiled preamble to find them.
std::vector<clang::Decl *> mainFileDecls(clang::ASTContext &Ctx);

/// Every AST the frontend returns has its traversal scope (what matchers
/// and parent lookups walk) set to mainFileDecls: kopt asks about the main
/// file only, and a parent lookup over the whole translation unit (the
/// CUDA headers' thousands of declarations, deserialized from the
/// preamble) cost more than the rest of an analysis.
class CudaFrontend {
public:
  explicit CudaFrontend(FrontendOptions Opts);

  /// Parses Code (the contents of Path) for the device and the host, in
  /// parallel. Fails with a ParseError if either side reports an error.
  llvm::Expected<ParsedSource> parse(llvm::StringRef Path,
                                     llvm::StringRef Code) const;

  /// Parses NewCode in place of Source's text, reusing its preambles. On a
  /// ParseError, Source holds the failed parse: reparse it with a good text
  /// before using its ASTs again.
  llvm::Error reparse(ParsedSource &Source, llvm::StringRef NewCode) const;

  /// The Clang arguments used for one side, without the file name.
  std::vector<std::string> argsFor(CudaSide Side) const;

  const FrontendOptions &options() const { return Opts; }

private:
  llvm::Error parseSide(CudaSide Side, ParsedSource &Source) const;
  /// The side's errors when its last parse failed in the source itself
  /// (each error in the main file, none in the preamble): parsing again
  /// would only repeat them. None when another parse may succeed.
  std::optional<llvm::Error> brokenSource(CudaSide Side,
                                          ParsedSource &Source) const;
  /// One parse of a side with its arguments Args (argsFor) and the
  /// precompiled prefix Prefix if set (PrefixHeader.h); true if it failed.
  bool parseSideWith(CudaSide Side, ParsedSource &Source,
                     std::vector<std::string> Args,
                     const std::optional<std::string> &Prefix) const;
  llvm::Error reparseSide(CudaSide Side, ParsedSource &Source) const;
  /// The ParseError of a text that failed to parse, with its diagnostics.
  llvm::Error diagnose(CudaSide Side, llvm::StringRef Path,
                       llvm::StringRef Code) const;

  FrontendOptions Opts;
};

/// The CUDA installation to use: Explicit if set, else $CUDA_PATH, else
/// /usr/local/cuda.
std::string resolveCudaPath(llvm::StringRef Explicit);

/// Clang's resource directory: Explicit if set, else `<tool>/../lib/kopt/clang`
/// or `<tool>/clang-resource` next to the running executable (how a carried
/// static tool finds its headers), else the directory kopt was configured with.
/// Argv0 and MainAddr locate the running executable.
std::string resolveResourceDir(llvm::StringRef Explicit, const char *Argv0,
                               void *MainAddr);

} // namespace kopt

#endif // KOPT_FRONTEND_CUDAFRONTEND_H
