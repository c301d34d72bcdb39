//===- SourceTokenizer.cpp - A small C++ tokenizer without LLVM -----------===//
#include "kopt/Spec/SourceTokenizer.h"

#include <cctype>

namespace kopt::spec {

namespace {
bool isIdentStart(char C) {
  return std::isalpha((unsigned char)C) || C == '_' || C == '$';
}
bool isIdentChar(char C) {
  return std::isalnum((unsigned char)C) || C == '_' || C == '$';
}
} // namespace

std::vector<Token> tokenizeSource(const std::string &Src) {
  std::vector<Token> Tokens;
  std::size_t I = 0, N = Src.size();
  int Line = 1;
  bool AtLineStart = true;

  auto push = [&](Token::Kind K, std::string Text, int At) {
    Tokens.push_back(Token{K, std::move(Text), At});
    AtLineStart = false;
  };

  while (I < N) {
    char C = Src[I];
    if (C == '\n') {
      ++Line;
      ++I;
      AtLineStart = true;
      continue;
    }
    if (std::isspace((unsigned char)C)) {
      ++I;
      continue;
    }
    if (C == '/' && I + 1 < N && Src[I + 1] == '/') {
      while (I < N && Src[I] != '\n')
        ++I;
      continue;
    }
    if (C == '/' && I + 1 < N && Src[I + 1] == '*') {
      I += 2;
      while (I + 1 < N && !(Src[I] == '*' && Src[I + 1] == '/')) {
        Line += Src[I] == '\n';
        ++I;
      }
      I = I + 2 <= N ? I + 2 : N;
      continue;
    }
    if (C == '#' && AtLineStart) {
      // A directive runs to the end of the logical line.
      int Start = Line;
      std::string Text;
      while (I < N && Src[I] != '\n') {
        if (Src[I] == '\\' && I + 1 < N && Src[I + 1] == '\n') {
          I += 2;
          ++Line;
          Text += ' ';
          continue;
        }
        if (Src[I] == '/' && I + 1 < N && Src[I + 1] == '/')
          break;
        Text += Src[I++];
      }
      push(Token::Kind::Directive, Text, Start);
      AtLineStart = true;
      continue;
    }
    // Raw string literal: R"delim( ... )delim", optionally prefixed.
    if (C == 'R' && I + 1 < N && Src[I + 1] == '"') {
      std::size_t Open = Src.find('(', I + 2);
      if (Open != std::string::npos) {
        std::string Delim = ")" + Src.substr(I + 2, Open - I - 2) + "\"";
        std::size_t Close = Src.find(Delim, Open + 1);
        if (Close == std::string::npos)
          Close = N;
        int Start = Line;
        std::string Body = Src.substr(Open + 1, Close - Open - 1);
        for (char B : Body)
          Line += B == '\n';
        push(Token::Kind::String, Body, Start);
        I = Close + Delim.size() <= N ? Close + Delim.size() : N;
        continue;
      }
    }
    if (isIdentStart(C)) {
      std::size_t Start = I;
      while (I < N && isIdentChar(Src[I]))
        ++I;
      // Encoding prefixes (u8"", L'') belong to the literal that follows.
      if (I < N && (Src[I] == '"' || Src[I] == '\'')) {
        std::string Prefix = Src.substr(Start, I - Start);
        if (Prefix == "u8" || Prefix == "u" || Prefix == "U" || Prefix == "L")
          continue;
      }
      push(Token::Kind::Identifier, Src.substr(Start, I - Start), Line);
      continue;
    }
    if (std::isdigit((unsigned char)C) ||
        (C == '.' && I + 1 < N && std::isdigit((unsigned char)Src[I + 1]))) {
      std::size_t Start = I;
      while (I < N && (isIdentChar(Src[I]) || Src[I] == '.' || Src[I] == '\'' ||
                       ((Src[I] == '+' || Src[I] == '-') &&
                        (Src[I - 1] == 'e' || Src[I - 1] == 'E' ||
                         Src[I - 1] == 'p' || Src[I - 1] == 'P'))))
        ++I;
      push(Token::Kind::Number, Src.substr(Start, I - Start), Line);
      continue;
    }
    if (C == '"' || C == '\'') {
      char Quote = C;
      int Start = Line;
      std::string Text;
      ++I;
      while (I < N && Src[I] != Quote && Src[I] != '\n') {
        if (Src[I] == '\\' && I + 1 < N) {
          Text += Src[I];
          Line += Src[I + 1] == '\n';
          ++I;
        }
        Text += Src[I++];
      }
      if (I < N && Src[I] == Quote)
        ++I;
      push(Quote == '"' ? Token::Kind::String : Token::Kind::Char, Text, Start);
      continue;
    }
    if (C == ':' && I + 1 < N && Src[I + 1] == ':') {
      push(Token::Kind::Punct, "::", Line);
      I += 2;
      continue;
    }
    push(Token::Kind::Punct, std::string(1, C), Line);
    ++I;
  }
  return Tokens;
}

} // namespace kopt::spec
