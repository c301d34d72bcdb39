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
};

enum class CudaSide { Device, Host };

/// Both parses of one source text. The AST units refer to Code's buffer by
/// file name only, so offsets in either AST index into Code.
struct ParsedSource {
  std::string Path;
  std::string Code;
  std::unique_ptr<clang::ASTUnit> Device;
  std::unique_ptr<clang::ASTUnit> Host;

  clang::ASTUnit &side(CudaSide S) { return S == CudaSide::Device ? *Device : *Host; }
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

class CudaFrontend {
public:
  explicit CudaFrontend(FrontendOptions Opts);

  /// Parses Code (the contents of Path) for the device and the host, in
  /// parallel. Fails with a ParseError if either side reports an error.
  llvm::Expected<ParsedSource> parse(llvm::StringRef Path,
                                     llvm::StringRef Code) const;

  /// The Clang arguments used for one side, without the file name.
  std::vector<std::string> argsFor(CudaSide Side) const;

  const FrontendOptions &options() const { return Opts; }

private:
  llvm::Expected<std::unique_ptr<clang::ASTUnit>>
  parseSide(CudaSide Side, llvm::StringRef Path, llvm::StringRef Code) const;

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
