//===- LLMProposer.h - Candidates an LLM proposes ---------------*- C++ -*-===//
//
// Shows the LLM a parent candidate with what kopt knows about it
// (LLMPrompt.h) and turns the reply into a candidate the way a pass's edit
// is one: its source is recorded with the exchange in the store, and its
// recipe `llm#N` names that exchange, so the loop validates and measures
// it like any other, and the pass proposer later runs passes on it
// (`llm#N | vectorize-loads`). A candidate that does not compile goes back
// for at most FixRounds repairs. Replaying a store's exchanges instead of
// asking (--llm-replay) makes the same candidates with no network.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_LLMPROPOSER_H
#define KOPT_SEARCH_LLMPROPOSER_H

#include "kopt/LLM/ChatClient.h"
#include "kopt/Search/Proposer.h"
#include "kopt/Search/Store.h"

#include <functional>
#include <memory>
#include <string>

namespace kopt::search {

struct LLMProposerOptions {
  /// Asks the provider; nullptr when replaying.
  llm::ChatClient *Client = nullptr;
  /// Serves this store's recorded replies instead, in order; the token
  /// budget then counts the recorded replies' tokens.
  Store *ReplayFrom = nullptr;
  std::uint64_t ReplayBudgetTokens = 0; // 0: none
  std::string System, ProposeTemplate, RepairTemplate;
  int FixRounds = 2;
  /// Nsight Compute metrics of each parent in the prompt (one more run).
  bool Profile = true;
  int ProposalsPerParent = 1; // requests per parent, one candidate each
  int MaxTokens = 8192;
  /// Lessons measured by this executor go into prompts, at most MaxLessons.
  std::string LessonsExecutor;
  std::size_t MaxLessons = 3;
  /// Where warnings go (a spent budget, a replayed request that differs).
  std::function<void(const std::string &)> Warn;
};

/// The "llm" proposer; it records every exchange in \p S.
std::unique_ptr<Proposer> createLLMProposer(LLMProposerOptions O, Store &S);

} // namespace kopt::search

#endif // KOPT_SEARCH_LLMPROPOSER_H
