//===- LLMPrompt.h - What kopt knows, in the words of a prompt --*- C++ -*-===//
//
// The LLM proposer's request is a template (docs/llm.md; a user overrides it
// with --llm-prompt FILE) whose {{placeholders}} are filled with what the
// compiler and the evaluator know about the parent candidate and that a
// bare LLM does not: the kernel's analysis, the passes' missed remarks,
// ptxas's resource usage, the measurement, the problem, the search's
// failures so far and the lessons of earlier searches.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_LLMPROMPT_H
#define KOPT_SEARCH_LLMPROMPT_H

#include <map>
#include <string>
#include <vector>

namespace kopt::search {

struct Candidate;
struct Lesson;

/// The placeholders a template may use, in the order docs/llm.md lists
/// them: source, problem, kernel_info, missed_remarks, resources,
/// measurement, profile, history, lessons (and compile_error for repairs).
const std::vector<std::string> &promptPlaceholders();

/// The built-in templates: the user message for a new proposal, the one
/// asking to repair a candidate that did not compile ({{compile_error}}
/// on top of the others), and the system message.
const char *defaultProposeTemplate();
const char *defaultRepairTemplate();
const char *defaultSystemPrompt();

/// Fills \p Template. False with \p Error (naming the line) for an
/// unknown or unterminated placeholder.
bool renderPrompt(const std::string &Template,
                  const std::map<std::string, std::string> &Values,
                  std::string &Out, std::string &Error);

// The sections, each plain text for the prompt.

/// kopt-opt --analyze's JSON, one line per kernel, loop, access and
/// barrier.
std::string summarizeAnalysis(const std::string &AnalysisJson);
/// The "missed" remarks of kopt-opt's --remarks JSON, one per line.
std::string summarizeMissedRemarks(const std::string &RemarksJson);
/// ptxas's registers, shared memory and spills from an evaluation record.
std::string summarizeResources(const Candidate &C);
/// The parent's verdict: time, speedup over the original, bandwidth.
std::string summarizeMeasurement(const Candidate &C);
/// kopt-bench's "profile" JSON: one line per kernel, or why there is none.
std::string summarizeProfile(const std::string &ProfileJson);
/// The LLM's earlier candidates in this search and what became of them,
/// the last \p Max of them.
std::string summarizeHistory(const std::vector<Candidate> &History,
                             std::size_t Max = 20);
/// Lessons, most similar first.
std::string summarizeLessons(const std::vector<Lesson> &Lessons);

} // namespace kopt::search

#endif // KOPT_SEARCH_LLMPROMPT_H
