//===- LLMSetup.h - kopt-search's LLM proposer from its flags ---*- C++ -*-===//
#ifndef KOPT_TOOLS_LLMSETUP_H
#define KOPT_TOOLS_LLMSETUP_H

#include "SearchCommandLine.h"

#include "kopt/Search/LLMProposer.h"

#include <memory>
#include <string>

namespace kopt::search {

/// What the llm proposer needs for a whole run: the provider's client (or
/// the store it replays), the templates read and checked.
struct LLMSetup {
  std::unique_ptr<llm::ChatClient> Client;
  std::unique_ptr<Store> Replay;
  LLMProposerOptions Options;
};

/// nullptr with \p Error (never holding a key) for an unknown provider, a
/// missing key, an unreadable or broken template, an unreadable replay
/// store.
std::unique_ptr<LLMSetup> setUpLLM(const CommandLine &CL, std::string &Error);

/// The built-in templates, for --llm-print-template.
void printLLMTemplates();

} // namespace kopt::search

#endif // KOPT_TOOLS_LLMSETUP_H
