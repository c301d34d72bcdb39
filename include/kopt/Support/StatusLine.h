//===- StatusLine.h - Progress of a long command ----------------*- C++ -*-===//
//
// On a terminal, one line redrawn in place; otherwise (a log, a pipe, CI)
// plain lines, only for the updates that say something new. kopt-search's
// progress and kopt-bench's, written once.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SUPPORT_STATUSLINE_H
#define KOPT_SUPPORT_STATUSLINE_H

#include <cstdio>
#include <string>

namespace kopt {

class StatusLine {
public:
  /// \p Terminal: redraw in place; by default, whether \p Out is a terminal.
  explicit StatusLine(std::FILE *Out);
  StatusLine(std::FILE *Out, bool Terminal) : Out(Out), Terminal(Terminal) {}
  ~StatusLine() { finish(); }

  /// On a terminal, \p Live replaces the line (cut to 150 characters);
  /// otherwise \p Logged is printed as a line of its own, unless empty.
  void show(const std::string &Live, const std::string &Logged);
  /// Ends the live line (a newline on a terminal, once).
  void finish();
  bool terminal() const { return Terminal; }

private:
  std::FILE *Out;
  bool Terminal;
  bool Drawn = false;
};

} // namespace kopt

#endif // KOPT_SUPPORT_STATUSLINE_H
