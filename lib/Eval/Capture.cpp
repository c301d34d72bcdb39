//===- Capture.cpp - A candidate's GPU work, recorded for replay ----------===//
#include "kopt/Eval/Capture.h"

#include <algorithm>
#include <stdexcept>

namespace kopt::eval {

using nlohmann::json;

namespace {
const char *kindName(CapturedNodeKind K) {
  switch (K) {
  case CapturedNodeKind::Kernel:
    return "kernel";
  case CapturedNodeKind::Memset:
    return "memset";
  case CapturedNodeKind::Copy:
    return "copy";
  case CapturedNodeKind::Empty:
    return "empty";
  }
  return "empty";
}

std::string toHex(const std::vector<unsigned char> &Bytes) {
  static const char Digits[] = "0123456789abcdef";
  std::string Out;
  Out.reserve(Bytes.size() * 2);
  for (unsigned char B : Bytes) {
    Out.push_back(Digits[B >> 4]);
    Out.push_back(Digits[B & 15]);
  }
  return Out;
}

/// Thrown while parsing; becomes the Error of captureFromJson.
struct Malformed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int hexDigit(char C) {
  if (C >= '0' && C <= '9')
    return C - '0';
  if (C >= 'a' && C <= 'f')
    return C - 'a' + 10;
  throw Malformed("parameter bytes are not lower-case hex");
}

std::vector<unsigned char> fromHex(const std::string &Hex) {
  if (Hex.size() % 2)
    throw Malformed("parameter bytes have an odd number of hex digits");
  std::vector<unsigned char> Out(Hex.size() / 2);
  for (std::size_t I = 0; I < Out.size(); ++I)
    Out[I] = static_cast<unsigned char>(hexDigit(Hex[2 * I]) << 4 |
                                        hexDigit(Hex[2 * I + 1]));
  return Out;
}

const json &field(const json &J, const char *Key) {
  if (!J.is_object() || !J.contains(Key))
    throw Malformed(std::string("missing field '") + Key + "'");
  return J[Key];
}

std::uint64_t unsignedField(const json &J, const char *Key,
                            std::uint64_t Max = UINT64_MAX) {
  const json &V = field(J, Key);
  if (!V.is_number_unsigned() &&
      !(V.is_number_integer() && V.get<long long>() >= 0))
    throw Malformed(std::string("'") + Key + "' is not a non-negative integer");
  std::uint64_t U = V.get<std::uint64_t>();
  if (U > Max)
    throw Malformed(std::string("'") + Key + "' is out of range");
  return U;
}

std::string stringField(const json &J, const char *Key, std::size_t MaxBytes) {
  const json &V = field(J, Key);
  if (!V.is_string())
    throw Malformed(std::string("'") + Key + "' is not a string");
  std::string S = V.get<std::string>();
  if (S.size() > MaxBytes)
    throw Malformed(std::string("'") + Key + "' is too long");
  return S;
}

const json &arrayField(const json &J, const char *Key, std::size_t MaxSize) {
  const json &V = field(J, Key);
  if (!V.is_array())
    throw Malformed(std::string("'") + Key + "' is not an array");
  if (V.size() > MaxSize)
    throw Malformed(std::string("'") + Key + "' has too many entries");
  return V;
}

std::array<unsigned, 3> dim3Field(const json &J, const char *Key) {
  const json &V = arrayField(J, Key, 3);
  if (V.size() != 3)
    throw Malformed(std::string("'") + Key + "' does not have 3 entries");
  std::array<unsigned, 3> D{};
  for (std::size_t I = 0; I < 3; ++I) {
    if (!V[I].is_number_unsigned() || V[I].get<std::uint64_t>() == 0 ||
        V[I].get<std::uint64_t>() > UINT32_MAX)
      throw Malformed(std::string("'") + Key + "' has an entry out of range");
    D[I] = V[I].get<unsigned>();
  }
  return D;
}

CapturedNode nodeFromJson(const json &J, std::size_t Index) {
  CapturedNode N;
  std::string Kind = stringField(J, "kind", 16);
  for (const json &V : arrayField(J, "dependencies", Index)) {
    if (!V.is_number_unsigned() || V.get<std::uint64_t>() >= Index)
      throw Malformed("a dependency does not name an earlier node");
    N.Dependencies.push_back(V.get<std::size_t>());
  }
  if (Kind == "kernel") {
    N.Kind = CapturedNodeKind::Kernel;
    N.Kernel = stringField(J, "kernel", CaptureLimits::MaxNameBytes);
    if (N.Kernel.empty())
      throw Malformed("a kernel node has no kernel name");
    N.Grid = dim3Field(J, "grid");
    N.Block = dim3Field(J, "block");
    N.SharedBytes =
        static_cast<unsigned>(unsignedField(J, "shared_bytes", 1u << 30));
    std::size_t Total = 0;
    for (const json &P :
         arrayField(J, "params", CaptureLimits::MaxParamBytes)) {
      if (!P.is_string())
        throw Malformed("a parameter is not a hex string");
      N.Params.push_back(fromHex(P.get<std::string>()));
      Total += N.Params.back().size();
      if (N.Params.back().empty() || Total > CaptureLimits::MaxParamBytes)
        throw Malformed("kernel parameters are empty or too large");
    }
  } else if (Kind == "memset") {
    N.Kind = CapturedNodeKind::Memset;
    N.Destination = unsignedField(J, "destination");
    N.Value = static_cast<unsigned>(unsignedField(J, "value", UINT32_MAX));
    N.ElementSize = static_cast<unsigned>(unsignedField(J, "element_size", 4));
    if (N.ElementSize != 1 && N.ElementSize != 2 && N.ElementSize != 4)
      throw Malformed("a memset's element size is not 1, 2 or 4");
    N.Width = unsignedField(J, "width", 1ull << 40);
    N.Height = unsignedField(J, "height", 1ull << 40);
    N.Pitch = unsignedField(J, "pitch", 1ull << 40);
  } else if (Kind == "copy") {
    N.Kind = CapturedNodeKind::Copy;
    N.Destination = unsignedField(J, "destination");
    N.Source = unsignedField(J, "source");
    N.Width = unsignedField(J, "bytes", 1ull << 40);
    if (J.contains("host_bytes")) {
      N.HostBytes = fromHex(
          stringField(J, "host_bytes", 2 * CaptureLimits::MaxHostCopyBytes));
      if (N.HostBytes.size() != N.Width || N.HostBytes.empty())
        throw Malformed("a copy from host memory does not carry its bytes");
    }
    if (J.contains("symbol")) {
      N.Symbol = stringField(J, "symbol", CaptureLimits::MaxNameBytes);
      if (N.Symbol.empty() || N.HostBytes.empty())
        throw Malformed("a copy into a device variable names none, or does "
                        "not come from host memory");
    }
  } else if (Kind == "empty") {
    N.Kind = CapturedNodeKind::Empty;
  } else {
    throw Malformed("unknown node kind '" + Kind + "'");
  }
  return N;
}

CapturedShape shapeFromJson(const json &J) {
  CapturedShape S;
  S.Shape = unsignedField(J, "shape", CaptureLimits::MaxShapes);
  for (const json &V : arrayField(J, "scalars", 256)) {
    if (!V.is_number_unsigned())
      throw Malformed("a scalar slot is not an unsigned integer");
    S.Scalars.push_back(V.get<std::uint64_t>());
  }
  for (const json &R : arrayField(J, "ranges", CaptureLimits::MaxRanges)) {
    CapturedRange Range;
    const json &Arg = field(R, "arg");
    if (!Arg.is_number_integer() || Arg.get<long long>() < -1 ||
        Arg.get<long long>() > 255)
      throw Malformed("a range's 'arg' is out of range");
    Range.Arg = Arg.get<int>();
    Range.Address = unsignedField(R, "address");
    Range.Bytes = unsignedField(R, "bytes", 1ull << 40);
    if (Range.Address == 0 || Range.Address + Range.Bytes < Range.Address)
      throw Malformed("a range wraps around or starts at 0");
    S.Ranges.push_back(Range);
  }
  std::vector<CapturedRange> Sorted = S.Ranges;
  std::sort(Sorted.begin(), Sorted.end(),
            [](const CapturedRange &A, const CapturedRange &B) {
              return A.Address < B.Address;
            });
  for (std::size_t I = 1; I < Sorted.size(); ++I)
    if (Sorted[I - 1].Address + Sorted[I - 1].Bytes > Sorted[I].Address)
      throw Malformed("two ranges overlap");
  const json &Nodes = arrayField(J, "nodes", CaptureLimits::MaxNodes);
  for (std::size_t I = 0; I < Nodes.size(); ++I)
    S.Nodes.push_back(nodeFromJson(Nodes[I], I));
  return S;
}
} // namespace

json captureToJson(const CaptureReport &Report) {
  json Shapes = json::array();
  for (const CapturedShape &S : Report.Shapes) {
    json Ranges = json::array();
    for (const CapturedRange &R : S.Ranges)
      Ranges.push_back(
          {{"arg", R.Arg}, {"address", R.Address}, {"bytes", R.Bytes}});
    json Nodes = json::array();
    for (const CapturedNode &N : S.Nodes) {
      json J = {{"kind", kindName(N.Kind)}, {"dependencies", N.Dependencies}};
      switch (N.Kind) {
      case CapturedNodeKind::Kernel: {
        J["kernel"] = N.Kernel;
        J["grid"] = N.Grid;
        J["block"] = N.Block;
        J["shared_bytes"] = N.SharedBytes;
        json Params = json::array();
        for (const auto &P : N.Params)
          Params.push_back(toHex(P));
        J["params"] = Params;
        break;
      }
      case CapturedNodeKind::Memset:
        J["destination"] = N.Destination;
        J["value"] = N.Value;
        J["element_size"] = N.ElementSize;
        J["width"] = N.Width;
        J["height"] = N.Height;
        J["pitch"] = N.Pitch;
        break;
      case CapturedNodeKind::Copy:
        J["destination"] = N.Destination;
        J["source"] = N.Source;
        J["bytes"] = N.Width;
        if (!N.HostBytes.empty())
          J["host_bytes"] = toHex(N.HostBytes);
        if (!N.Symbol.empty())
          J["symbol"] = N.Symbol;
        break;
      case CapturedNodeKind::Empty:
        break;
      }
      Nodes.push_back(J);
    }
    Shapes.push_back({{"shape", S.Shape},
                      {"scalars", S.Scalars},
                      {"ranges", Ranges},
                      {"nodes", Nodes}});
  }
  json Findings = json::array();
  for (const CaptureFinding &F : Report.Findings)
    Findings.push_back({{"rule", F.Rule}, {"evidence", F.Evidence}});
  json Globals = json::array();
  for (const CapturedGlobal &G : Report.Globals)
    Globals.push_back({{"name", G.Name}, {"bytes", toHex(G.Bytes)}});
  return {{"shapes", Shapes},
          {"globals", Globals},
          {"findings", Findings},
          {"activity_traced", Report.ActivityTraced},
          {"confinement", Report.Confinement}};
}

std::optional<CaptureReport> captureFromJson(const json &J,
                                             std::string &Error) {
  try {
    CaptureReport R;
    for (const json &S : arrayField(J, "shapes", CaptureLimits::MaxShapes))
      R.Shapes.push_back(shapeFromJson(S));
    for (const json &F :
         arrayField(J, "findings", CaptureLimits::MaxFindings)) {
      CaptureFinding Finding;
      Finding.Rule = stringField(F, "rule", 64);
      Finding.Evidence = stringField(F, "evidence", 4096);
      R.Findings.push_back(Finding);
    }
    std::size_t GlobalBytes = 0;
    if (J.contains("globals"))
      for (const json &G :
           arrayField(J, "globals", CaptureLimits::MaxGlobals)) {
        CapturedGlobal Global;
        Global.Name = stringField(G, "name", CaptureLimits::MaxNameBytes);
        Global.Bytes =
            fromHex(stringField(G, "bytes", 2 * CaptureLimits::MaxGlobalBytes));
        GlobalBytes += Global.Bytes.size();
        if (Global.Name.empty() || GlobalBytes > CaptureLimits::MaxGlobalBytes)
          throw Malformed("'globals' names no variable or holds more than " +
                          std::to_string(CaptureLimits::MaxGlobalBytes) +
                          " bytes");
        R.Globals.push_back(std::move(Global));
      }
    const json &Traced = field(J, "activity_traced");
    if (!Traced.is_boolean())
      throw Malformed("'activity_traced' is not a boolean");
    R.ActivityTraced = Traced.get<bool>();
    for (const json &C : arrayField(J, "confinement", 8)) {
      if (!C.is_string() || C.get<std::string>().size() > 64)
        throw Malformed("'confinement' holds something other than a name");
      R.Confinement.push_back(C.get<std::string>());
    }
    return R;
  } catch (const Malformed &E) {
    Error = E.what();
  } catch (const json::exception &E) {
    Error = E.what();
  }
  return std::nullopt;
}

const CapturedRange *findRange(const CapturedShape &S, std::uint64_t Address) {
  // Inside a range first: where two ranges touch, the end of one is the
  // start of the next.
  for (const CapturedRange &R : S.Ranges)
    if (Address >= R.Address && Address - R.Address < R.Bytes)
      return &R;
  for (const CapturedRange &R : S.Ranges)
    if (Address == R.Address + R.Bytes)
      return &R;
  return nullptr;
}

} // namespace kopt::eval

