//===- SpecArgs.cpp - problem.json's "args" -------------------------------===//
//
// The SpecReader's readers of the kernel's arguments (buffers, scalars,
// their dtypes and initializers), and the dtype ranges they check.
//
//===----------------------------------------------------------------------===//
#include "SpecReader.h"
#include "kopt/Spec/SizeExpression.h"

#include <cmath>
#include <limits>
#include <set>
#include <sstream>

namespace kopt::spec::detail {

namespace {

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

} // namespace

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

void SpecReader::readInit(const json &J, Arg &A, const std::string &Where) {
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
void SpecReader::readDType(const json &J, const char *Field,
                           const std::string &Where, Arg &A) {
  const json &TypeField = J[Field];
  if (!TypeField.is_string()) {
    error(join(Where, Field),
          "must be a dtype name (" + knownDTypeNames() + ")");
  } else if (auto T = parseDType(TypeField.get<std::string>())) {
    A.Type = *T;
  } else {
    error(join(Where, Field), "unknown dtype '" + TypeField.get<std::string>() +
                                  "' (known: " + knownDTypeNames() + ")");
  }
}

void SpecReader::readBuffer(const json &J, Arg &A, const Problem &P,
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

void SpecReader::readScalar(const json &J, Arg &A, const Problem &P,
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

void SpecReader::readArgs(const json &Root, Problem &P) {
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

} // namespace kopt::spec::detail
