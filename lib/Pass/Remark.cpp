//===- Remark.cpp - What a pass did, and what it did not and why ---------===//

#include "kopt/Pass/Remark.h"

using namespace llvm;

namespace kopt {

json::Value toJSON(const Remark &R) {
  return json::Object{{"kind", R.K == Remark::Applied ? "applied" : "missed"},
                      {"pass", R.Pass},
                      {"function", R.Function},
                      {"file", R.File},
                      {"line", R.Line},
                      {"col", R.Col},
                      {"message", R.Message},
                      {"step", R.Step}};
}

void printRemark(raw_ostream &OS, const Remark &R) {
  OS << R.File;
  if (R.Line)
    OS << ":" << R.Line << ":" << R.Col;
  OS << ": remark: " << R.Message << " ["
     << (R.K == Remark::Applied ? "-Rpass=" : "-Rpass-missed=") << R.Pass
     << "]\n";
}

bool RemarkFilter::matches(const Remark &R) const {
  const std::optional<Regex> &F = R.K == Remark::Applied ? Applied : Missed;
  return F && F->match(R.Pass);
}

} // namespace kopt
