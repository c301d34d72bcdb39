//===- Nolint.cpp - NOLINT comments, as clang-tidy reads them -------------===//

#include "kopt/Tidy/Nolint.h"

#include "llvm/ADT/SmallVector.h"

using namespace llvm;

namespace kopt {

namespace {

/// The check list of a NOLINT marker at Text's start: `(a, b)` or nothing
/// (every check). Returns the glob text.
std::string checkList(StringRef After) {
  if (!After.consume_front("("))
    return "*";
  size_t Close = After.find(')');
  return Close == StringRef::npos ? "*" : After.take_front(Close).str();
}

} // namespace

NolintMap::NolintMap(StringRef Code) {
  SmallVector<StringRef, 0> Lines;
  Code.split(Lines, '\n');
  struct Open {
    unsigned Line;
    std::string Checks;
  };
  std::vector<Open> Begun;
  for (unsigned I = 0; I < Lines.size(); ++I) {
    unsigned LineNo = I + 1;
    StringRef L = Lines[I];
    for (size_t Pos = L.find("NOLINT"); Pos != StringRef::npos;
         Pos = L.find("NOLINT", Pos + 1)) {
      StringRef Rest = L.drop_front(Pos + strlen("NOLINT"));
      if (Rest.consume_front("NEXTLINE")) {
        Ranges.push_back({LineNo + 1, LineNo + 1, CheckGlob(checkList(Rest))});
      } else if (Rest.consume_front("BEGIN")) {
        Begun.push_back({LineNo, checkList(Rest)});
      } else if (Rest.consume_front("END")) {
        std::string Checks = checkList(Rest);
        // The innermost open NOLINTBEGIN with the same list closes.
        size_t Match = Begun.size();
        for (size_t J = Begun.size(); J-- > 0;)
          if (Begun[J].Checks == Checks) {
            Match = J;
            break;
          }
        if (Match == Begun.size()) {
          Problems.push_back(
              {LineNo, "NOLINTEND without a matching NOLINTBEGIN"});
          continue;
        }
        Ranges.push_back({Begun[Match].Line, LineNo, CheckGlob(Checks)});
        Begun.erase(Begun.begin() + Match);
      } else {
        Ranges.push_back({LineNo, LineNo, CheckGlob(checkList(Rest))});
      }
    }
  }
  for (const Open &O : Begun) {
    Problems.push_back({O.Line, "NOLINTBEGIN without a matching NOLINTEND"});
    // As clang-tidy does, an unmatched begin suppresses nothing.
  }
}

bool NolintMap::suppresses(unsigned Line, StringRef Check) const {
  for (const Range &R : Ranges)
    if (R.First <= Line && Line <= R.Last && R.Checks.contains(Check))
      return true;
  return false;
}

} // namespace kopt
