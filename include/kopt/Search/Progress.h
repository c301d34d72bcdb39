//===- Progress.h - The live status line of a search ------------*- C++ -*-===//
//
// On a terminal one line is redrawn in place: evaluated / budget, the best
// speedup with its interval, failures by status, the rate and the elapsed
// time, and what the loop is doing. Otherwise plain log lines, one per
// event that changes the counts.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_PROGRESS_H
#define KOPT_SEARCH_PROGRESS_H

#include "kopt/Search/SearchLoop.h"
#include "kopt/Support/StatusLine.h"

#include <cstdio>
#include <string>

namespace kopt::search {

class Progress {
public:
  Progress(std::FILE *Out, std::string Problem, std::optional<long> Budget);
  void update(const SearchStats &S);
  /// Ends the live line (a newline on a terminal).
  void finish();
  /// The text of one status line (no newline).
  static std::string line(const SearchStats &S, std::optional<long> Budget);

private:
  StatusLine Line;
  std::string Problem;
  std::optional<long> Budget;
  std::string LastLogged;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_PROGRESS_H
