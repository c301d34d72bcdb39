//===- StaticChecks.cpp - Rules a candidate must pass before it runs ------===//
#include "kopt/Eval/StaticChecks.h"

#include "HostApiRules.h"

#include "kopt/Spec/ProblemValidator.h"
#include "kopt/Spec/SourceTokenizer.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

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
    // Preprocessed source spells them __attribute__((global)), ((device)).
    bool Attribute =
        Tokens[I].isIdentifier() && Tokens[I].Text == "__attribute__" &&
        I + 3 < Tokens.size() && Tokens[I + 1].isPunct("(") &&
        Tokens[I + 2].isPunct("(") && Tokens[I + 3].isIdentifier() &&
        (Tokens[I + 3].Text == "global" || Tokens[I + 3].Text == "device");
    if (!Attribute &&
        (!Tokens[I].isIdentifier() ||
         (Tokens[I].Text != "__global__" && Tokens[I].Text != "__device__")))
      continue;
    if (Attribute)
      I += 5; // to the second ')' of __attribute__((global))
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

bool isAsmKeyword(const Token &T) {
  return T.isIdentifier() &&
         (T.Text == "asm" || T.Text == "__asm__" || T.Text == "__asm");
}

/// Indices of string tokens inside asm(...) statements: only there does a
/// string become PTX. Adjacent literals ("%%global" "timer") are one string:
/// the first of a run gets the joined text in \p Joined.
std::vector<bool> inlineAsmStrings(const std::vector<Token> &Tokens,
                                   std::vector<std::string> &Joined) {
  Joined.assign(Tokens.size(), "");
  std::vector<bool> InAsm(Tokens.size(), false);
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    if (!isAsmKeyword(Tokens[I]))
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
      else if (Tokens[J].TokKind == Token::Kind::String) {
        InAsm[J] = true;
        std::size_t First = J;
        Joined[First] = Tokens[J].Text;
        while (J + 1 < Tokens.size() &&
               Tokens[J + 1].TokKind == Token::Kind::String) {
          ++J;
          InAsm[J] = true;
          Joined[First] += Tokens[J].Text;
        }
      }
    }
    I = J;
  }
  return InAsm;
}

bool mentionsTimerRegister(const std::string &Text) {
  // PTX special registers: %clock, %clock_hi, %clock64, %globaltimer,
  // %globaltimer_lo, %globaltimer_hi.
  static const std::regex Timer(
      R"(%(clock|clock_hi|clock64|globaltimer|globaltimer_lo|globaltimer_hi)\b)");
  return std::regex_search(Text, Timer);
}

} // namespace

std::vector<RuleViolation> checkSourceRules(const std::string &Source,
                                            const spec::Problem &P) {
  std::vector<RuleViolation> Violations;
  std::vector<Token> Tokens = spec::tokenizeSource(Source);

  std::vector<std::string> JoinedAsm;
  std::vector<bool> InAsm = inlineAsmStrings(Tokens, JoinedAsm);
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
        mentionsTimerRegister(JoinedAsm[I])) {
      Violations.push_back(
          {"timer-read",
           "inline PTX reads a timer register (\"" + JoinedAsm[I] + "\")",
           T.Line});
      continue;
    }
    if (!T.isIdentifier())
      continue;
    if (std::optional<RuleViolation> V = checkHostApiToken(Tokens, I)) {
      Violations.push_back(*V);
      continue;
    }
    bool Called = I + 1 < Tokens.size() && Tokens[I + 1].isPunct("(");
    bool Member =
        I > 0 && (Tokens[I - 1].isPunct(".") || Tokens[I - 1].isPunct(">"));
    std::string Lib = libraryOfIdentifier(Tokens, I);
    if (!Lib.empty() && !allowed(P, Lib)) {
      RuleViolation V{"vendor-library",
                      "uses " + Lib + " ('" + T.Text +
                          "'); problem.json does not list '" + Lib +
                          "' in allow_libraries",
                      T.Line};
      // Header-only libraries leave no import behind; a host library's
      // calls are decided by the compiled library's imports.
      V.SecondOpinion = !libraryOfSymbol(T.Text).empty();
      Violations.push_back(V);
      continue;
    }
    if (Called && !Member && (T.Text == "dlopen" || T.Text == "dlsym")) {
      RuleViolation V{"vendor-library",
                      "loads code at run time ('" + T.Text + "')", T.Line};
      V.SecondOpinion = true;
      Violations.push_back(V);
      continue;
    }
    if (Called && !Member &&
        (T.Text == "clock" || T.Text == "clock64" || T.Text == "__clock64" ||
         T.Text == "__globaltimer" || T.Text == "globaltimer")) {
      // clock() is also the C library's: on the host the imports decide,
      // in device code the SASS does.
      RuleViolation V{"timer-read", "reads a timer ('" + T.Text + "()')",
                      T.Line};
      V.SecondOpinion = T.Text == "clock";
      Violations.push_back(V);
    }
  }

  std::vector<bool> InDevice(Tokens.size(), false);
  for (auto [Begin, End] : deviceBodies(Tokens))
    for (std::size_t I = Begin; I < End; ++I) {
      InDevice[I] = true;
      if (Tokens[I].isIdentifier() &&
          (Tokens[I].Text == "printf" || Tokens[I].Text == "vprintf") &&
          I + 1 < End && Tokens[I + 1].isPunct("("))
        Violations.push_back(
            {"device-printf", "calls printf in device code", Tokens[I].Line});
    }
  // Host inline assembly can make system calls no name gives away; the
  // compiled library's instructions decide (ObjectRules.h).
  for (std::size_t I = 0; I < Tokens.size(); ++I) {
    if (!InDevice[I] && isAsmKeyword(Tokens[I])) {
      RuleViolation V{"process-control", "has inline assembly in host code",
                      Tokens[I].Line};
      V.SecondOpinion = true;
      Violations.push_back(V);
    }
  }
  return Violations;
}

