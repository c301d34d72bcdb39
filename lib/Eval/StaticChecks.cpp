//===- StaticChecks.cpp - Rules a candidate must pass before it runs ------===//
#include "kopt/Eval/StaticChecks.h"

#include "kopt/Spec/ProblemValidator.h"
#include "kopt/Spec/SourceTokenizer.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace kopt::eval {

using spec::Token;

namespace {

bool allowed(const spec::Problem &P, const std::string &Library) {
  return std::find(P.AllowLibraries.begin(), P.AllowLibraries.end(), Library) !=
         P.AllowLibraries.end();
}

bool startsWith(const std::string &Text, const std::string &Prefix) {
  return Text.rfind(Prefix, 0) == 0;
}

/// The library an identifier belongs to, or empty.
std::string libraryOfIdentifier(const std::vector<Token> &Tokens,
                                std::size_t I) {
  const std::string &Word = Tokens[I].Text;
  bool Scoped = I + 1 < Tokens.size() && Tokens[I + 1].isPunct("::");
  if (startsWith(Word, "cublasLt"))
    return "cublaslt";
  if (startsWith(Word, "cublas"))
    return "cublas";
  if (startsWith(Word, "cudnn"))
    return "cudnn";
  if (startsWith(Word, "cufft"))
    return "cufft";
  if (startsWith(Word, "cusparse"))
    return "cusparse";
  if (startsWith(Word, "cusolver"))
    return "cusolver";
  // The cuRAND host API is camel case (curandGenerate); the device API
  // (curand_init, curand_uniform) is part of writing a kernel.
  if (startsWith(Word, "curand") && Word.size() > 6 &&
      std::isupper((unsigned char)Word[6]))
    return "curand";
  if (Scoped && (Word == "thrust" || Word == "cutlass" || Word == "cute" ||
                 Word == "torch"))
    return Word;
  if (Word == "cub" && Scoped && I + 2 < Tokens.size() &&
      startsWith(Tokens[I + 2].Text, "Device"))
    return "cub";
  return "";
}

std::string libraryOfInclude(const std::string &Directive) {
  static const std::regex Include(R"(^\s*#\s*include\s*[<"]([^>"]+)[>"])");
  std::smatch M;
  if (!std::regex_search(Directive, M, Include))
    return "";
  std::string Header = M[1];
  std::string Lower = Header;
  for (char &C : Lower)
    C = std::tolower((unsigned char)C);
  if (startsWith(Lower, "cublaslt"))
    return "cublaslt";
  if (startsWith(Lower, "cublas"))
    return "cublas";
  if (startsWith(Lower, "cudnn"))
    return "cudnn";
  if (startsWith(Lower, "cufft"))
    return "cufft";
  if (startsWith(Lower, "cusparse"))
    return "cusparse";
  if (startsWith(Lower, "cusolver"))
    return "cusolver";
  if (Lower == "curand.h")
    return "curand";
  for (const char *Lib : {"thrust", "cutlass", "cute"})
    if (startsWith(Lower, std::string(Lib) + "/"))
      return Lib;
  if (startsWith(Lower, "torch/") || startsWith(Lower, "aten/"))
    return "torch";
  return "";
}

/// [begin, end) token ranges of the bodies of __global__/__device__
/// functions.
std::vector<std::pair<std::size_t, std::size_t>>
deviceBodies(const std::vector<Token> &Tokens) {
  std::vector<std::pair<std::size_t, std::size_t>> Bodies;
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    if (!Tokens[I].isIdentifier() ||
        (Tokens[I].Text != "__global__" && Tokens[I].Text != "__device__"))
      continue;
    // A function has '(' ... ')' then '{' before any ';' or '='.
    std::size_t J = I + 1;
    bool SawParen = false;
    for (; J < Tokens.size(); ++J) {
      if (Tokens[J].isPunct("(")) {
        SawParen = true;
        int Depth = 0;
        for (; J < Tokens.size(); ++J) {
          if (Tokens[J].isPunct("("))
            ++Depth;
          else if (Tokens[J].isPunct(")") && --Depth == 0)
            break;
        }
        continue;
      }
      if (Tokens[J].isPunct(";") || Tokens[J].isPunct("=") ||
          Tokens[J].isPunct("{"))
        break;
    }
    if (!SawParen || J >= Tokens.size() || !Tokens[J].isPunct("{"))
      continue;
    std::size_t Begin = J;
    int Depth = 0;
    for (; J < Tokens.size(); ++J) {
      if (Tokens[J].isPunct("{"))
        ++Depth;
      else if (Tokens[J].isPunct("}") && --Depth == 0)
        break;
    }
    Bodies.emplace_back(Begin, J);
    I = J;
  }
  return Bodies;
}

