//===- EntrySignature.cpp - The entry function's parameter list -----------===//
#include "kopt/Spec/EntrySignature.h"

#include <set>

namespace kopt::spec {

namespace {

/// Words that may precede a function name in a declaration without being
/// part of its return type.
const std::set<std::string> DeclSpecifiers = {
    "extern",       "static",    "inline",     "__host__", "__forceinline__",
    "__noinline__", "constexpr", "__inline__", "virtual"};

/// Qualifiers that leave the calling convention alone.
const std::set<std::string> IgnoredQualifiers = {
    "const",  "volatile", "__restrict__", "__restrict", "restrict",
    "struct", "class",    "enum",         "typename"};

/// Words after which an identifier followed by '(' is a call, not a
/// declaration.
const std::set<std::string> StatementWords = {
    "return", "else",   "do",        "case",     "new",      "delete",
    "throw",  "sizeof", "co_return", "co_yield", "co_await", "goto"};

bool isTypeWord(const std::string &Word) {
  static const std::set<std::string> Builtins = {
      "void",  "bool",   "char",   "short",    "int",    "long",
      "float", "double", "signed", "unsigned", "size_t", "auto"};
  return Builtins.count(Word) > 0;
}

EntryParam classifyParam(const std::vector<Token> &Tokens) {
  EntryParam P;
  std::vector<std::string> Words; // identifiers, in order
  int Stars = 0;
  bool Brackets = false, Reference = false;
  for (const Token &T : Tokens) {
    if (T.isIdentifier()) {
      if (!IgnoredQualifiers.count(T.Text))
        Words.push_back(T.Text);
    } else if (T.isPunct("*")) {
      ++Stars;
    } else if (T.isPunct("[")) {
      Brackets = true;
    } else if (T.isPunct("&")) {
      Reference = true;
    } else if (T.isPunct("::") && !Words.empty()) {
      Words.back() += "::";
    }
  }
  // Re-glue qualified names ("std::" + "int64_t").
  std::vector<std::string> Glued;
  for (const std::string &W : Words) {
    if (!Glued.empty() && Glued.back().size() > 2 &&
        Glued.back().compare(Glued.back().size() - 2, 2, "::") == 0)
      Glued.back() += W;
    else
      Glued.push_back(W);
  }
  // The last word is the parameter's name unless the type is all there is
  // ("float*", "unsigned int").
  if (Glued.size() >= 2 && !isTypeWord(Glued.back()))
    P.Name = Glued.back(), Glued.pop_back();
  std::string Base;
  for (const std::string &W : Glued)
    Base += (Base.empty() ? "" : " ") + W;
  if (Brackets)
    ++Stars;
  P.BaseType = Base;
  P.CanonicalType = Base + std::string(Stars, '*') + (Reference ? "&" : "");
  if (Reference)
    P.ParamKind = EntryParam::Kind::Other;
  else if (Stars > 0)
    P.ParamKind = EntryParam::Kind::Pointer;
  else if (Base == "cudaStream_t" || Base == "CUstream")
    P.ParamKind = EntryParam::Kind::Stream;
  else
    P.ParamKind = EntryParam::Kind::Scalar;
  return P;
}

/// Splits the tokens between '(' at \p Open and its ')' at commas of
/// depth zero. Returns the index of ')' or 0 when unbalanced.
std::size_t splitParams(const std::vector<Token> &Tokens, std::size_t Open,
                        std::vector<std::vector<Token>> &Out) {
  int Depth = 0;
  std::vector<Token> Current;
  for (std::size_t I = Open + 1; I < Tokens.size(); ++I) {
    const Token &T = Tokens[I];
    if (T.TokKind == Token::Kind::Punct) {
      if (T.Text == "(" || T.Text == "[" || T.Text == "{" ||
          (T.Text == "<" && I > 0 && Tokens[I - 1].isIdentifier()))
        ++Depth;
      else if (T.Text == ")" || T.Text == "]" || T.Text == "}" ||
               (T.Text == ">" && Depth > 0)) {
        if (Depth == 0 && T.Text == ")") {
          if (!Current.empty())
            Out.push_back(Current);
          return I;
        }
        --Depth;
      } else if (T.Text == "," && Depth == 0) {
        Out.push_back(Current);
        Current.clear();
        continue;
      }
    }
    Current.push_back(T);
  }
  return 0;
}

} // namespace

std::string EntrySignature::canonical() const {
  std::string Text = ReturnType + "(";
  for (std::size_t I = 0; I < Params.size(); ++I)
    Text += (I ? "," : "") + Params[I].CanonicalType;
  return Text + ")";
}

std::optional<EntrySignature>
findEntrySignature(const std::vector<Token> &Tokens,
                   const std::string &EntryName, std::string &Error) {
  std::string Name = EntryName;
  if (auto Colon = Name.rfind("::"); Colon != std::string::npos)
    Name = Name.substr(Colon + 2);

  std::optional<EntrySignature> Declaration;
  for (std::size_t I = 1; I + 1 < Tokens.size(); ++I) {
    if (!Tokens[I].isIdentifier() || Tokens[I].Text != Name ||
        !Tokens[I + 1].isPunct("("))
      continue;
    const Token &Prev = Tokens[I - 1];
    bool LooksDeclared =
        (Prev.isIdentifier() && !StatementWords.count(Prev.Text)) ||
        Prev.isPunct("*") || Prev.isPunct("&") || Prev.isPunct(">") ||
        Prev.isPunct("::");
    if (!LooksDeclared)
      continue;
    std::vector<std::vector<Token>> Groups;
    std::size_t Close = splitParams(Tokens, I + 1, Groups);
    if (Close == 0)
      continue;
    // After ')' a declaration has ';' or '{', perhaps after qualifiers or
    // attributes; anything else (an operator, ',') means an expression.
    std::size_t After = Close + 1;
    int Parens = 0;
    while (After < Tokens.size()) {
      const Token &T = Tokens[After];
      if (T.isPunct("("))
        ++Parens;
      else if (T.isPunct(")"))
        --Parens;
      else if (Parens == 0 && (T.isPunct(";") || T.isPunct("{")))
        break;
      else if (Parens == 0 && !T.isIdentifier())
        break;
      ++After;
    }
    if (After >= Tokens.size() ||
        !(Tokens[After].isPunct(";") || Tokens[After].isPunct("{")))
      continue;

    EntrySignature Sig;
    Sig.Name = EntryName;
    Sig.Line = Tokens[I].Line;
    Sig.IsDefinition = Tokens[After].isPunct("{");
    // The return type: the words back to the previous statement boundary.
    std::vector<std::string> Ret;
    std::size_t J = I - 1;
    if (Tokens[J].isPunct("::")) // qualified name: skip "ns ::"
      J = J >= 2 ? J - 2 : 0;
    for (;; --J) {
      const Token &T = Tokens[J];
      if (T.isPunct(";") || T.isPunct("{") || T.isPunct("}") ||
          T.TokKind == Token::Kind::Directive ||
          T.TokKind == Token::Kind::String || T.isPunct(")"))
        break;
      if (T.isIdentifier() && !DeclSpecifiers.count(T.Text) &&
          !IgnoredQualifiers.count(T.Text))
        Ret.insert(Ret.begin(), T.Text);
      else if (T.isPunct("*") || T.isPunct("&"))
        Ret.insert(Ret.begin(), T.Text);
      if (J == 0)
        break;
    }
    for (const std::string &W : Ret)
      Sig.ReturnType +=
          (Sig.ReturnType.empty() || W == "*" || W == "&" ? "" : " ") + W;

    bool VoidList = Groups.size() == 1 && Groups[0].size() == 1 &&
                    Groups[0][0].isIdentifier() && Groups[0][0].Text == "void";
    if (!VoidList)
      for (const auto &Group : Groups) {
        // Drop a default argument.
        std::vector<Token> Type;
        for (const Token &T : Group) {
          if (T.isPunct("="))
            break;
          Type.push_back(T);
        }
        Sig.Params.push_back(classifyParam(Type));
      }
    if (Sig.IsDefinition)
      return Sig;
    if (!Declaration)
      Declaration = Sig;
  }
  if (Declaration)
    return Declaration;
  Error =
      "no declaration or definition of '" + EntryName + "' found in the source";
  return std::nullopt;
}

} // namespace kopt::spec
