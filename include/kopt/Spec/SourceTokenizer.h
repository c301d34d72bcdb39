//===- SourceTokenizer.h - A small C++ tokenizer without LLVM ---*- C++ -*-===//
//
// Spec and Eval must not depend on Clang, yet they need to find the entry
// function's parameters and scan for forbidden calls. This tokenizer knows
// just enough C++ for that: comments, string and character literals (raw
// strings included), preprocessor lines, identifiers, numbers, and
// punctuation (with '::' kept whole). It never fails: unknown bytes become
// one-character punctuation.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SPEC_SOURCETOKENIZER_H
#define KOPT_SPEC_SOURCETOKENIZER_H

#include <string>
#include <vector>

namespace kopt::spec {

struct Token {
  enum class Kind { Identifier, Number, String, Char, Punct, Directive };
  Kind TokKind = Kind::Punct;
  std::string Text; // String: the literal's contents without quotes
  int Line = 1;

  bool is(Kind K, const char *T) const { return TokKind == K && Text == T; }
  bool isPunct(const char *T) const { return is(Kind::Punct, T); }
  bool isIdentifier() const { return TokKind == Kind::Identifier; }
};

/// Splits \p Source into tokens, dropping comments and whitespace.
std::vector<Token> tokenizeSource(const std::string &Source);

} // namespace kopt::spec

#endif // KOPT_SPEC_SOURCETOKENIZER_H
