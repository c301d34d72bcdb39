//===- ProblemValidator.cpp - Checks a problem against its source ---------===//
#include "kopt/Spec/ProblemValidator.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace kopt::spec {

namespace {

/// Which dtypes a known C/C++ type name may carry. Vector types (float4,
/// uint4, ...) are how fast kernels load data, so pointer parameters of
/// those types accept any dtype of the same element family or raw bytes.
const std::map<std::string, std::set<DType>> &knownTypes() {
  using D = DType;
  static const std::map<std::string, std::set<DType>> Table = {
      {"double", {D::F64}},
      {"float", {D::F32}},
      {"__half", {D::F16}},
      {"half", {D::F16}},
      {"__half2", {D::F16}},
      {"half2", {D::F16}},
      {"__nv_bfloat16", {D::BF16}},
      {"nv_bfloat16", {D::BF16}},
      {"__nv_bfloat162", {D::BF16}},
      {"nv_bfloat162", {D::BF16}},
      {"__nv_fp8_e4m3", {D::FP8E4M3}},
      {"__nv_fp8x2_e4m3", {D::FP8E4M3}},
      {"__nv_fp8x4_e4m3", {D::FP8E4M3}},
      {"__nv_fp8_e5m2", {D::FP8E5M2}},
      {"__nv_fp8x2_e5m2", {D::FP8E5M2}},
      {"__nv_fp8x4_e5m2", {D::FP8E5M2}},
      {"bool", {D::U8, D::I8}},
      {"int8_t", {D::I8, D::U8, D::FP8E4M3, D::FP8E5M2}},
      {"signed char", {D::I8}},
      {"uint8_t", {D::U8, D::I8, D::FP8E4M3, D::FP8E5M2}},
      {"unsigned char", {D::U8, D::I8, D::FP8E4M3, D::FP8E5M2}},
      {"char", {D::I8, D::U8, D::FP8E4M3, D::FP8E5M2}},
      {"int16_t", {D::I16}},
      {"short", {D::I16}},
      {"int", {D::I32}},
      {"int32_t", {D::I32}},
      {"signed", {D::I32}},
      {"unsigned", {D::U32}},
      {"unsigned int", {D::U32}},
      {"uint32_t", {D::U32}},
      {"long", {D::I64}},
      {"long long", {D::I64}},
      {"int64_t", {D::I64}},
      {"ptrdiff_t", {D::I64}},
      {"unsigned long", {D::U64}},
      {"unsigned long long", {D::U64}},
      {"uint64_t", {D::U64}},
      {"size_t", {D::U64, D::I64}},
  };
  return Table;
}

std::string stripStd(const std::string &Name) {
  if (Name.rfind("std::", 0) == 0)
    return Name.substr(5);
  return Name;
}

std::string argKindWord(const Arg &A) {
  if (A.isBuffer())
    return "a buffer (" + std::string(dtypeName(A.Type)) + ")";
  if (A.isScalar())
    return "a scalar (" + std::string(dtypeName(A.Type)) + ")";
  return "the stream";
}

} // namespace

std::optional<std::string> readTextFile(const std::filesystem::path &Path) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return std::nullopt;
  std::stringstream Buffer;
  Buffer << In.rdbuf();
  return Buffer.str();
}

bool typeCanCarry(const std::string &TypeName, DType T, bool IsPointer) {
  std::string Name = stripStd(TypeName);
  if (IsPointer && Name == "void")
    return true;
  const auto &Table = knownTypes();
  auto It = Table.find(Name);
  if (It == Table.end())
    return true; // a typedef or struct: the spec's dtype is authoritative
  return It->second.count(T) > 0;
}

std::vector<std::string> checkEntryAgainstArgs(const Problem &P,
                                               const EntrySignature &Sig,
                                               const std::string &File) {
  std::vector<std::string> Errors;
  std::string Where =
      "entry '" + P.Entry + "' (" + File + ":" + std::to_string(Sig.Line) + ")";
  if (Sig.Params.size() != P.Args.size()) {
    std::string Detail;
    bool EntryHasStream = !Sig.Params.empty() && Sig.Params.back().ParamKind ==
                                                     EntryParam::Kind::Stream;
    if (P.hasStreamArg() && !EntryHasStream)
      Detail = "; the entry takes no stream: drop the spec's stream "
               "argument and the run uses the default stream";
    else if (!P.hasStreamArg() && EntryHasStream)
      Detail = "; the entry's last parameter is a cudaStream_t: add "
               "{\"name\": \"stream\", \"stream\": true} to args";
    Errors.push_back(Where + ": has " + std::to_string(Sig.Params.size()) +
                     " parameters but args lists " +
                     std::to_string(P.Args.size()) + Detail);
    return Errors;
  }
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    const EntryParam &Param = Sig.Params[I];
    std::string ArgWhere =
        "args[" + std::to_string(I) + "] (\"" + A.Name + "\")";
    std::string ParamText =
        "parameter " + std::to_string(I + 1) + " '" + Param.CanonicalType +
        (Param.Name.empty() ? "" : " " + Param.Name) + "' of " + Where;
    auto Mismatch = [&](const std::string &Why) {
      Errors.push_back(ArgWhere + ": is " + argKindWord(A) + " but " +
                       ParamText + " " + Why);
    };
    switch (Param.ParamKind) {
    case EntryParam::Kind::Pointer:
      if (!A.isBuffer())
        Mismatch("is a pointer");
      else if (!typeCanCarry(Param.BaseType, A.Type, true))
        Mismatch("points to '" + Param.BaseType + "'");
      break;
    case EntryParam::Kind::Stream:
      if (!A.isStream())
        Mismatch("is a cudaStream_t");
      break;
    case EntryParam::Kind::Scalar:
      if (!A.isScalar())
        Mismatch("is a scalar");
      else if (!typeCanCarry(Param.BaseType, A.Type, false))
        Mismatch("has type '" + Param.BaseType + "'");
      break;
    case EntryParam::Kind::Other:
      Mismatch("is passed by reference, which the evaluator cannot supply");
      break;
    }
  }
  return Errors;
}

std::vector<std::string> validateProblemSources(const Problem &P) {
  std::vector<std::string> Errors;
  std::set<std::string> Checked;
  for (const auto &[Field, File] :
       {std::pair<std::string, std::string>{"source", P.Source},
        {"reference", P.Reference}}) {
    if (!Checked.insert(File).second)
      continue;
    std::filesystem::path Path = P.Directory / File;
    auto Text = readTextFile(Path);
    if (!Text) {
      Errors.push_back(Field + ": cannot read '" + Path.string() + "'");
      continue;
    }
    std::string Error;
    auto Sig = findEntrySignature(tokenizeSource(*Text), P.Entry, Error);
    if (!Sig) {
      Errors.push_back("entry: " + Error + " '" + File + "'");
      continue;
    }
    for (std::string &E : checkEntryAgainstArgs(P, *Sig, File))
      Errors.push_back(std::move(E));
  }
  for (std::size_t I = 0; I < P.FileChecks.size(); ++I) {
    std::filesystem::path Path = P.Directory / P.FileChecks[I].File;
    if (!readTextFile(Path))
      Errors.push_back("filecheck[" + std::to_string(I) +
                       "].file: cannot read '" + Path.string() + "'");
  }
  return Errors;
}

} // namespace kopt::spec