namespace {
/// The vendor library a header belongs to, from its resolved path.
std::string libraryOfHeaderPath(const std::string &Path) {
  std::string Lower = Path;
  for (char &C : Lower)
    C = std::tolower((unsigned char)C);
  std::string Base = Lower.substr(Lower.find_last_of('/') + 1);
  for (const char *Lib :
       {"cublaslt", "cublas", "cudnn", "cufft", "cusparse", "cusolver"})
    if (startsWith(Base, Lib))
      return Lib;
  if (Base == "curand.h")
    return "curand";
  for (const char *Lib : {"thrust", "cutlass", "cute", "torch", "aten"})
    if (Lower.find(std::string("/") + Lib + "/") != std::string::npos)
      return std::string(Lib) == "aten" ? "torch" : Lib;
  return "";
}

bool underDirectory(const std::string &Path, const std::string &Dir) {
  if (Dir.empty())
    return false;
  std::string Prefix = Dir.back() == '/' ? Dir : Dir + "/";
  return startsWith(Path, Prefix);
}
} // namespace

std::vector<RuleViolation>
checkPreprocessedRules(const std::string &Preprocessed, const spec::Problem &P,
                       const std::vector<std::string> &SystemDirs) {
  static const std::regex Marker(R"re(^#\s*(\d+)\s+"([^"]*)"(.*)$)re");
  std::vector<RuleViolation> Violations;
  std::string UserText;
  std::vector<std::pair<std::string, int>> Origin; // per line of UserText
  std::string File;
  int Line = 1;
  bool User = false;
  auto isUser = [&](const std::string &F, const std::string &Flags) {
    if (F.empty() || F[0] == '<')
      return false;
    if (Flags.find(" 3") != std::string::npos)
      return false; // a system header
    for (const std::string &Dir : SystemDirs)
      if (underDirectory(F, Dir))
        return false;
    return true;
  };
  std::istringstream In(Preprocessed);
  std::string Text;
  std::smatch M;
  while (std::getline(In, Text)) {
    if (!Text.empty() && Text[0] == '#' && std::regex_match(Text, M, Marker)) {
      std::string Next = M[2], Flags = M[3];
      bool Entering = (" " + Flags + " ").find(" 1 ") != std::string::npos;
      if (Entering && User) {
        std::string Lib = libraryOfHeaderPath(Next);
        if (!Lib.empty() && !allowed(P, Lib))
          Violations.push_back({"vendor-library",
                                "includes a " + Lib + " header ('" + Next +
                                    "'); problem.json does not list '" + Lib +
                                    "' in allow_libraries",
                                Line, File});
      }
      File = Next;
      Line = std::stoi(M[1].str());
      User = isUser(File, Flags);
      continue;
    }
    if (User) {
      UserText += Text;
      UserText += '\n';
      Origin.emplace_back(File, Line);
    }
    ++Line;
  }
  for (RuleViolation V : checkSourceRules(UserText, P)) {
    if (V.Line >= 1 && static_cast<std::size_t>(V.Line) <= Origin.size()) {
      V.File = Origin[V.Line - 1].first;
      V.Line = Origin[V.Line - 1].second;
    }
    Violations.push_back(V);
  }
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
  const std::string &In = V.File.empty() ? File : V.File;
  std::string Where =
      V.Line > 0 ? In + ":" + std::to_string(V.Line)
                 : In + " (" + (V.Origin.empty() ? "SASS" : V.Origin) + ")";
  return Where + ": [" + V.Rule + "] " + V.Message;
}

} // namespace kopt::eval
