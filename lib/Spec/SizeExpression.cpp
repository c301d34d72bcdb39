//===- SizeExpression.cpp - Arithmetic over shape sizes -------------------===//
//
// A recursive-descent parser: expr := term (('+'|'-') term)*,
// term := factor (('*'|'/') factor)*, factor := number | name | '(' expr ')'
// | '-' factor.
//
//===----------------------------------------------------------------------===//
#include "kopt/Spec/SizeExpression.h"

#include <cctype>
#include <cstdlib>

namespace kopt::spec {

namespace {
class Parser {
public:
  Parser(const std::string &Text, const Shape &S) : Text(Text), S(S) {}

  SizeExpressionResult run() {
    SizeExpressionResult R;
    R.Value = expression();
    skipSpace();
    if (Error.empty() && Pos != Text.size())
      fail("unexpected '" + std::string(1, Text[Pos]) + "'");
    R.Error = Error;
    return R;
  }

private:
  const std::string &Text;
  const Shape &S;
  std::size_t Pos = 0;
  std::string Error;

  void fail(const std::string &Message) {
    if (Error.empty())
      Error =
          Message + " at offset " + std::to_string(Pos) + " of '" + Text + "'";
  }

  void skipSpace() {
    while (Pos < Text.size() && std::isspace((unsigned char)Text[Pos]))
      ++Pos;
  }

  bool accept(char C) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }

  double expression() {
    double V = term();
    while (Error.empty()) {
      if (accept('+'))
        V += term();
      else if (accept('-'))
        V -= term();
      else
        break;
    }
    return V;
  }

  double term() {
    double V = factor();
    while (Error.empty()) {
      if (accept('*')) {
        V *= factor();
      } else if (accept('/')) {
        double D = factor();
        if (D == 0.0) {
          fail("division by zero");
          return 0.0;
        }
        V /= D;
      } else {
        break;
      }
    }
    return V;
  }

  double factor() {
    skipSpace();
    if (Pos >= Text.size()) {
      fail("expression ends early");
      return 0.0;
    }
    if (accept('-'))
      return -factor();
    if (accept('(')) {
      double V = expression();
      if (!accept(')'))
        fail("missing ')'");
      return V;
    }
    char C = Text[Pos];
    if (std::isdigit((unsigned char)C) || C == '.') {
      const char *Begin = Text.c_str() + Pos;
      char *End = nullptr;
      double V = std::strtod(Begin, &End);
      Pos += End - Begin;
      return V;
    }
    if (std::isalpha((unsigned char)C) || C == '_') {
      std::size_t Start = Pos;
      while (Pos < Text.size() &&
             (std::isalnum((unsigned char)Text[Pos]) || Text[Pos] == '_'))
        ++Pos;
      std::string Name = Text.substr(Start, Pos - Start);
      if (auto V = S.size(Name))
        return static_cast<double>(*V);
      Pos = Start;
      fail("unknown size name '" + Name + "'");
      return 0.0;
    }
    fail("unexpected '" + std::string(1, C) + "'");
    return 0.0;
  }
};
} // namespace

SizeExpressionResult evaluateSizeExpression(const std::string &Text,
                                            const Shape &S) {
  return Parser(Text, S).run();
}

} // namespace kopt::spec