/// Indices of string tokens inside asm(...) statements: only there does a
/// string become PTX.
std::vector<bool> inlineAsmStrings(const std::vector<Token> &Tokens) {
  std::vector<bool> InAsm(Tokens.size(), false);
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    const std::string &W = Tokens[I].Text;
    if (!Tokens[I].isIdentifier() ||
        (W != "asm" && W != "__asm__" && W != "__asm"))
      continue;
    std::size_t J = I + 1;
    while (J < Tokens.size() && Tokens[J].isIdentifier()) // volatile, goto
      ++J;
    if (J >= Tokens.size() || !Tokens[J].isPunct("("))
      continue;
    for (int Depth = 0; J < Tokens.size(); ++J) {
      if (Tokens[J].isPunct("("))
        ++Depth;
      else if (Tokens[J].isPunct(")") && --Depth == 0)
        break;
      else if (Tokens[J].TokKind == Token::Kind::String)
        InAsm[J] = true;
    }
    I = J;
  }
  return InAsm;
}

bool mentionsTimerRegister(const std::string &Text) {
  static const std::regex Timer(R"(%(clock|clock64|globaltimer)\b)");
  return std::regex_search(Text, Timer);
}

} // namespace

std::vector<RuleViolation> checkSourceRules(const std::string &Source,
                                            const spec::Problem &P) {
  std::vector<RuleViolation> Violations;
  std::vector<Token> Tokens = spec::tokenizeSource(Source);

  std::vector<bool> InAsm = inlineAsmStrings(Tokens);
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    const Token &T = Tokens[I];
    if (T.TokKind == Token::Kind::Directive) {
      std::string Lib = libraryOfInclude(T.Text);
      if (!Lib.empty() && !allowed(P, Lib))
        Violations.push_back({"vendor-library",
                              "includes a " + Lib +
                                  " header; problem.json does not list '" +
                                  Lib + "' in allow_libraries",
                              T.Line});
      continue;
    }
    if (T.TokKind == Token::Kind::String && InAsm[I] &&
        mentionsTimerRegister(T.Text)) {
      Violations.push_back(
          {"timer-read",
           "inline PTX reads a timer register (\"" + T.Text + "\")", T.Line});
      continue;
    }
    if (!T.isIdentifier())
      continue;
    bool Called = I + 1 < Tokens.size() && Tokens[I + 1].isPunct("(");
    bool Member =
        I > 0 && (Tokens[I - 1].isPunct(".") || Tokens[I - 1].isPunct(">"));
    std::string Lib = libraryOfIdentifier(Tokens, I);
    if (!Lib.empty() && !allowed(P, Lib)) {
      Violations.push_back({"vendor-library",
                            "uses " + Lib + " ('" + T.Text +
                                "'); problem.json does not list '" + Lib +
                                "' in allow_libraries",
                            T.Line});
      continue;
    }
    if (Called && !Member && (T.Text == "dlopen" || T.Text == "dlsym")) {
      Violations.push_back({"vendor-library",
                            "loads code at run time ('" + T.Text + "')",
                            T.Line});
      continue;
    }
    if (Called && !Member &&
        (T.Text == "clock" || T.Text == "clock64" || T.Text == "__clock64" ||
         T.Text == "__globaltimer" || T.Text == "globaltimer"))
      Violations.push_back(
          {"timer-read", "reads a timer ('" + T.Text + "()')", T.Line});
  }

  for (auto [Begin, End] : deviceBodies(Tokens))
    for (std::size_t I = Begin; I < End; ++I)
      if (Tokens[I].isIdentifier() &&
          (Tokens[I].Text == "printf" || Tokens[I].Text == "vprintf") &&
          I + 1 < End && Tokens[I + 1].isPunct("("))
        Violations.push_back(
            {"device-printf", "calls printf in device code", Tokens[I].Line});
  return Violations;
}

std::vector<RuleViolation> checkSassRules(const std::string &Sass,
                                          const spec::Problem &P) {
  (void)P;
  std::vector<RuleViolation> Violations;
  static const std::regex Timer(
      R"(SR_(CLOCKLO|CLOCKHI|GLOBALTIMERLO|GLOBALTIMERHI|GLOBALTIMER)\b)");
  std::smatch M;
  if (std::regex_search(Sass, M, Timer))
    Violations.push_back({"timer-read",
                          "the compiled code reads " + M.str(0) +
                              " (a clock or the global timer)",
                          0});
  if (Sass.find("vprintf") != std::string::npos)
    Violations.push_back(
        {"device-printf", "the compiled code calls vprintf", 0});
  return Violations;
}

std::vector<RuleViolation>
checkEntrySignatureRule(const std::string &CandidateSource,
                        const spec::EntrySignature &Reference,
                        const spec::Problem &P) {
  std::vector<RuleViolation> Violations;
  std::string Error;
  auto Sig = spec::findEntrySignature(spec::tokenizeSource(CandidateSource),
                                      P.Entry, Error);
  if (!Sig) {
    Violations.push_back({"entry-signature", Error, 0});
    return Violations;
  }
  if (Sig->canonical() != Reference.canonical())
    Violations.push_back({"entry-signature",
                          "entry '" + P.Entry + "' changed from " +
                              Reference.canonical() + " to " + Sig->canonical(),
                          Sig->Line});
  return Violations;
}

std::string describeViolation(const RuleViolation &V, const std::string &File) {
  std::string Where =
      V.Line > 0 ? File + ":" + std::to_string(V.Line) : File + " (SASS)";
  return Where + ": [" + V.Rule + "] " + V.Message;
}

} // namespace kopt::eval
