//===- Progress.cpp - The live status line of a search --------------------===//
#include "kopt/Search/Progress.h"

namespace kopt::search {

Progress::Progress(std::FILE *Out, std::string Problem,
                   std::optional<long> Budget)
    : Line(Out), Problem(std::move(Problem)), Budget(Budget) {}

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
  // Log lines: one per change of the counts, not per phase.
  std::string Logged;
  std::string Key = L.substr(0, L.rfind(" | "));
  Key = Key.substr(0, Key.rfind(" | "));
  if (!Line.terminal() && Key != LastLogged) {
    LastLogged = Key;
    Logged = "kopt-search: " + Problem + ": " + L + " | " + S.Phase;
  }
  Line.show(Problem + ": " + L + " | " + S.Phase, Logged);
}

void Progress::finish() { Line.finish(); }

} // namespace kopt::search
