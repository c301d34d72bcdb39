//===- Pass.h - The interface of a rewrite pass -----------------*- C++ -*-===//
//
// A pass reads the analysis, decides legality, and proposes edits plus
// remarks: applied (what and where) or missed (why not). It never writes
// files and never sees the result of its own edits: the driver applies them,
// re-parses and verifies, and rolls the pass back if the result is broken.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PIPELINE_PASS_H
#define KOPT_PIPELINE_PASS_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pipeline/Edits.h"
#include "kopt/Pipeline/Pipeline.h"
#include "kopt/Pipeline/Remark.h"

#include <memory>
#include <vector>

namespace kopt {

class PassContext {
public:
  PassContext(ParsedSource &Source, const ProgramInfo &Info,
              const PassInstance &Params)
      : Source(Source), Info(Info), Params(Params), Edits(Source.Path) {}

  ParsedSource &source() { return Source; }
  const ProgramInfo &info() const { return Info; }
  const PassInstance &params() const { return Params; }
  clang::ASTContext &deviceContext() { return Source.Device->getASTContext(); }
  clang::ASTContext &hostContext() { return Source.Host->getASTContext(); }

  /// Edits proposed so far. A pass that finds an edit cannot be made
  /// (conflict, macro) should emit a missed remark and drop that rewrite.
  EditSet &edits() { return Edits; }

  void applied(llvm::StringRef Function, LineCol Loc, const llvm::Twine &Msg);
  void missed(llvm::StringRef Function, LineCol Loc, const llvm::Twine &Msg);

  std::vector<Remark> takeRemarks() { return std::move(Remarks); }
  EditSet takeEdits() { return std::move(Edits); }

private:
  void emit(Remark::Kind K, llvm::StringRef Function, LineCol Loc,
            const llvm::Twine &Msg);

  ParsedSource &Source;
  const ProgramInfo &Info;
  const PassInstance &Params;
  EditSet Edits;
  std::vector<Remark> Remarks;
};

class Pass {
public:
  virtual ~Pass();
  virtual void run(PassContext &Ctx) = 0;
};

/// Builds the pass registered under Name (see passes/Passes.def); defined by
/// the passes library.
std::unique_ptr<Pass> createPass(llvm::StringRef Name);

} // namespace kopt

#endif // KOPT_PIPELINE_PASS_H