namespace kopt::eval {

namespace {
std::string describeNode(const CapturedNode &N) {
  switch (N.Kind) {
  case CapturedNodeKind::Kernel:
    return "kernel '" + N.Kernel + "' <<<(" + std::to_string(N.Grid[0]) + "," +
           std::to_string(N.Grid[1]) + "," + std::to_string(N.Grid[2]) +
           "), (" + std::to_string(N.Block[0]) + "," +
           std::to_string(N.Block[1]) + "," + std::to_string(N.Block[2]) +
           "), " + std::to_string(N.SharedBytes) + ">>>";
  case CapturedNodeKind::Memset:
    return "memset of " + std::to_string(N.Width) + "x" +
           std::to_string(N.Height) + " elements of " +
           std::to_string(N.ElementSize) + " bytes to " +
           std::to_string(N.Value);
  case CapturedNodeKind::Copy:
    return "copy of " + std::to_string(N.Width) + " bytes" +
           (N.HostBytes.empty() ? "" : " from host memory") +
           (N.Symbol.empty() ? "" : " into '" + N.Symbol + "'");
  case CapturedNodeKind::Empty:
    return "empty node";
  }
  return "node";
}
} // namespace

std::string captureDifference(const CapturedShape &A, const CapturedShape &B) {
  if (A.Nodes.size() != B.Nodes.size())
    return std::to_string(A.Nodes.size()) + " nodes, then " +
           std::to_string(B.Nodes.size());
  for (std::size_t I = 0; I < A.Nodes.size(); ++I) {
    std::string First = describeNode(A.Nodes[I]),
                Second = describeNode(B.Nodes[I]);
    if (First != Second)
      return "node " + std::to_string(I) + " was a " + First + ", then a " +
             Second;
    if (A.Nodes[I].Dependencies != B.Nodes[I].Dependencies)
      return "node " + std::to_string(I) + " (a " + First +
             ") waited for other nodes";
  }
  return "";
}

} // namespace kopt::eval
