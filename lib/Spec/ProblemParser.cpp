//===- ProblemParser.cpp - Reads problem.json into a Problem --------------===//
#include "kopt/Spec/ProblemParser.h"
#include "kopt/Spec/SizeExpression.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

namespace kopt::spec {

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

std::string jsonTypeName(const json &J) { return J.type_name(); }

/// The value of an integer JSON number that fits int64, else nullopt (an
/// unsigned above INT64_MAX, a float, or not a number).
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

/// Largest buffer a problem may ask for, in bytes.
constexpr std::int64_t MaxBufferBytes = std::int64_t(1) << 40;

/// The largest finite value of a float dtype as the shim passes it.
double maxFinite(DType T) {
  switch (T) {
  case DType::F64:
    return std::numeric_limits<double>::max();
  case DType::F32:
    return std::numeric_limits<float>::max();
  case DType::F16:
    return 65504.0;
  case DType::BF16:
    return 3.3895313892515355e38;
  case DType::FP8E4M3:
    return 448.0;
  case DType::FP8E5M2:
    return 57344.0;
  default:
    return 0;
  }
}

/// Whether \p V is exactly representable range-wise in integer dtype \p T.
bool fitsInteger(DType T, double V) {
  double Lo = 0, Hi = 0;
  switch (T) {
  case DType::I8:
    Lo = -128, Hi = 127;
    break;
  case DType::U8:
    Lo = 0, Hi = 255;
    break;
  case DType::I16:
    Lo = -32768, Hi = 32767;
    break;
  case DType::I32:
    Lo = -2147483648.0, Hi = 2147483647.0;
    break;
  case DType::U32:
    Lo = 0, Hi = 4294967295.0;
    break;
  case DType::I64:
    Lo = -9223372036854775808.0, Hi = 9223372036854775807.0;
    return V >= Lo && V < 9223372036854775808.0;
  case DType::U64:
    return V >= 0 && V < 18446744073709551616.0;
  default:
    return true;
  }
  return V >= Lo && V <= Hi;
}

/// Whether scalar value \p V can be passed as dtype \p T unchanged
/// (integers) or finite (floats); else a description of the range.
std::string scalarRangeError(DType T, double V) {
  if (!std::isfinite(V))
    return "is not finite";
  if (isFloating(T)) {
    if (std::fabs(V) > maxFinite(T)) {
      std::ostringstream Max;
      Max << maxFinite(T);
      return "does not fit " + std::string(dtypeName(T)) +
             " (largest finite value " + Max.str() + ")";
    }
    return "";
  }
  if (!fitsInteger(T, V))
    return "does not fit " + std::string(dtypeName(T));
  return "";
}

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

  /// The dtype named by J[Field] ("buffer" or "scalar") into A.Type.
  void readDType(const json &J, const char *Field, const std::string &Where,
                 Arg &A) {
    const json &TypeField = J[Field];
    if (!TypeField.is_string()) {
      error(join(Where, Field),
            "must be a dtype name (" + knownDTypeNames() + ")");
    } else if (auto T = parseDType(TypeField.get<std::string>())) {
      A.Type = *T;
    } else {
      error(join(Where, Field), "unknown dtype '" +
                                    TypeField.get<std::string>() +
                                    "' (known: " + knownDTypeNames() + ")");
    }
  }

  void readBuffer(const json &J, Arg &A, const Problem &P,
                  const std::string &Where) {
    A.ArgKind = Arg::Kind::Buffer;
    readDType(J, "buffer", Where, A);

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
        } else if (int64Value(D) && *int64Value(D) > 0) {
          Extent.Literal = *int64Value(D);
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
    readDType(J, "scalar", Where, A);
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
      else if (std::string Range = scalarRangeError(A.Type, A.Value);
               !Range.empty())
        error(join(Where, "value"), ValueIt->dump() + " " + Range);
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

  /// Every buffer's byte size at every shape must be computable without
  /// overflow and at most MaxBufferBytes; every size a scalar takes must
  /// fit the scalar's dtype.
  void checkSizes(const Problem &P) {
    for (std::size_t I = 0; I < P.Args.size(); ++I) {
      const Arg &A = P.Args[I];
      std::string Where =
          "args[" + std::to_string(I) + "] (\"" + A.Name + "\")";
      for (std::size_t S = 0; S < P.Shapes.size(); ++S) {
        std::string ShapeText = "shapes[" + std::to_string(S) + "] {" +
                                P.Shapes[S].describe() + "}";
        if (A.isBuffer()) {
          auto Bytes = checkedBufferBytes(A, P.Shapes[S]);
          if (!Bytes) {
            error(Where + ".shape", "at " + ShapeText +
                                        " the buffer's element count or byte "
                                        "size overflows 64 bits");
            break;
          }
          if (*Bytes > MaxBufferBytes) {
            error(Where + ".shape",
                  "at " + ShapeText + " the buffer needs " +
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
              !Range.empty() || (!isFloating(A.Type) &&
                                 static_cast<double>(*V) !=
                                     std::floor(static_cast<double>(*V)))) {
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
  void readStringList(const json &Root, const char *Field,
                      std::vector<std::string> &Out,
                      const std::string &Where = "") {
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

  void readFileChecks(const json &Root, Problem &P) {
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
};

} // namespace

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
