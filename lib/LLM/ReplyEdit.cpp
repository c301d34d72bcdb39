//===- ReplyEdit.cpp - The candidate source an LLM reply proposes ---------===//
#include "kopt/LLM/ReplyEdit.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace kopt::llm {

namespace {

std::vector<std::string> splitLines(const std::string &Text) {
  std::vector<std::string> Lines;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);) {
    if (!Line.empty() && Line.back() == '\r')
      Line.pop_back();
    Lines.push_back(Line);
  }
  return Lines;
}

std::string joinLines(const std::vector<std::string> &Lines) {
  std::string Out;
  for (const std::string &L : Lines)
    Out += L + "\n";
  return Out;
}

struct Block {
  std::string Info; // the fence's language, lower case
  std::string Text;
};

std::string trim(std::string S) {
  S.erase(0, S.find_first_not_of(" \t"));
  S.erase(S.find_last_not_of(" \t") + 1);
  return S;
}

/// Fenced blocks (``` or ~~~, three or more); false when one is not closed.
bool fencedBlocks(const std::string &Reply, std::vector<Block> &Blocks) {
  std::vector<std::string> Lines = splitLines(Reply);
  for (std::size_t I = 0; I < Lines.size(); ++I) {
    std::string Line = trim(Lines[I]);
    if (Line.rfind("```", 0) != 0 && Line.rfind("~~~", 0) != 0)
      continue;
    char Fence = Line[0];
    std::size_t Width = Line.find_first_not_of(Fence);
    if (Width == std::string::npos)
      Width = Line.size();
    Block B;
    B.Info = trim(Line.substr(Width));
    B.Info = B.Info.substr(0, B.Info.find_first_of(" \t{"));
    for (char &C : B.Info)
      C = static_cast<char>(std::tolower(static_cast<unsigned char>(C)));
    std::vector<std::string> Body;
    bool Closed = false;
    for (++I; I < Lines.size(); ++I) {
      std::string T = trim(Lines[I]);
      if (T.size() >= Width &&
          T.find_first_not_of(Fence) == std::string::npos) {
        Closed = true;
        break;
      }
      Body.push_back(Lines[I]);
    }
    if (!Closed)
      return false;
    B.Text = joinLines(Body);
    Blocks.push_back(B);
  }
  return true;
}

bool looksLikeDiff(const Block &B) {
  if (B.Info == "diff" || B.Info == "patch" || B.Info == "udiff")
    return true;
  return B.Text.rfind("--- ", 0) == 0 || B.Text.rfind("@@ ", 0) == 0;
}

bool isCode(const Block &B) {
  for (const char *Info : {"", "cuda", "cu", "cpp", "c++", "c", "cxx", "cc"})
    if (B.Info == Info)
      return true;
  return false;
}

struct Hunk {
  long OldStart = 0;
  std::vector<std::string> Old, New;
};

constexpr long MaxLine = 100000000;

bool parseHunks(const std::string &Diff, std::vector<Hunk> &Hunks,
                std::string &Error) {
  std::vector<std::string> Lines = splitLines(Diff);
  Hunk *Current = nullptr;
  for (const std::string &L : Lines) {
    if (L.rfind("@@", 0) == 0) {
      // @@ -a[,b] +c[,d] @@
      std::size_t Minus = L.find('-');
      if (Minus == std::string::npos) {
        Error = "a hunk header without '-': " + L;
        return false;
      }
      long Start = std::strtol(L.c_str() + Minus + 1, nullptr, 10);
      // A line number no source has (found by fuzz/llm-reply.cpp: the
      // offset arithmetic overflowed).
      if (Start < 0 || Start > MaxLine) {
        Error = "a hunk header with a line number out of range: " + L;
        return false;
      }
      Hunks.push_back({Start, {}, {}});
      Current = &Hunks.back();
      continue;
    }
    if (!Current) // ---/+++ headers, diff --git, index lines
      continue;
    if (L.rfind("\\", 0) == 0) // "\ No newline at end of file"
      continue;
    char Tag = L.empty() ? ' ' : L[0];
    std::string Rest = L.empty() ? "" : L.substr(1);
    if (Tag == ' ') {
      Current->Old.push_back(Rest);
      Current->New.push_back(Rest);
    } else if (Tag == '-') {
      Current->Old.push_back(Rest);
    } else if (Tag == '+') {
      Current->New.push_back(Rest);
    } else {
      Error = "a line in a hunk that is not context, '-' or '+': " + L;
      return false;
    }
  }
  if (Hunks.empty()) {
    Error = "the diff has no hunks";
    return false;
  }
  return true;
}

