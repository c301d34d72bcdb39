//===- TreeGuard.cpp - warp-reduce's run-time check of a tree -------------===//

#include "TreeGuard.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace llvm;

namespace kopt {

namespace {

/// The fewest threads a block may run for the rewrite: a whole warp, and
/// for a tree that ends in a warp tail of rounds K..1 the 2K threads whose
/// slots that tail reads.
int64_t leastBlock(const ReductionTree &T) {
  return std::max<int64_t>(32, 2 * T.TailRounds);
}

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
    Check = "(blockDim.x & (blockDim.x - 1)) == 0 && blockDim.x >= " +
            std::to_string(leastBlock(T)) +
            " && blockDim.y == 1 && blockDim.z == 1";
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
  for (int64_t S : Sizes)
    if (S < leastBlock(T))
      return Refusal{"a launch runs blocks of " + std::to_string(S) +
                         " threads, and the rounds after the tree's loop "
                         "read A[t + " +
                         std::to_string(T.TailRounds) +
                         "]: slots those blocks never wrote",
                     T.Loc};
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
                          ? "a power of two of at least " +
                                std::to_string(leastBlock(T)) + " threads, 1-D"
                          : sizeList(Sizes) + " threads";
  if (T.BlockSize)
    Known +=
        ", where '" + T.BlockSize->getNameAsString() + "' equals blockDim.x";
  if (checksConstSize(T, Sizes))
    Known += ", where '" + T.ConstSizeText + "' (" +
             std::to_string(*T.ConstSize) + ") equals blockDim.x";
  if (Sizes.empty() || T.BlockSize || checksConstSize(T, Sizes))
    Known += " (checked at run time; other blocks run the original tree)";
  if (T.TailRounds)
    Known += "; the tree's last " + std::to_string(Log2_64(T.TailRounds) + 1) +
             " rounds, at line " + std::to_string(T.TailLoc.Line) +
             " after its loop (one warp without barriers: a race since Volta "
             "unless __syncwarp orders them), go with it";
  return Known;
}

} // namespace kopt
