//===- LLMSetup.cpp - kopt-search's LLM proposer from its flags -----------===//
#include "LLMSetup.h"

#include "kopt/Search/LLMPrompt.h"
#include "kopt/Spec/ProblemValidator.h"

#include <iostream>

namespace kopt::search {

namespace {

/// \p Path's text, or \p Default when no path is given; the template is
/// rendered once with nothing so a broken one fails before any request.
bool readTemplate(const std::string &Flag, const std::string &Path,
                  const char *Default, std::string &Out, std::string &Error) {
  if (Path.empty()) {
    Out = Default;
    return true;
  }
  auto Text = spec::readTextFile(Path);
  if (!Text) {
    Error = Flag + ": cannot read " + Path;
    return false;
  }
  Out = *Text;
  std::string Rendered;
  if (!renderPrompt(Out, {}, Rendered, Error)) {
    Error = Flag + ": " + Path + ": " + Error;
    return false;
  }
  return true;
}

} // namespace

std::unique_ptr<LLMSetup> setUpLLM(const CommandLine &CL, std::string &Error) {
  auto Setup = std::make_unique<LLMSetup>();
  LLMProposerOptions &O = Setup->Options;
  if (!readTemplate("--llm-prompt", CL.LLMPrompt, defaultProposeTemplate(),
                    O.ProposeTemplate, Error) ||
      !readTemplate("--llm-repair-prompt", CL.LLMRepairPrompt,
                    defaultRepairTemplate(), O.RepairTemplate, Error) ||
      !readTemplate("--llm-system", CL.LLMSystem, defaultSystemPrompt(),
                    O.System, Error))
    return nullptr;
  O.FixRounds = CL.LLMFixRounds;
  O.Profile = CL.LLMProfile;
  O.ProposalsPerParent = CL.LLMProposals;
  O.MaxTokens = CL.LLMMaxTokens;
  O.Warn = [](const std::string &Message) {
    std::cerr << "kopt-search: llm: " << Message << "\n";
  };
  if (!CL.LLMReplay.empty()) {
    Setup->Replay = Store::open(CL.LLMReplay, /*Create=*/false, Error);
    if (!Setup->Replay) {
      Error = "--llm-replay: " + Error;
      return nullptr;
    }
    O.ReplayFrom = Setup->Replay.get();
    O.ReplayBudgetTokens = CL.LLMBudgetTokens;
    return Setup;
  }
  llm::ClientOptions Client;
  if (!llm::optionsFromEnvironment(CL.LLMProvider, CL.LLMModel, CL.LLMBaseUrl,
                                   Client, Error))
    return nullptr;
  Client.TimeoutSeconds = CL.LLMTimeoutSeconds;
  Client.MaxRetries = CL.LLMMaxRetries;
  Client.BudgetTokens = CL.LLMBudgetTokens;
  Setup->Client = std::make_unique<llm::ChatClient>(std::move(Client));
  O.Client = Setup->Client.get();
  return Setup;
}

void printLLMTemplates() {
  std::cout << "=== system (--llm-system) ===\n"
            << defaultSystemPrompt() << "\n\n=== proposal (--llm-prompt) ===\n"
            << defaultProposeTemplate()
            << "\n=== repair (--llm-repair-prompt) ===\n"
            << defaultRepairTemplate();
}

} // namespace kopt::search
