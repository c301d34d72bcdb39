//===- StatusLine.cpp - Progress of a long command ------------------------===//
#include "kopt/Support/StatusLine.h"

#include <unistd.h>

namespace kopt {

StatusLine::StatusLine(std::FILE *Out)
    : Out(Out), Terminal(Out && isatty(fileno(Out))) {}

void StatusLine::show(const std::string &Live, const std::string &Logged) {
  if (!Out)
    return;
  if (Terminal) {
    std::string Shown =
        Live.size() > 150 ? Live.substr(0, 147) + "..." : Live;
    std::fprintf(Out, "\r\033[K%s", Shown.c_str());
    Drawn = true;
  } else if (!Logged.empty()) {
    std::fprintf(Out, "%s\n", Logged.c_str());
  }
  std::fflush(Out);
}

void StatusLine::finish() {
  if (Out && Terminal && Drawn)
    std::fprintf(Out, "\n");
  Drawn = false;
}

} // namespace kopt
