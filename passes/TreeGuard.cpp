//===- TreeGuard.cpp - warp-reduce's run-time check of a tree -------------===//

#include "TreeGuard.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;

namespace kopt {

namespace {

/// Whether a tree starting from a constant C needs C == blockDim.x checked:
/// unless every launch runs C threads.
bool checksConstSize(const ReductionTree &T, const std::set<int64_t> &Sizes) {
  return T.ConstSize && Sizes != std::set<int64_t>{*T.ConstSize};
}

/// The condition under which the tree is rewritten, or "" if none is
/// needed.
std::string runTimeCheck(const ReductionTree &T,
                         const std::set<int64_t> &Sizes) {
  std::string Check;
  if (Sizes.empty())
    Check = "(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= 32 && "
            "blockDim.y == 1 && blockDim.z == 1";
  if (T.BlockSize)
    Check += (Check.empty() ? "" : " && ") +
             std::string("static_cast<long long>(") +
             T.BlockSize->getNameAsString() +
             ") == static_cast<long long>(blockDim.x)";
  if (checksConstSize(T, Sizes))
    Check += (Check.empty() ? "" : " && ") + std::string("(") +
             T.ConstSizeText + ") == blockDim.x";
  return Check;
}

} // namespace

std::string guardedTree(const ReductionTree &T, const std::set<int64_t> &Sizes,
                        std::string Out, StringRef Code, unsigned Begin,
                        unsigned End, StringRef Indent) {
  std::string Check = runTimeCheck(T, Sizes);
  if (Check.empty())
    return Out;
  std::string Indented;
  for (char C : Code.slice(Begin, End)) {
    Indented += C;
    if (C == '\n')
      Indented += "  ";
  }
  return "if (" + Check + ") " + Out + " else {\n" + Indent.str() + "  " +
         Indented + "\n" + Indent.str() + "}";
}

std::optional<Refusal> checkConstSize(const ReductionTree &T,
                                      const std::set<int64_t> &Sizes) {
  if (!T.ConstSize)
    return std::nullopt;
  int64_t C = *T.ConstSize;
  std::string Start = "the tree starts from '" + T.ConstStartText + "' (" +
                      std::to_string(C) + " threads), ";
  if (C < 32 || C > 1024 || !isPowerOf2_64(static_cast<uint64_t>(C)))
    return Refusal{Start + "not a power of two of 32 to 1024", T.Loc};
  if (!Sizes.empty() && !Sizes.count(C))
    return Refusal{Start + "but every launch runs blocks of " +
                       sizeList(Sizes) +
                       " threads: the tree covers another number of threads "
                       "than the block has",
                   T.Loc};
  return std::nullopt;
}

std::string sizeList(const std::set<int64_t> &Sizes) {
  SmallVector<std::string> Text;
  for (int64_t S : Sizes)
    Text.push_back(std::to_string(S));
  return join(Text, ", ");
}

std::string sizeList(const std::set<int64_t> &Sizes, const ReductionTree &T) {
  std::string Known = Sizes.empty()
                          ? "a power of two of at least 32 threads, 1-D"
                          : sizeList(Sizes) + " threads";
  if (T.BlockSize)
    Known +=
        ", where '" + T.BlockSize->getNameAsString() + "' equals blockDim.x";
  if (checksConstSize(T, Sizes))
    Known += ", where '" + T.ConstSizeText + "' (" +
             std::to_string(*T.ConstSize) + ") equals blockDim.x";
  if (Sizes.empty() || T.BlockSize || checksConstSize(T, Sizes))
    Known += " (checked at run time; other blocks run the original tree)";
  return Known;
}

} // namespace kopt
