//===- CheckGlob.cpp - clang-tidy's check globs ---------------------------===//

#include "kopt/Tidy/CheckGlob.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace kopt {

CheckGlob::CheckGlob(StringRef Text) {
  SmallVector<StringRef, 8> Parts;
  Text.split(Parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef Part : Parts) {
    Part = Part.trim(" \t\r\n");
    bool Negative = Part.consume_front("-");
    Part = Part.trim(" \t\r\n");
    if (Part.empty())
      continue;
    std::string Pattern = "^";
    for (char C : Part)
      Pattern += C == '*' ? std::string(".*") : Regex::escape(StringRef(&C, 1));
    Pattern += "$";
    Items.push_back({Negative, std::move(Pattern)});
  }
}

bool CheckGlob::contains(StringRef Name) const {
  for (const Item &I : llvm::reverse(Items))
    if (Regex(I.Pattern).match(Name))
      return !I.Negative;
  return false;
}

} // namespace kopt
