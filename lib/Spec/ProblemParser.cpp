//===- ProblemParser.cpp - Reads problem.json into a Problem --------------===//
#include "kopt/Spec/ProblemParser.h"
#include "SpecReader.h"
#include "kopt/Spec/SizeExpression.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace kopt::spec {

using detail::int64Value;
using detail::SpecReader;
using nlohmann::json;

namespace {

const std::set<std::string> KnownTopLevelFields = {
    "name",      "source",          "entry",           "args",
    "shapes",    "benchmark_shape", "tolerance",       "reference",
    "bytes",     "flops",           "allow_libraries", "fast_math",
    "timeout_s", "nvcc_flags",      "seeds",           "description",
    "filecheck"};

const std::set<std::string> KnownLibraries = {
    "cublas",   "cublaslt", "cudnn", "cufft",  "curand", "cusparse",
    "cusolver", "cutlass",  "cute",  "thrust", "cub"};

} // namespace

namespace detail {

std::optional<std::int64_t> int64Value(const json &J) {
  if (J.is_number_unsigned()) {
    auto U = J.get<std::uint64_t>();
    if (U >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      return std::nullopt;
    return static_cast<std::int64_t>(U);
  }
  if (J.is_number_integer())
    return J.get<std::int64_t>();
  return std::nullopt;
}

void SpecReader::readShapes(const json &Root, Problem &P) {
  auto It = Root.find("shapes");
  if (It == Root.end()) {
    error("", "missing field 'shapes'");
    return;
  }
  if (!It->is_array() || It->empty()) {
    error("shapes", "must be a non-empty array of objects such as "
                    "{\"n\": 1024}");
    return;
  }
  for (std::size_t I = 0; I < It->size(); ++I) {
    const json &Entry = (*It)[I];
    std::string Where = "shapes[" + std::to_string(I) + "]";
    if (!Entry.is_object() || Entry.empty()) {
      error(Where, "must be a non-empty object of size names to positive "
                   "integers");
      continue;
    }
    Shape S;
    for (auto &[Key, Value] : Entry.items()) {
      if (!isIdentifier(Key)) {
        error(Where, "size name '" + Key + "' is not an identifier");
        continue;
      }
      auto Size = int64Value(Value);
      if (!Size || *Size <= 0) {
        error(join(Where, Key), "must be a positive integer (at most "
                                "2^63 - 1)");
        continue;
      }
      S.Sizes.emplace_back(Key, *Size);
    }
    P.Shapes.push_back(std::move(S));
  }
}

/// Checks that every shape defines \p Name.
bool SpecReader::sizeDefined(const Problem &P, const std::string &Name,
                             const std::string &Where) {
  for (std::size_t I = 0; I < P.Shapes.size(); ++I) {
    if (!P.Shapes[I].size(Name)) {
      error(Where, "unknown size name '" + Name + "': shapes[" +
                       std::to_string(I) + "] does not define it");
      return false;
    }
  }
  return true;
}

std::optional<Tolerance> SpecReader::readTolerance(const json &J,
                                                   const std::string &Where) {
  if (!J.is_object()) {
    error(Where, "must be an object {\"atol\": ..., \"rtol\": ...}");
    return std::nullopt;
  }
  Tolerance T;
  for (auto &[Key, Value] : J.items())
    if (Key != "atol" && Key != "rtol")
      error(Where, "unknown field '" + Key + "' (known: atol, rtol)");
  if (auto A = number(J, "atol", Where, false))
    T.Atol = *A;
  if (auto R = number(J, "rtol", Where, false))
    T.Rtol = *R;
  if (T.Atol < 0 || T.Rtol < 0) {
    error(Where, "atol and rtol must not be negative");
    return std::nullopt;
  }
  return T;
}

/// Every buffer's byte size at every shape must be computable without
/// overflow and at most MaxBufferBytes; every size a scalar takes must
/// fit the scalar's dtype.
void SpecReader::checkSizes(const Problem &P) {
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    const Arg &A = P.Args[I];
    std::string Where = "args[" + std::to_string(I) + "] (\"" + A.Name + "\")";
    for (std::size_t S = 0; S < P.Shapes.size(); ++S) {
      std::string ShapeText =
          "shapes[" + std::to_string(S) + "] {" + P.Shapes[S].describe() + "}";
      if (A.isBuffer()) {
        auto Bytes = checkedBufferBytes(A, P.Shapes[S]);
        if (!Bytes) {
          error(Where + ".shape", "at " + ShapeText +
                                      " the buffer's element count or byte "
                                      "size overflows 64 bits");
          break;
        }
        if (*Bytes > MaxBufferBytes) {
          error(Where + ".shape", "at " + ShapeText + " the buffer needs " +
                                      std::to_string(*Bytes) +
                                      " bytes, above the limit of 2^40 bytes");
          break;
        }
      } else if (A.isScalar() && !A.ValueSizeName.empty()) {
        auto V = P.Shapes[S].size(A.ValueSizeName);
        if (!V)
          continue; // reported as an unknown size name
        if (std::string Range =
                scalarRangeError(A.Type, static_cast<double>(*V));
            !Range.empty() ||
            (!isFloating(A.Type) &&
             static_cast<double>(*V) != std::floor(static_cast<double>(*V)))) {
          error(Where + ".value", "size '" + A.ValueSizeName +
                                      "' = " + std::to_string(*V) + " at " +
                                      ShapeText + " " + Range);
          break;
        }
      }
    }
  }
}

/// \p Where: the object holding \p Field, for the error ("" at the top).
void SpecReader::readStringList(const json &Root, const char *Field,
                                std::vector<std::string> &Out,
                                const std::string &Where) {
  auto It = Root.find(Field);
  if (It == Root.end())
    return;
  if (!It->is_array()) {
    error(join(Where, Field), "must be an array of strings");
    return;
  }
  for (const json &Item : *It) {
    if (!Item.is_string()) {
      error(join(Where, Field), "must be an array of strings");
      return;
    }
    Out.push_back(Item.get<std::string>());
  }
}

void SpecReader::readFileChecks(const json &Root, Problem &P) {
  auto It = Root.find("filecheck");
  if (It == Root.end())
    return;
  if (!It->is_array()) {
    error("filecheck", "must be an array of {\"over\", \"file\"} objects");
    return;
  }
  for (std::size_t I = 0; I < It->size(); ++I) {
    const json &Item = (*It)[I];
    std::string Where = "filecheck[" + std::to_string(I) + "]";
    if (!Item.is_object()) {
      error(Where, "must be an object with \"over\" and \"file\"");
      continue;
    }
    for (auto &[Key, Value] : Item.items())
      if (Key != "over" && Key != "file" && Key != "prefixes")
        error(Where,
              "unknown field '" + Key + "' (known: over, file, prefixes)");
    FileCheckSpec Check;
    if (auto Over = string(Item, "over", Where, true)) {
      if (*Over == "ptxas")
        Check.Over = FileCheckSpec::Input::Ptxas;
      else if (*Over == "sass")
        Check.Over = FileCheckSpec::Input::Sass;
      else if (*Over == "ptx")
        Check.Over = FileCheckSpec::Input::Ptx;
      else
        error(join(Where, "over"),
              "must be \"ptxas\" (nvcc's ptxas -v output), \"sass\" "
              "(cuobjdump -sass) or \"ptx\" (nvcc -ptx)");
    }
    Check.File = string(Item, "file", Where, true).value_or("");
    readStringList(Item, "prefixes", Check.Prefixes, Where);
    P.FileChecks.push_back(Check);
  }
}

void SpecReader::readExpression(const json &Root, const char *Field,
                                std::string &Out, const Problem &P) {
  auto It = Root.find(Field);
  if (It == Root.end())
    return;
  if (It->is_number())
    Out = It->dump();
  else if (It->is_string())
    Out = It->get<std::string>();
  else {
    error(Field, "must be a number or an expression over size names, such "
                 "as \"12 * n\"");
    return;
  }
  for (std::size_t I = 0; I < P.Shapes.size(); ++I) {
    auto R = evaluateSizeExpression(Out, P.Shapes[I]);
    if (!R.Error.empty()) {
      error(Field, R.Error + " (shapes[" + std::to_string(I) + "])");
      return;
    }
    if (R.Value < 0) {
      error(Field, "is negative for shapes[" + std::to_string(I) + "]");
      return;
    }
  }
}

std::optional<Problem> SpecReader::read(const json &Root,
                                        const std::filesystem::path &SpecPath) {
  if (!Root.is_object()) {
    error("", "the top level must be a JSON object");
    return std::nullopt;
  }
  Problem P;
  P.SpecPath = SpecPath;
  P.Directory = SpecPath.parent_path();
  if (P.Directory.empty())
    P.Directory = ".";
  for (auto &[Key, Value] : Root.items())
    if (!KnownTopLevelFields.count(Key) && Key.rfind("_", 0) != 0)
      error("", "unknown field '" + Key + "'");

  P.Name = string(Root, "name", "", true).value_or("");
  P.Source = string(Root, "source", "", true).value_or("");
  P.Entry = string(Root, "entry", "", true).value_or("");
  P.Reference = string(Root, "reference", "", false).value_or(P.Source);
  readShapes(Root, P);
  readArgs(Root, P);
  checkSizes(P);

  if (auto It = Root.find("benchmark_shape"); It != Root.end()) {
    auto Index = int64Value(*It);
    if (!Index || *Index < 0 ||
        static_cast<std::uint64_t>(*Index) >=
            std::max<std::size_t>(P.Shapes.size(), 1))
      error("benchmark_shape",
            "must be an index into 'shapes' (0.." +
                std::to_string(P.Shapes.empty() ? 0 : P.Shapes.size() - 1) +
                ")");
    else
      P.BenchmarkShape = static_cast<std::size_t>(*Index);
  }
  if (auto It = Root.find("tolerance"); It != Root.end())
    if (auto T = readTolerance(*It, "tolerance"))
      P.DefaultTolerance = *T;

  readExpression(Root, "bytes", P.BytesExpression, P);
  readExpression(Root, "flops", P.FlopsExpression, P);
  readStringList(Root, "allow_libraries", P.AllowLibraries);
  for (const std::string &Lib : P.AllowLibraries)
    if (!KnownLibraries.count(Lib))
      error("allow_libraries", "unknown library '" + Lib +
                                   "' (known: cublas, cublaslt, cudnn, "
                                   "cufft, curand, cusparse, cusolver, "
                                   "cutlass, cute, thrust, cub)");
  readStringList(Root, "nvcc_flags", P.NvccFlags);
  readFileChecks(Root, P);
  if (auto It = Root.find("fast_math"); It != Root.end()) {
    if (!It->is_boolean())
      error("fast_math", "must be true or false");
    else
      P.FastMath = It->get<bool>();
  }
  if (auto T = number(Root, "timeout_s", "", false)) {
    if (*T <= 0)
      error("timeout_s", "must be positive");
    else
      P.TimeoutSeconds = *T;
  }
  if (auto It = Root.find("seeds"); It != Root.end()) {
    auto Seeds = int64Value(*It);
    if (!Seeds || *Seeds < 1 || *Seeds > 100)
      error("seeds", "must be an integer from 1 to 100");
    else
      P.Seeds = static_cast<int>(*Seeds);
  }
  return P;
}

} // namespace detail

