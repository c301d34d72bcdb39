//===- ReplyEdit.h - The candidate source an LLM reply proposes -*- C++ -*-===//
//
// A reply proposes a kernel as a fenced code block holding the whole file,
// or as a fenced unified diff against the source it was shown. This finds
// which, and makes the candidate's source; everything else (parse,
// signatures, static rules, compile, correctness) is the validation every
// candidate goes through.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_LLM_REPLYEDIT_H
#define KOPT_LLM_REPLYEDIT_H

#include <string>

namespace kopt::llm {

struct ReplyEdit {
  enum class Form { None, FullFile, Diff };
  Form Kind = Form::None;
  std::string Source; // the candidate's text when ok
  std::string Error;  // why the reply gives no candidate
  bool ok() const { return Error.empty(); }
};

/// The candidate \p Reply proposes for \p Original. A `diff`/`patch` block
/// (or a block that starts like a unified diff) is applied to \p Original;
/// otherwise the one code block (cuda, cu, cpp, c++, c or unlabeled) that
/// defines a `__global__` function is the whole file (with several, the
/// longest). No block, an unterminated block (a truncated reply), no kernel
/// or a diff that does not apply is an error.
ReplyEdit candidateFromReply(const std::string &Reply,
                             const std::string &Original);

/// Applies unified diff \p Diff to \p Text. Each hunk's context and removed
/// lines must match exactly (a hunk may sit up to 50 lines from where its
/// header says, as `patch` allows for offsets). False with \p Error naming
/// the hunk that does not apply.
bool applyUnifiedDiff(const std::string &Text, const std::string &Diff,
                      std::string &Out, std::string &Error);

} // namespace kopt::llm

#endif // KOPT_LLM_REPLYEDIT_H
