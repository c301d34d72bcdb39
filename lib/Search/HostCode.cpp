//===- HostCode.cpp - What of a source the GPU's SASS does not show -------===//
#include "kopt/Search/HostCode.h"

#include "kopt/Spec/SourceTokenizer.h"

#include <vector>

namespace kopt::search {

using spec::Token;

namespace {

bool isDeviceOnly(const std::vector<Token> &Head) {
  bool Device = false, Host = false;
  for (const Token &T : Head) {
    if (!T.isIdentifier())
      continue;
    Device |= T.Text == "__global__" || T.Text == "__device__";
    Host |= T.Text == "__host__";
  }
  return Device && !Host;
}

void append(std::string &Out, const Token &T) {
  if (T.TokKind == Token::Kind::String)
    Out += "\"" + T.Text + "\"";
  else if (T.TokKind == Token::Kind::Char)
    Out += "'" + T.Text + "'";
  else
    Out += T.Text;
  Out += T.TokKind == Token::Kind::Directive ? "\n" : " ";
}

} // namespace

std::string hostFingerprint(const std::string &Source) {
  std::vector<Token> Tokens = spec::tokenizeSource(Source);
  std::string Out;
  std::vector<Token> Head; // the top-level declaration read so far
  int Parens = 0;
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    const Token &T = Tokens[I];
    if (T.TokKind == Token::Kind::Directive && Head.empty()) {
      append(Out, T);
      continue;
    }
    if (T.isPunct("("))
      ++Parens;
    if (T.isPunct(")"))
      --Parens;
    bool Body = T.isPunct("{") && Parens == 0 && !Head.empty() &&
                Head.back().isPunct(")");
    bool Ends =
        (T.isPunct(";") && Parens == 0) || T.isPunct("{") || T.isPunct("}");
    if (Body && isDeviceOnly(Head)) {
      // Skip the whole definition: its head and its balanced body.
      int Depth = 0;
      for (; I < Tokens.size(); ++I) {
        Depth += Tokens[I].isPunct("{") - Tokens[I].isPunct("}");
        if (Depth == 0)
          break;
      }
      Head.clear();
      continue;
    }
    Head.push_back(T);
    if (Ends) {
      for (const Token &H : Head)
        append(Out, H);
      Head.clear();
    }
  }
  for (const Token &H : Head)
    append(Out, H);
  return Out;
}

} // namespace kopt::search