ProblemLoadResult parseProblemJson(const std::string &Text,
                                   const std::filesystem::path &SpecPath) {
  ProblemLoadResult Result;
  json Root;
  // The last object key read, so that an error inside a value (a number
  // that overflows a double) names its field.
  std::string LastKey;
  json::parser_callback_t TrackKeys = [&](int, json::parse_event_t Event,
                                          json &Parsed) {
    if (Event == json::parse_event_t::key && Parsed.is_string())
      LastKey = Parsed.get<std::string>();
    return true;
  };
  try {
    Root = json::parse(Text, TrackKeys);
  } catch (const json::exception &E) {
    std::string Message = std::string("not valid JSON: ") + E.what();
    if (!LastKey.empty())
      Message += " (in the value of '" + LastKey + "')";
    Result.Errors.push_back(Message);
    return Result;
  }
  SpecReader Reader;
  std::optional<Problem> P;
  try {
    P = Reader.read(Root, SpecPath);
  } catch (const json::exception &E) {
    // Every access is checked; this is the net under them.
    Reader.Errors.push_back(std::string("cannot read problem.json: ") +
                            E.what());
  }
  Result.Errors = std::move(Reader.Errors);
  if (Result.Errors.empty())
    Result.Value = std::move(P);
  return Result;
}

ProblemLoadResult loadProblemFile(const std::filesystem::path &PathOrDir) {
  std::filesystem::path SpecPath = PathOrDir;
  std::error_code EC;
  if (std::filesystem::is_directory(PathOrDir, EC))
    SpecPath = PathOrDir / "problem.json";
  std::ifstream In(SpecPath);
  if (!In) {
    ProblemLoadResult Result;
    Result.Errors.push_back("cannot read '" + SpecPath.string() + "'");
    return Result;
  }
  std::stringstream Buffer;
  Buffer << In.rdbuf();
  return parseProblemJson(Buffer.str(), SpecPath);
}

} // namespace kopt::spec
