//===- ProblemParser.cpp - Reads problem.json into a Problem --------------===//
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/SizeExpression.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

namespace kopt::spec {

using nlohmann::json;

namespace {

const std::set<std::string> KnownTopLevelFields = {
    "name",      "source",          "entry",           "args",
    "shapes",    "benchmark_shape", "tolerance",       "reference",
    "bytes",     "flops",           "allow_libraries", "fast_math",
    "timeout_s", "nvcc_flags",      "seeds",           "description"};

const std::set<std::string> KnownLibraries = {
    "cublas",   "cublaslt", "cudnn", "cufft",  "curand", "cusparse",
    "cusolver", "cutlass",  "cute",  "thrust", "cub"};

std::string jsonTypeName(const json &J) { return J.type_name(); }

/// Collects errors for one problem.json; every method reports against the
/// field path it was given.
class SpecReader {
public:
  std::vector<std::string> Errors;

  void error(const std::string &Where, const std::string &Message) {
    Errors.push_back(Where.empty() ? Message : Where + ": " + Message);
  }

  bool isIdentifier(const std::string &Name) {
    if (Name.empty() || std::isdigit((unsigned char)Name[0]))
      return false;
    for (char C : Name)
      if (!std::isalnum((unsigned char)C) && C != '_')
        return false;
    return true;
  }

  std::optional<std::string> string(const json &Object, const char *Field,
                                    const std::string &Where, bool Required) {
    auto It = Object.find(Field);
    if (It == Object.end()) {
      if (Required)
        error(Where, std::string("missing field '") + Field + "'");
      return std::nullopt;
    }
    if (!It->is_string() || It->get<std::string>().empty()) {
      error(join(Where, Field),
            "must be a non-empty string, not " +
                (It->is_string() ? std::string("\"\"") : jsonTypeName(*It)));
      return std::nullopt;
    }
    return It->get<std::string>();
  }

  std::optional<double> number(const json &Object, const char *Field,
                               const std::string &Where, bool Required) {
    auto It = Object.find(Field);
    if (It == Object.end()) {
      if (Required)
        error(Where, std::string("missing field '") + Field + "'");
      return std::nullopt;
    }
    if (!It->is_number()) {
      error(join(Where, Field), "must be a number, not " + jsonTypeName(*It));
      return std::nullopt;
    }
    return It->get<double>();
  }

  static std::string join(const std::string &Where, const std::string &Field) {
    return Where.empty() ? Field : Where + "." + Field;
  }

  void readShapes(const json &Root, Problem &P) {
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
        if (!Value.is_number_integer() || Value.get<std::int64_t>() <= 0) {
          error(join(Where, Key), "must be a positive integer");
          continue;
        }
        S.Sizes.emplace_back(Key, Value.get<std::int64_t>());
      }
      P.Shapes.push_back(std::move(S));
    }
  }

