//===- Outputs.h - What a search leaves in --out ----------------*- C++ -*-===//
//
//   best.cu      the winner's source (written to a temporary file, renamed)
//   recipe.txt   its -passes= string: kopt-opt makes best.cu again with it
//   best.test    a lit test pinning the recipe, for the user's own suite
//   report.json  the search: settings, why it stopped, best, lineage,
//                convergence, every candidate with its status
//   report.html  the same, self-contained (no network), with a plot
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_OUTPUTS_H
#define KOPT_SEARCH_OUTPUTS_H

#include "kopt/Search/SearchLoop.h"
#include "kopt/Search/Store.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kopt::search {

struct ReportSettings {
  std::string Command, Strategy, Executor, KoptVersion;
  std::uint64_t Seed = 0;
  Budgets Limits;
  int Depth = 0, BeamWidth = 0;
};

/// One candidate as report.json and `export` list it.
nlohmann::json candidateJson(const Candidate &C);

nlohmann::json reportDocument(const spec::Problem &P, const SearchResult &R,
                              const ReportSettings &Settings);

/// report.json's "llm_exchanges": for each exchange, what was asked (the
/// request's messages, as text) and what came back (the reply's text, or
/// why it gave no candidate). Requests and replies are stored without the
/// key (ChatClient redacts it); nothing else is secret in them.
nlohmann::json llmExchangesJson(const std::vector<LLMExchangeRow> &All);

/// The lit test that pins \p Passes: the source they start from (the
/// original, or an LLM's) with a RUN line and CHECK lines for the lines
/// the passes add (at most \p MaxChecks). No passes: the test checks the
/// file is itself.
std::string bestTest(const std::string &Start, const std::string &Best,
                     const std::string &Passes, const std::string &Summary,
                     std::size_t MaxChecks = 12);

/// Writes every output into \p Dir; false with \p Error on the first
/// failure (files written before it stay whole: each is renamed into place).
/// When the best starts from an LLM's source (recipe llm#N...), that is
/// \p LLMStart, written as llm-N.cu beside best.cu.
bool writeOutputs(const std::string &Dir, const spec::Problem &P,
                  const SearchResult &R, const nlohmann::json &Report,
                  const std::string &LLMStart, std::string &Error);

/// Writes \p Text to \p Path through a temporary file and a rename.
bool writeFileAtomically(const std::string &Path, const std::string &Text,
                         std::string &Error);

} // namespace kopt::search

#endif // KOPT_SEARCH_OUTPUTS_H
