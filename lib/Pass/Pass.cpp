//===- Pass.cpp - The interface of a rewrite pass -------------------------===//

#include "kopt/Pass/Pass.h"

namespace kopt {

Pass::~Pass() = default;

void PassContext::emit(Remark::Kind K, llvm::StringRef Function, LineCol Loc,
                       const llvm::Twine &Msg) {
  Remark R;
  R.K = K;
  R.Pass = Params.name().str();
  R.Function = Function.str();
  R.File = Source.Path;
  R.Line = Loc.Line;
  R.Col = Loc.Col;
  R.Message = Msg.str();
  Remarks.push_back(std::move(R));
}

void PassContext::applied(llvm::StringRef Function, LineCol Loc,
                          const llvm::Twine &Msg) {
  emit(Remark::Applied, Function, Loc, Msg);
}

void PassContext::missed(llvm::StringRef Function, LineCol Loc,
                         const llvm::Twine &Msg) {
  emit(Remark::Missed, Function, Loc, Msg);
}

std::optional<std::string> PassContext::whyNoEstimate() const {
  if (!Estimator)
    return std::string("this tool has no resource estimator");
  return Estimator->unavailable();
}

llvm::Expected<ResourceReport> PassContext::estimate(llvm::StringRef Code) {
  return Estimator->estimate(Source.Path, Code, Info.GpuArch);
}

} // namespace kopt
