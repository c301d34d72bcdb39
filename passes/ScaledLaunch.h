//===- ScaledLaunch.h - A launch run on a grid S times larger ---*- C++ -*-===//
//
// row-reduce and split-grid rewrite a launch `k<<<grid, block, ...>>>(a)`
// into a choice between a launch on S times the grid and the launch as
// written:
//
//   {
//     // <comment>
//     const auto kopt_grid = (grid);
//     if (kopt_grid >= 1 && kopt_grid <= 2147483647 / S && <extra>)
//       k<suffix><<<kopt_grid * S, block, ...>>>(a);
//     (or, with BlockThreads T, a block of T threads for each thread:
//      kopt_grid <= 2147483647 / (block) and <<<kopt_grid * (block), T, ...>>>;
//      with PackThreads P, a thread for each block:
//      <<<(kopt_grid + P - 1) / P, P, ...>>>(a,
//      static_cast<unsigned>(kopt_grid)))
//     else
//       k<<<kopt_grid, block, ...>>>(a);
//   }
//
// The grid is evaluated once; the block, the other configuration arguments
// and the kernel arguments are written twice (once per branch, and in the
// extra condition), so they must have no side effects. Grid and block must
// be integers (not dim3): the larger grid is in x.
//
//===----------------------------------------------------------------------===//

#ifndef KOPT_PASSES_SCALEDLAUNCH_H
#define KOPT_PASSES_SCALEDLAUNCH_H

#include "SourceLayout.h"

#include "kopt/Analysis/KernelInfo.h"
#include "kopt/Pass/Edits.h"

#include "clang/AST/ASTContext.h"

#include <functional>
#include <optional>
#include <string>

namespace kopt {

/// Variable name of the grid in a scaled launch; a launch whose grid names
/// it is one kopt wrote.
extern const char *const ScaledGridName;

struct ScaledLaunchSpec {
  unsigned Factor = 2;
  /// When non-zero, the scaled branch runs one block of this many threads
  /// for each thread of the launch as written: its grid is `grid * block`
  /// (Factor is not used) and its block BlockThreads.
  unsigned BlockThreads = 0;
  /// When non-zero, the scaled branch runs each block of the launch as
  /// written as one thread: blocks of PackThreads threads,
  /// ceil(grid / PackThreads) of them, and the grid passed as a last
  /// argument (`static_cast<unsigned>(kopt_grid)`).
  unsigned PackThreads = 0;
  /// Appended to the callee in the scaled branch (a copy of the kernel).
  std::string FastSuffix;
  std::string Comment; ///< the first line in the braces, without `// `
  /// A further condition for the scaled branch, from the launch's pieces
  /// (written after `&&`); empty for none.
  std::function<std::string(const LaunchPieces &)> Extra;
};

/// Replaces launch L in Edits by its scaled form; none when done, else why
/// not ("the launch at <loc> has a dim3 grid ...", for a missed remark).
std::optional<std::string> replaceWithScaledLaunch(const LaunchSite &L,
                                                   const ScaledLaunchSpec &Spec,
                                                   clang::ASTContext &HC,
                                                   EditSet &Edits);

/// Whether L is a launch inside kopt's own scaled-launch text.
bool isScaledLaunch(const LaunchSite &L);

} // namespace kopt

#endif // KOPT_PASSES_SCALEDLAUNCH_H
