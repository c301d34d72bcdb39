//===- Output.cpp - What kopt-opt writes ----------------------------------===//
#include "Output.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace kopt {

Error writeOutput(StringRef Path, StringRef Contents) {
  return writeToOutput(Path, [&](raw_ostream &OS) {
    OS << Contents;
    return Error::success();
  });
}

std::string remarksDocument(StringRef File, const Pipeline &P,
                            ArrayRef<Remark> Remarks, json::Array Before) {
  json::Array All = std::move(Before);
  for (const Remark &R : Remarks)
    All.push_back(toJSON(R));
  json::Object Doc{
      {"file", File.str()}, {"pipeline", P.str()}, {"remarks", std::move(All)}};
  return formatv("{0:2}\n", json::Value(std::move(Doc))).str();
}

} // namespace kopt
