//===- Pass.h - The interface of a rewrite pass -----------------*- C++ -*-===//
//
// A pass reads the analysis, decides legality, and proposes edits plus
// remarks: applied (what and where) or missed (why not). It never writes
// files, never runs a compiler and never sees the result of its own edits:
// the pass manager applies them, re-parses and verifies, and rolls the pass
// back if the result is broken.
//
// Most passes work kernel by kernel: they derive from KernelPass<Options>,
// which reads the pass's typed options (generated from Passes.def) and calls
// runOnKernel for each kernel defined in the file.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASS_PASS_H
#define KOPT_PASS_PASS_H

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Analysis/Refusal.h"
#include "kopt/Frontend/CudaFrontend.h"
#include "kopt/Pass/Edits.h"
#include "kopt/Pass/PassOptions.h"
#include "kopt/Pass/Remark.h"
#include "kopt/Pass/ResourceEstimator.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace kopt {

class PassContext {
public:
  PassContext(ParsedSource &Source, const ProgramInfo &Info,
              const PassInstance &Params,
              ResourceEstimator *Estimator = nullptr)
      : Source(Source), Info(Info), Params(Params), Estimator(Estimator),
        Edits(Source.Path) {}

  ParsedSource &source() { return Source; }
  const ProgramInfo &info() const { return Info; }
  const PassInstance &params() const { return Params; }
  clang::ASTContext &deviceContext() { return Source.Device->getASTContext(); }
  clang::ASTContext &hostContext() { return Source.Host->getASTContext(); }
  /// Registers and spills of a candidate text; null when the tool has no
  /// compiler to ask.
  ResourceEstimator *estimator() const { return Estimator; }
  /// Why no resource estimate can be made at all (the tool has no
  /// estimator, or the estimator no compiler), or nothing.
  std::optional<std::string> whyNoEstimate() const;
  /// The estimator's report on Code, a candidate text of this file, for
  /// the parse's GPU arch; only when whyNoEstimate() is empty.
  llvm::Expected<ResourceReport> estimate(llvm::StringRef Code);

  /// Edits proposed so far. A pass that finds an edit cannot be made
  /// (conflict, macro) should emit a missed remark and drop that rewrite.
  EditSet &edits() { return Edits; }

  void applied(llvm::StringRef Function, LineCol Loc, const llvm::Twine &Msg);
  void missed(llvm::StringRef Function, LineCol Loc, const llvm::Twine &Msg);

  /// Adds a remark made elsewhere (for another context of this pass).
  void add(Remark R) { Remarks.push_back(std::move(R)); }

  std::vector<Remark> takeRemarks() { return std::move(Remarks); }
  EditSet takeEdits() { return std::move(Edits); }

private:
  void emit(Remark::Kind K, llvm::StringRef Function, LineCol Loc,
            const llvm::Twine &Msg);

  ParsedSource &Source;
  const ProgramInfo &Info;
  const PassInstance &Params;
  ResourceEstimator *Estimator;
  EditSet Edits;
  std::vector<Remark> Remarks;
};

class Pass {
public:
  virtual ~Pass();
  virtual void run(PassContext &Ctx) = 0;
};

/// One kernel as a KernelPass sees it: the pass context plus remarks that
/// name the kernel.
class KernelContext {
public:
  KernelContext(PassContext &Ctx, const KernelInfo &K) : Ctx(Ctx), K(K) {}

  PassContext &pass() { return Ctx; }
  const KernelInfo &kernel() const { return K; }
  const ProgramInfo &info() const { return Ctx.info(); }
  clang::ASTContext &deviceContext() { return Ctx.deviceContext(); }
  clang::ASTContext &hostContext() { return Ctx.hostContext(); }
  llvm::StringRef code() const { return Ctx.source().Code; }
  EditSet &edits() { return Ctx.edits(); }