  /// Checks that every shape defines \p Name.
  bool sizeDefined(const Problem &P, const std::string &Name,
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

  std::optional<Tolerance> readTolerance(const json &J,
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

  void readInit(const json &J, Arg &A, const std::string &Where) {
    if (!J.is_object()) {
      error(Where, "must be an object such as {\"dist\": \"normal\", "
                   "\"mean\": 0, \"std\": 1}");
      return;
    }
    auto Dist = string(J, "dist", Where, true);
    if (!Dist)
      return;
    auto Check = [&](std::set<std::string> Allowed) {
      Allowed.insert("dist");
      for (auto &[Key, Value] : J.items())
        if (!Allowed.count(Key))
          error(Where, "unknown field '" + Key + "' for dist '" + *Dist + "'");
    };
    Init &I = A.Initializer;
    if (*Dist == "normal") {
      Check({"mean", "std"});
      I.Dist = Init::Kind::Normal;
      I.First = number(J, "mean", Where, false).value_or(0.0);
      I.Second = number(J, "std", Where, false).value_or(1.0);
      if (I.Second <= 0)
        error(join(Where, "std"), "must be positive");
    } else if (*Dist == "uniform" || *Dist == "randint") {
      Check({"lo", "hi"});
      bool IsInt = *Dist == "randint";
      I.Dist = IsInt ? Init::Kind::RandInt : Init::Kind::Uniform;
      auto Lo = number(J, "lo", Where, true);
      auto Hi = number(J, "hi", Where, true);
      if (!Lo || !Hi)
        return;
      I.First = *Lo;
      I.Second = *Hi;
      if (!(*Lo < *Hi))
        error(Where, "lo must be below hi");
      if (IsInt && (std::floor(*Lo) != *Lo || std::floor(*Hi) != *Hi))
        error(Where, "randint bounds must be integers");
    } else if (*Dist == "constant") {
      Check({"value"});
      I.Dist = Init::Kind::Constant;
      if (auto V = number(J, "value", Where, true))
        I.First = *V;
    } else {
      error(join(Where, "dist"), "unknown distribution '" + *Dist +
                                     "' (known: normal, uniform, randint, "
                                     "constant)");
    }
  }

  void readBuffer(const json &J, Arg &A, const Problem &P,
                  const std::string &Where) {
    A.ArgKind = Arg::Kind::Buffer;
    const json &TypeField = J["buffer"];
    if (!TypeField.is_string()) {
      error(join(Where, "buffer"),
            "must be a dtype name (" + knownDTypeNames() + ")");
    } else if (auto T = parseDType(TypeField.get<std::string>())) {
      A.Type = *T;
    } else {
      error(join(Where, "buffer"), "unknown dtype '" +
                                       TypeField.get<std::string>() +
                                       "' (known: " + knownDTypeNames() + ")");
    }

    auto ShapeIt = J.find("shape");
    if (ShapeIt == J.end()) {
      error(Where, "missing field 'shape'");
    } else if (!ShapeIt->is_array() || ShapeIt->empty()) {
      error(join(Where, "shape"),
            "must be a non-empty array of size names or positive integers");
    } else {
      for (std::size_t I = 0; I < ShapeIt->size(); ++I) {
        const json &D = (*ShapeIt)[I];
        std::string DimWhere = Where + ".shape[" + std::to_string(I) + "]";
        Dim Extent;
        if (D.is_string()) {
          Extent.SizeName = D.get<std::string>();
          sizeDefined(P, Extent.SizeName, DimWhere);
        } else if (D.is_number_integer() && D.get<std::int64_t>() > 0) {
          Extent.Literal = D.get<std::int64_t>();
        } else {
          error(DimWhere, "must be a size name or a positive integer");
          continue;
        }
        A.Shape.push_back(Extent);
      }
    }

    std::string IntentText = "in";
    if (auto Text = string(J, "intent", Where, false))
      IntentText = *Text;
    if (IntentText == "in")
      A.BufferIntent = Intent::In;
    else if (IntentText == "out")
      A.BufferIntent = Intent::Out;
    else if (IntentText == "inout")
      A.BufferIntent = Intent::InOut;
    else
      error(join(Where, "intent"),
            "unknown intent '" + IntentText + "' (known: in, out, inout)");

    auto InitIt = J.find("init");
    if (InitIt != J.end()) {
      if (A.BufferIntent == Intent::Out)
        error(join(Where, "init"),
              "an intent 'out' buffer is poisoned before every run; give it "
              "intent 'inout' if its initial content matters");
      else
        readInit(*InitIt, A, join(Where, "init"));
    } else if (!isFloating(A.Type)) {
      // Integers default to small values that every integer type holds.
      A.Initializer = {Init::Kind::RandInt, 0, 100};
    }

    if (auto TolIt = J.find("tolerance"); TolIt != J.end()) {
      if (A.BufferIntent == Intent::In)
        error(join(Where, "tolerance"),
              "only outputs are compared; an intent 'in' buffer must stay "
              "bit-identical");
      else
        A.OwnTolerance = readTolerance(*TolIt, join(Where, "tolerance"));
    }

    for (auto &[Key, Value] : J.items())
      if (Key != "name" && Key != "buffer" && Key != "shape" && Key != "init" &&
          Key != "intent" && Key != "tolerance")
        error(Where, "unknown field '" + Key + "' for a buffer");
  }

  void readScalar(const json &J, Arg &A, const Problem &P,
                  const std::string &Where) {
    A.ArgKind = Arg::Kind::Scalar;
    const json &TypeField = J["scalar"];
    if (!TypeField.is_string()) {
      error(join(Where, "scalar"),
            "must be a dtype name (" + knownDTypeNames() + ")");
    } else if (auto T = parseDType(TypeField.get<std::string>())) {
      A.Type = *T;
    } else {
      error(join(Where, "scalar"), "unknown dtype '" +
                                       TypeField.get<std::string>() +
                                       "' (known: " + knownDTypeNames() + ")");
    }
    auto ValueIt = J.find("value");
    if (ValueIt == J.end()) {
      error(Where, "missing field 'value'");
    } else if (ValueIt->is_string()) {
      A.ValueSizeName = ValueIt->get<std::string>();
      sizeDefined(P, A.ValueSizeName, join(Where, "value"));
    } else if (ValueIt->is_number()) {
      A.Value = ValueIt->get<double>();
      if (!isFloating(A.Type) && std::floor(A.Value) != A.Value)
        error(join(Where, "value"), "an integer scalar needs an integer");
    } else {
      error(join(Where, "value"),
            "must be a number or the name of a size of the shape");
    }
    for (auto &[Key, Value] : J.items())
      if (Key != "name" && Key != "scalar" && Key != "value")
        error(Where, "unknown field '" + Key + "' for a scalar");
  }

  void readArgs(const json &Root, Problem &P) {
    auto It = Root.find("args");
    if (It == Root.end()) {
      error("", "missing field 'args'");
      return;
    }
    if (!It->is_array() || It->empty()) {
      error("args", "must be a non-empty array");
      return;
    }
    std::set<std::string> Names;
    int Streams = 0;
    for (std::size_t I = 0; I < It->size(); ++I) {
      const json &J = (*It)[I];
      std::string Where = "args[" + std::to_string(I) + "]";
      if (!J.is_object()) {
        error(Where, "must be an object");
        continue;
      }
      Arg A;
      if (auto Name = string(J, "name", Where, true)) {
        A.Name = *Name;
        Where += " (\"" + A.Name + "\")";
        if (!Names.insert(A.Name).second)
          error(Where, "duplicate argument name '" + A.Name + "'");
      }
      int Kinds =
          J.contains("buffer") + J.contains("scalar") + J.contains("stream");
      if (Kinds != 1) {
        error(Where, Kinds == 0
                         ? "missing field 'buffer', 'scalar' or 'stream'"
                         : "give exactly one of 'buffer', 'scalar', 'stream'");
        continue;
      }
      if (J.contains("buffer")) {
        readBuffer(J, A, P, Where);
      } else if (J.contains("scalar")) {
        readScalar(J, A, P, Where);
      } else {
        A.ArgKind = Arg::Kind::Stream;
        if (J["stream"] != true)
          error(join(Where, "stream"), "must be true");
        if (++Streams > 1)
          error(Where, "more than one stream argument");
        for (auto &[Key, Value] : J.items())
          if (Key != "name" && Key != "stream")
            error(Where, "unknown field '" + Key + "' for a stream");
      }
      P.Args.push_back(std::move(A));
    }
    bool AnyOutput = false;
    for (const Arg &A : P.Args)
      AnyOutput |= A.isOutput();
    if (!AnyOutput)
      error("args", "no buffer has intent 'out' or 'inout': nothing to "
                    "compare");
  }

  void readStringList(const json &Root, const char *Field,
                      std::vector<std::string> &Out) {
    auto It = Root.find(Field);
    if (It == Root.end())
      return;
    if (!It->is_array()) {
      error(Field, "must be an array of strings");
      return;
    }
    for (const json &Item : *It) {
      if (!Item.is_string()) {
        error(Field, "must be an array of strings");
        return;
      }
      Out.push_back(Item.get<std::string>());
    }
  }

  void readExpression(const json &Root, const char *Field, std::string &Out,
                      const Problem &P) {
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

  std::optional<Problem> read(const json &Root,
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

    if (auto It = Root.find("benchmark_shape"); It != Root.end()) {
      if (!It->is_number_integer() || It->get<std::int64_t>() < 0 ||
          It->get<std::size_t>() >= std::max<std::size_t>(P.Shapes.size(), 1))
        error("benchmark_shape",
              "must be an index into 'shapes' (0.." +
                  std::to_string(P.Shapes.empty() ? 0 : P.Shapes.size() - 1) +
                  ")");
      else
        P.BenchmarkShape = It->get<std::size_t>();
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
      if (!It->is_number_integer() || It->get<int>() < 1 ||
          It->get<int>() > 100)
        error("seeds", "must be an integer from 1 to 100");
      else
        P.Seeds = It->get<int>();
    }
    return P;
  }
};

} // namespace

ProblemLoadResult parseProblemJson(const std::string &Text,
                                   const std::filesystem::path &SpecPath) {
  ProblemLoadResult Result;
  json Root;
  try {
    Root = json::parse(Text);
  } catch (const json::parse_error &E) {
    Result.Errors.push_back(std::string("not valid JSON: ") + E.what());
    return Result;
  }
  SpecReader Reader;
  auto P = Reader.read(Root, SpecPath);
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
