//===- LLMProposer.cpp - Candidates an LLM proposes -----------------------===//
#include "kopt/Search/LLMProposer.h"

#include "kopt/LLM/ReplyEdit.h"
#include "kopt/Search/LLMPrompt.h"
#include "kopt/Search/Lessons.h"
#include "kopt/Search/Recipe.h"
#include "kopt/Spec/ProblemValidator.h"

#include <nlohmann/json.hpp>

#include <map>

namespace kopt::search {

namespace {

/// The sentence after the reply's last code block: what the LLM says it
/// did, for the candidate's proposer column.
std::string explanation(const std::string &Reply) {
  std::size_t Fence = Reply.rfind("```");
  std::string After = Fence == std::string::npos ? "" : Reply.substr(Fence + 3);
  std::size_t Start = After.find_first_not_of(" \t\r\n");
  if (Start == std::string::npos)
    return "";
  After = After.substr(Start);
  std::size_t End = After.find_first_of("\n");
  After = After.substr(0, End);
  return After.size() > 160 ? After.substr(0, 160) + "..." : After;
}

class LLMProposer : public Proposer {
public:
  LLMProposer(LLMProposerOptions O, Store &S) : O(std::move(O)), S(S) {}

  std::string name() const override { return "llm"; }

  std::vector<Proposal> propose(const ProposalContext &Context) override {
    if (budgetSpent())
      return {};
    const Candidate &Parent = Context.Parent;
    std::string Analysis = Context.Analysis();
    std::map<std::string, std::string> Values = common(Context);
    Values["source"] = Parent.Source;
    Values["kernel_info"] = summarizeAnalysis(Analysis);
    Values["missed_remarks"] = summarizeMissedRemarks(Context.Remarks());
    Values["resources"] = summarizeResources(Parent);
    Values["measurement"] = summarizeMeasurement(Parent);
    if (O.Profile)
      Values["profile"] = summarizeProfile(Context.Profile());
    Values["history"] = summarizeHistory(Context.History);
    Values["lessons"] = summarizeLessons(
        similarLessons(S.lessons(O.LessonsExecutor), kernelFeatures(Analysis),
                       Context.Problem.Name, O.MaxLessons));
    std::vector<Proposal> Out;
    for (int I = 0; I < O.ProposalsPerParent && !budgetSpent(); ++I)
      for (Proposal &P : ask(Context, "propose", O.ProposeTemplate, Values,
                             Parent.Source, ""))
        Out.push_back(std::move(P));
    return Out;
  }

  std::vector<Proposal> repair(const ProposalContext &Context,
                               int Round) override {
    const Candidate &Failed = Context.Parent;
    RecipeStart Start = splitRecipeStart(Failed.Recipe);
    // Passes run on an LLM's source are the passes' business, not its.
    if (Round > O.FixRounds || Start.LLMSeq == 0 || !Start.Passes.empty() ||
        budgetSpent())
      return {};
    auto X = S.exchange(Context.ProblemId, Start.LLMSeq);
    if (!X || X->Source.empty())
      return {};
    std::map<std::string, std::string> Values = common(Context);
    Values["source"] = X->Source;
    Values["compile_error"] = Failed.Reason;
    return ask(Context, "fix", O.RepairTemplate, Values, X->Source,
               "fix round " + std::to_string(Round) + " of " + Failed.Recipe +
                   ": ");
  }

private:
  LLMProposerOptions O;
  Store &S;
  bool WarnedBudget = false, WarnedReplay = false;

  std::uint64_t Replayed = 0; // tokens of the replies replayed

  /// The client's budget; when replaying, the same budget over the
  /// recorded replies' tokens, so a replay stops where the search did.
  bool budgetSpent() {
    bool Spent = O.Client
                     ? O.Client->budgetSpent()
                     : O.ReplayBudgetTokens && Replayed >= O.ReplayBudgetTokens;
    if (!Spent)
      return false;
    if (!WarnedBudget && O.Warn)
      O.Warn("the LLM token budget is spent (" +
             std::to_string(O.Client ? O.Client->spent().total() : Replayed) +
             " tokens): no more LLM proposals");
    WarnedBudget = true;
    return true;
  }

  std::map<std::string, std::string>
  common(const ProposalContext &Context) const {
    return {
        {"problem", spec::readTextFile(Context.Problem.SpecPath).value_or("")}};
  }