bool matchesAt(const std::vector<std::string> &Text, std::size_t At,
               const std::vector<std::string> &Old) {
  if (At + Old.size() > Text.size())
    return false;
  for (std::size_t I = 0; I < Old.size(); ++I)
    if (Text[At + I] != Old[I])
      return false;
  return true;
}

} // namespace

bool applyUnifiedDiff(const std::string &Text, const std::string &Diff,
                      std::string &Out, std::string &Error) {
  std::vector<Hunk> Hunks;
  if (!parseHunks(Diff, Hunks, Error))
    return false;
  std::vector<std::string> Lines = splitLines(Text);
  std::vector<std::string> Result;
  std::size_t Next = 0; // first line of Lines not yet copied
  long Shift = 0;       // where the previous hunk landed vs its header
  for (std::size_t H = 0; H < Hunks.size(); ++H) {
    const Hunk &K = Hunks[H];
    long Expected = std::max<long>(0, K.OldStart - 1 + Shift);
    long Found = -1;
    for (long Offset = 0; Offset <= 50 && Found < 0; ++Offset)
      for (long At : {Expected - Offset, Expected + Offset})
        if (At >= static_cast<long>(Next) &&
            matchesAt(Lines, static_cast<std::size_t>(At), K.Old)) {
          Found = At;
          break;
        }
    if (Found < 0) {
      Error = "hunk " + std::to_string(H + 1) + " (at line " +
              std::to_string(K.OldStart) +
              ") does not match the source it was shown";
      return false;
    }
    Shift = Found - (K.OldStart - 1);
    Result.insert(Result.end(), Lines.begin() + Next, Lines.begin() + Found);
    Result.insert(Result.end(), K.New.begin(), K.New.end());
    Next = static_cast<std::size_t>(Found) + K.Old.size();
  }
  Result.insert(Result.end(), Lines.begin() + Next, Lines.end());
  Out = joinLines(Result);
  return true;
}

ReplyEdit candidateFromReply(const std::string &Reply,
                             const std::string &Original) {
  ReplyEdit E;
  std::vector<Block> Blocks;
  if (!fencedBlocks(Reply, Blocks)) {
    E.Error = "the reply has an unterminated code block (truncated?)";
    return E;
  }
  std::vector<const Block *> Diffs, Code;
  for (const Block &B : Blocks)
    if (looksLikeDiff(B))
      Diffs.push_back(&B);
    else if (isCode(B))
      Code.push_back(&B);
  if (Diffs.size() > 1) {
    E.Error = "the reply has " + std::to_string(Diffs.size()) +
              " diffs; one is expected";
    return E;
  }
  if (Diffs.size() == 1) {
    E.Kind = ReplyEdit::Form::Diff;
    std::string Why;
    if (!applyUnifiedDiff(Original, Diffs[0]->Text, E.Source, Why))
      E.Error = "the reply's diff does not apply: " + Why;
    return E;
  }
  const Block *Best = nullptr;
  for (const Block *B : Code)
    if (B->Text.find("__global__") != std::string::npos &&
        (!Best || B->Text.size() > Best->Text.size()))
      Best = B;
  if (!Best) {
    E.Error = Blocks.empty() ? "the reply holds no code block"
                             : "no code block in the reply defines a "
                               "__global__ kernel";
    return E;
  }
  E.Kind = ReplyEdit::Form::FullFile;
  E.Source = Best->Text;
  return E;
}

} // namespace kopt::llm
