//===- Progress.cpp - The live status line of a search --------------------===//
#include "kopt/Search/Progress.h"

#include <unistd.h>

namespace kopt::search {

Progress::Progress(std::FILE *Out, std::string Problem,
                   std::optional<long> Budget)
    : Out(Out), Problem(std::move(Problem)), Budget(Budget),
      Terminal(isatty(fileno(Out))) {}

std::string Progress::line(const SearchStats &S, std::optional<long> Budget) {
  char Buffer[160];
  std::string L = "evaluated " + std::to_string(S.Evaluated);
  if (Budget)
    L += "/" + std::to_string(*Budget);
  if (S.Best && S.Best->Eval) {
    std::snprintf(Buffer, sizeof(Buffer), " | best %.3fx [%.3f, %.3f] #%lld",
                  S.Best->Eval->Speedup, S.Best->Eval->SpeedupLow,
                  S.Best->Eval->SpeedupHigh, (long long)S.Best->Id);
    L += Buffer;
  } else {
    L += " | best -";
  }
  std::string Failures;
  for (const auto &[Status, Count] : S.Failures)
    Failures +=
        (Failures.empty() ? "" : " ") + Status + "=" + std::to_string(Count);
  L += " | failed " + (Failures.empty() ? std::string("0") : Failures);
  L += " | dup " + std::to_string(S.Duplicates);
  double PerMinute =
      S.ElapsedSeconds > 0 ? 60.0 * S.Evaluated / S.ElapsedSeconds : 0.0;
  std::snprintf(Buffer, sizeof(Buffer), " | %.1f/min | gpu %.0f%% | %.0fs",
                PerMinute, 100.0 * S.gpuBusy(), S.ElapsedSeconds);
  L += Buffer;
  return L;
}

void Progress::update(const SearchStats &S) {
  std::string L = line(S, Budget);
  if (Terminal) {
    std::string Shown = Problem + ": " + L + " | " + S.Phase;
    if (Shown.size() > 150)
      Shown = Shown.substr(0, 147) + "...";
    std::fprintf(Out, "\r\033[K%s", Shown.c_str());
    Drawn = true;
  } else {
    // Log lines: one per change of the counts, not per phase.
    std::string Key = L.substr(0, L.rfind(" | "));
    Key = Key.substr(0, Key.rfind(" | "));
    if (Key == LastLogged)
      return;
    LastLogged = Key;
    std::fprintf(Out, "kopt-search: %s: %s | %s\n", Problem.c_str(), L.c_str(),
                 S.Phase.c_str());
  }
  std::fflush(Out);
}

void Progress::finish() {
  if (Terminal && Drawn)
    std::fprintf(Out, "\n");
  Drawn = false;
}

} // namespace kopt::search