  std::vector<Proposal> ask(const ProposalContext &Context,
                            const std::string &Kind,
                            const std::string &Template,
                            const std::map<std::string, std::string> &Values,
                            const std::string &Shown,
                            const std::string &WhyPrefix) {
    llm::ChatRequest Request;
    Request.System = O.System;
    Request.MaxTokens = O.MaxTokens;
    std::string Error;
    if (!renderPrompt(Template, Values, Request.User, Error)) {
      if (O.Warn)
        O.Warn("the prompt template: " + Error);
      return {};
    }
    LLMExchangeRow Row;
    Row.ProblemId = Context.ProblemId;
    Row.ParentId = Context.Parent.Id;
    Row.Kind = Kind;
    llm::Exchange X = O.ReplayFrom ? replay(Row, Request) : send(Request);
    Row.Provider = X.Provider;
    Row.Model = X.Model;
    Row.Url = X.Url;
    Row.Request = X.RequestBody;
    Row.HttpStatus = X.Status;
    Row.Reply = X.ReplyBody;
    Row.Attempts = X.Attempts;
    Row.Text = X.Text;
    Row.InputTokens = X.Usage.Input;
    Row.OutputTokens = X.Usage.Output;
    Row.StopReason = X.StopReason;
    if (!X.ok()) {
      Row.Error = "the LLM request failed: " + X.Error;
    } else {
      llm::ReplyEdit Edit = llm::candidateFromReply(X.Text, Shown);
      if (Edit.ok())
        Row.Source = Edit.Source;
      else
        Row.Error = "the LLM's reply gives no candidate: " + Edit.Error;
    }
    auto Seq = S.addExchange(Row);
    if (!Seq) {
      if (O.Warn)
        O.Warn("the store: " + S.lastError());
      return {};
    }
    std::string Recipe = joinRecipeStart(*Seq, "");
    std::string Said = Row.Error.empty() ? explanation(X.Text) : "";
    return {{Recipe, WhyPrefix + Recipe + (Said.empty() ? "" : ": " + Said)}};
  }

  llm::Exchange send(const llm::ChatRequest &Request) {
    return O.Client->complete(Request);
  }

  /// The recorded exchange this one would be: same problem source, same
  /// number. The reply is served as it was; a request that differs from
  /// the recorded one (another prompt template, another kopt) is warned
  /// about once.
  llm::Exchange replay(LLMExchangeRow &Row, const llm::ChatRequest &Request) {
    Row.Replayed = true;
    llm::Exchange X;
    std::int64_t Seq = S.exchanges(Row.ProblemId).size() + 1;
    std::string Sha;
    for (const Store::ProblemRow &P : S.problems())
      if (P.Id == Row.ProblemId)
        Sha = P.SourceSha256;
    std::optional<LLMExchangeRow> Recorded;
    for (const Store::ProblemRow &P : O.ReplayFrom->problems())
      if (P.SourceSha256 == Sha && !Recorded)
        Recorded = O.ReplayFrom->exchange(P.Id, Seq);
    if (!Recorded) {
      X.Error = "replay: the store has no exchange llm#" + std::to_string(Seq) +
                " for this problem's source";
      return X;
    }
    X.Provider = Recorded->Provider;
    X.Model = Recorded->Model;
    X.Url = Recorded->Url;
    X.RequestBody = Recorded->Request;
    X.Status = Recorded->HttpStatus;
    X.ReplyBody = Recorded->Reply;
    X.Attempts = Recorded->Attempts;
    X.Text = Recorded->Text;
    X.Usage.Input = Recorded->InputTokens;
    X.Usage.Output = Recorded->OutputTokens;
    Replayed += X.Usage.total();
    X.StopReason = Recorded->StopReason;
    // A recorded failure replays as the same failure.
    if (!Recorded->Error.empty() &&
        Recorded->Error.rfind("the LLM request failed: ", 0) == 0)
      X.Error = Recorded->Error.substr(24);
    if (userMessage(Recorded->Request) != Request.User && !WarnedReplay &&
        O.Warn) {
      O.Warn("replay: request llm#" + std::to_string(Seq) +
             " differs from the recorded one (another prompt or kopt); "
             "serving the recorded reply");
      WarnedReplay = true;
    }
    return X;
  }

  /// The user message of a recorded request body (either provider's).
  static std::string userMessage(const std::string &RequestBody) {
    auto J = nlohmann::json::parse(RequestBody, nullptr, false);
    if (!J.is_object() || !J.contains("messages") || !J["messages"].is_array())
      return "";
    for (const auto &M : J["messages"])
      if (M.value("role", "") == "user" && M.contains("content") &&
          M["content"].is_string())
        return M["content"].get<std::string>();
    return "";
  }
};

} // namespace

std::unique_ptr<Proposer> createLLMProposer(LLMProposerOptions O, Store &S) {
  return std::make_unique<LLMProposer>(std::move(O), S);
}

} // namespace kopt::search
