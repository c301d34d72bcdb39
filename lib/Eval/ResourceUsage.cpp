//===- ResourceUsage.cpp - What ptxas and the SASS say --------------------===//
#include "kopt/Eval/ResourceUsage.h"

#include <cstdlib>
#include <cxxabi.h>
#include <regex>
#include <sstream>

namespace kopt::eval {

KernelResources &ResourceUsage::kernel(const std::string &Mangled) {
  for (KernelResources &K : Kernels)
    if (K.MangledName == Mangled)
      return K;
  KernelResources K;
  K.MangledName = Mangled;
  K.Name = demangle(Mangled);
  Kernels.push_back(K);
  return Kernels.back();
}

std::string demangle(const std::string &Mangled) {
  int Status = 0;
  char *Text = abi::__cxa_demangle(Mangled.c_str(), nullptr, nullptr, &Status);
  if (Status != 0 || !Text)
    return Mangled;
  std::string Result = Text;
  std::free(Text);
  return Result;
}

void parsePtxasLog(const std::string &Log, ResourceUsage &Usage) {
  static const std::regex Entry(R"(Compiling entry function '([^']+)')");
  static const std::regex Properties(R"(Function properties for (\S+))");
  static const std::regex Frame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex Used(R"(Used (\d+) registers)");
  static const std::regex Smem(R"((\d+) bytes smem)");

  std::istringstream In(Log);
  std::string Line, CurrentEntry, CurrentProperties;
  std::smatch M;
  while (std::getline(In, Line)) {
    if (std::regex_search(Line, M, Entry)) {
      CurrentEntry = M[1];
      Usage.kernel(CurrentEntry);
    } else if (std::regex_search(Line, M, Properties)) {
      CurrentProperties = M[1];
    } else if (std::regex_search(Line, M, Frame)) {
      // Properties of device functions are reported too; keep kernels only.
      for (KernelResources &K : Usage.Kernels)
        if (K.MangledName == CurrentProperties) {
          K.StackFrameBytes = std::stoi(M[1]);
          K.SpillStoreBytes = std::stoi(M[2]);
          K.SpillLoadBytes = std::stoi(M[3]);
        }
    } else if (std::regex_search(Line, M, Used) && !CurrentEntry.empty()) {
      KernelResources &K = Usage.kernel(CurrentEntry);
      K.Registers = std::stoi(M[1]);
      std::smatch S;
      if (std::regex_search(Line, S, Smem))
        K.SharedBytes = std::stoi(S[1]);
    }
  }
  // "Function properties" can precede "Compiling entry function"; apply
  // stack frames again now that every kernel is known.
  In.clear();
  In.str(Log);
  while (std::getline(In, Line)) {
    if (std::regex_search(Line, M, Properties))
      CurrentProperties = M[1];
    else if (std::regex_search(Line, M, Frame))
      for (KernelResources &K : Usage.Kernels)
        if (K.MangledName == CurrentProperties) {
          K.StackFrameBytes = std::stoi(M[1]);
          K.SpillStoreBytes = std::stoi(M[2]);
          K.SpillLoadBytes = std::stoi(M[3]);
        }
  }
}

int globalAccessWidth(const std::string &Opcode) {
  std::vector<std::string> Parts;
  std::stringstream In(Opcode);
  std::string Part;
  while (std::getline(In, Part, '.'))
    Parts.push_back(Part);
  if (Parts.empty() || (Parts[0] != "LDG" && Parts[0] != "STG"))
    return 0;
  int Width = 32;
  for (std::size_t I = 1; I < Parts.size(); ++I) {
    const std::string &P = Parts[I];
    if (P == "64" || P == "128" || P == "256")
      Width = std::stoi(P);
    else if (P == "U8" || P == "S8")
      Width = 8;
    else if (P == "U16" || P == "S16")
      Width = 16;
  }
  return Width;
}

void parseSass(const std::string &Sass, ResourceUsage &Usage) {
  static const std::regex Function(R"(Function : (\S+))");
  // "/*0050*/   @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;"
  static const std::regex Instruction(
      R"(/\*[0-9a-f]+\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_.]*))");
  std::istringstream In(Sass);
  std::string Line, Current;
  std::smatch M;
  while (std::getline(In, Line)) {
    if (std::regex_search(Line, M, Function)) {
      Current = M[1];
      Usage.SassAvailable = true;
      continue;
    }
    if (Current.empty() || !std::regex_search(Line, M, Instruction))
      continue;
    std::string Opcode = M[1];
    int Width = globalAccessWidth(Opcode);
    if (Width == 0)
      continue;
    KernelResources &K = Usage.kernel(Current);
    if (Opcode.rfind("LDG", 0) == 0)
      ++K.GlobalLoadWidths[Width];
    else
      ++K.GlobalStoreWidths[Width];
  }
}

} // namespace kopt::eval
