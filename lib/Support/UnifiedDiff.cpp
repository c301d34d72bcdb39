//===- UnifiedDiff.cpp - Line diffs in the unified format -----------------===//
//
// A longest-common-subsequence line diff. Kernel sources are a few hundred
// lines, so the quadratic table is cheap and keeps the code obvious.
//
//===----------------------------------------------------------------------===//

#include "kopt/Support/UnifiedDiff.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <vector>

namespace kopt {

namespace {

using StringRef = std::string_view;

std::vector<StringRef> splitLines(StringRef Text) {
  std::vector<StringRef> Lines;
  while (!Text.empty()) {
    std::size_t End = Text.find('\n');
    Lines.push_back(Text.substr(0, End));
    Text = End == StringRef::npos ? StringRef() : Text.substr(End + 1);
  }
  return Lines;
}

enum class Op { Keep, Remove, Add };

struct DiffLine {
  Op O;
  size_t OldIndex, NewIndex; ///< position before this line in each file
  StringRef Text;
};

std::vector<DiffLine> diffLines(const std::vector<StringRef> &A,
                                const std::vector<StringRef> &B) {
  size_t N = A.size(), M = B.size();
  // LCS[i][j] = length of the LCS of A[i:] and B[j:].
  std::vector<std::vector<uint32_t>> LCS(N + 1, std::vector<uint32_t>(M + 1));
  for (size_t I = N; I-- > 0;)
    for (size_t J = M; J-- > 0;)
      LCS[I][J] = A[I] == B[J] ? LCS[I + 1][J + 1] + 1
                               : std::max(LCS[I + 1][J], LCS[I][J + 1]);
  std::vector<DiffLine> Out;
  size_t I = 0, J = 0;
  while (I < N || J < M) {
    if (I < N && J < M && A[I] == B[J]) {
      Out.push_back({Op::Keep, I, J, A[I]});
      ++I, ++J;
    } else if (I < N && (J == M || LCS[I + 1][J] >= LCS[I][J + 1])) {
      // Removals before additions, as diff -u prints them.
      Out.push_back({Op::Remove, I, J, A[I]});
      ++I;
    } else {
      Out.push_back({Op::Add, I, J, B[J]});
      ++J;
    }
  }
  return Out;
}

} // namespace

std::string unifiedDiff(StringRef Old, StringRef New, StringRef OldName,
                        StringRef NewName, unsigned Context) {
  if (Old == New)
    return std::string();
  std::vector<DiffLine> Lines = diffLines(splitLines(Old), splitLines(New));
  std::ostringstream OS;
  OS << "--- " << OldName << "\n+++ " << NewName << "\n";
  size_t K = 0;
  while (K < Lines.size()) {
    if (Lines[K].O == Op::Keep) {
      ++K;
      continue;
    }
    // A hunk: from Context lines before this change to Context lines after
    // the last change that is within 2*Context of the previous one.
    size_t Begin = K >= Context ? K - Context : 0;
    size_t End = K;
    size_t Gap = 0;
    for (size_t L = K; L < Lines.size(); ++L) {
      if (Lines[L].O != Op::Keep) {
        End = L + 1;
        Gap = 0;
      } else if (++Gap > 2 * Context) {
        break;
      }
    }
    End = std::min(Lines.size(), End + Context);
    size_t OldCount = 0, NewCount = 0;
    for (size_t L = Begin; L < End; ++L) {
      OldCount += Lines[L].O != Op::Add;
      NewCount += Lines[L].O != Op::Remove;
    }
    size_t OldStart = Lines[Begin].OldIndex + (OldCount ? 1 : 0);
    size_t NewStart = Lines[Begin].NewIndex + (NewCount ? 1 : 0);
    OS << "@@ -" << OldStart << "," << OldCount << " +" << NewStart << ","
       << NewCount << " @@\n";
    for (size_t L = Begin; L < End; ++L)
      OS << (Lines[L].O == Op::Keep  ? ' '
             : Lines[L].O == Op::Add ? '+'
                                     : '-')
         << Lines[L].Text << "\n";
    K = End;
  }
  return OS.str();
}

} // namespace kopt