  void applied(LineCol Loc, const llvm::Twine &Msg) {
    Ctx.applied(K.Name, Loc, Msg);
  }
  void applied(const llvm::Twine &Msg) { applied(K.Loc, Msg); }
  void missed(LineCol Loc, const llvm::Twine &Msg) {
    Ctx.missed(K.Name, Loc, Msg);
  }
  void missed(const llvm::Twine &Msg) { missed(K.Loc, Msg); }
  /// A missed remark for R, its message after Prefix.
  void refused(const Refusal &R, const llvm::Twine &Prefix = "") {
    missed(R.Loc.Line ? R.Loc : K.Loc, Prefix + R.Message);
  }

private:
  PassContext &Ctx;
  const KernelInfo &K;
};

/// Runs Run once for each instantiation of template kernel Template, each in
/// a view of the program where that instantiation stands for the template
/// (ProgramInfo::forInstance), and keeps what they propose only if it is
/// one rewrite of the template's text: the edits inside the template (and
/// just after it) the same for every instantiation, and none of them
/// writing a template parameter's argument in place of the parameter.
/// Edits elsewhere (each instantiation's launches) are all kept. Otherwise
/// nothing is kept and a missed remark says why. Remarks made by every
/// instantiation are kept once, the others name their instantiation. True
/// when the rewrite (or that there is none) was kept.
bool runOnInstances(PassContext &Ctx, const KernelInfo &Template,
                    llvm::function_ref<void(KernelContext &)> Run);

/// Runs Run on an explicit specialization of a template kernel
/// (`template <> __global__ void k<double>(...)`, a kernel with
/// TemplateArgs of its own) in a view where its launches are only those of
/// that specialization, not every launch of the name.
void runOnSpecialization(PassContext &Ctx, const KernelInfo &K,
                         llvm::function_ref<void(KernelContext &)> Run);

/// A pass that looks at one kernel at a time. OptionsT is the options struct
/// Passes.def generates for the pass (passes/PassOptions.h); StateT what it
/// remembers from one kernel to the next in a file (a helper it has added
/// already), which a template's instantiations each start from and which
/// is put back when their rewrite is not kept.
template <typename OptionsT, typename StateT = std::monostate>
class KernelPass : public Pass {
public:
  void run(PassContext &Ctx) final {
    Opts = OptionsT::from(Ctx.params());
    beginFile(Ctx);
    for (const KernelInfo &K : Ctx.info().Kernels) {
      if (!K.Decl || !K.Decl->getBody())
        continue;
      if (K.IsTemplate && rewritesInstances()) {
        const StateT Before = State;
        if (!runOnInstances(Ctx, K, [&](KernelContext &KC) {
              State = Before;
              runOnKernel(KC);
            }))
          State = Before;
        continue;
      }
      if (!K.IsTemplate && !K.TemplateArgs.empty()) {
        runOnSpecialization(Ctx, K,
                            [&](KernelContext &KC) { runOnKernel(KC); });
        continue;
      }
      KernelContext KC(Ctx, K);
      runOnKernel(KC);
    }
    endFile(Ctx);
  }

protected:
  const OptionsT &options() const { return Opts; }
  /// True for a pass whose runOnKernel decides on an instantiation of a
  /// template kernel as on any kernel (runOnInstances): what it remembers
  /// from kernel to kernel is in State. Other passes see a template as
  /// written (IsTemplate) and decide for it.
  virtual bool rewritesInstances() const { return false; }
  StateT State;
  virtual void runOnKernel(KernelContext &KC) = 0;
  /// Hooks around the kernels, for passes that decide per file.
  virtual void beginFile(PassContext &) {}
  virtual void endFile(PassContext &) {}

private:
  OptionsT Opts;
};

/// A pass that decides over the whole file (helpers shared by kernels,
/// trees in __device__ functions). OptionsT as for KernelPass.
template <typename OptionsT> class FilePass : public Pass {
public:
  void run(PassContext &Ctx) final {
    Opts = OptionsT::from(Ctx.params());
    runOnFile(Ctx);
  }

protected:
  const OptionsT &options() const { return Opts; }
  virtual void runOnFile(PassContext &Ctx) = 0;

private:
  OptionsT Opts;
};

} // namespace kopt

#endif // KOPT_PASS_PASS_H
