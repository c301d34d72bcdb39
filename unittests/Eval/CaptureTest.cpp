#include "kopt/Eval/Capture.h"
#include "kopt/Eval/DeviceNames.h"
#include "kopt/Eval/ElfSection.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>

using namespace kopt::eval;
using nlohmann::json;

namespace {

CaptureReport sample() {
  CaptureReport R;
  CapturedShape S;
  S.Shape = 1;
  S.Scalars = {7, 0x3fc00000};
  S.Ranges = {{0, 0x7f0000000000, 4096}, {-1, 0x7f0000100000, 256}};
  CapturedNode K;
  K.Kind = CapturedNodeKind::Kernel;
  K.Kernel = "_Z5axpbyPKfS0_Pfffi";
  K.Grid = {4, 1, 1};
  K.Block = {256, 1, 1};
  K.Params = {{0x00, 0x00, 0x00, 0x00, 0x00, 0x7f, 0x00, 0x00}, {7, 0, 0, 0}};
  CapturedNode M;
  M.Kind = CapturedNodeKind::Memset;
  M.Destination = 0x7f0000100000;
  M.Width = 64;
  M.ElementSize = 4;
  M.Dependencies = {0};
  S.Nodes = {K, M};
  R.Shapes.push_back(S);
  R.Confinement = {"no-new-privs", "seccomp"};
  return R;
}

std::optional<CaptureReport> parse(const json &J) {
  std::string Error;
  auto R = captureFromJson(J, Error);
  if (!R)
    EXPECT_FALSE(Error.empty());
  return R;
}

TEST(Capture, RoundTrips) {
  CaptureReport R = sample();
  auto Back = parse(captureToJson(R));
  ASSERT_TRUE(Back);
  ASSERT_EQ(Back->Shapes.size(), 1u);
  const CapturedShape &S = Back->Shapes[0];
  EXPECT_EQ(S.Shape, 1u);
  EXPECT_EQ(S.Scalars, R.Shapes[0].Scalars);
  ASSERT_EQ(S.Nodes.size(), 2u);
  EXPECT_EQ(S.Nodes[0].Kernel, "_Z5axpbyPKfS0_Pfffi");
  EXPECT_EQ(S.Nodes[0].Params, R.Shapes[0].Nodes[0].Params);
  EXPECT_EQ(S.Nodes[1].Kind, CapturedNodeKind::Memset);
  EXPECT_EQ(S.Nodes[1].Dependencies, std::vector<std::size_t>{0});
  EXPECT_EQ(Back->Confinement, R.Confinement);
}

TEST(Capture, CarriesDeviceVariables) {
  CaptureReport R = sample();
  R.Globals = {{"_ZN12_GLOBAL__N_112CoefficientsE", {0, 0, 0x80, 0x3f}}};
  auto Back = parse(captureToJson(R));
  ASSERT_TRUE(Back);
  ASSERT_EQ(Back->Globals.size(), 1u);
  EXPECT_EQ(Back->Globals[0].Name, R.Globals[0].Name);
  EXPECT_EQ(Back->Globals[0].Bytes, R.Globals[0].Bytes);
  // More than the capture carries, or a variable without a name.
  json J = captureToJson(R);
  J["globals"][0]["bytes"] =
      std::string(2 * CaptureLimits::MaxGlobalBytes + 2, '0');
  EXPECT_FALSE(parse(J));
  J = captureToJson(R);
  J["globals"][0]["name"] = "";
  EXPECT_FALSE(parse(J));
}

TEST(Capture, ComparesTwoCapturesOfOneCall) {
  CapturedShape A = sample().Shapes[0], B = A;
  // Other buffers: the parameter bytes differ, the work does not.
  B.Nodes[0].Params[0][5] = 0x7e;
  EXPECT_EQ(captureDifference(A, B), "");
  B.Nodes[0].Kernel = "_Z4idlePf";
  EXPECT_NE(captureDifference(A, B).find("_Z4idlePf"), std::string::npos);
  B = A;
  B.Nodes[0].Grid = {1, 1, 1};
  EXPECT_NE(captureDifference(A, B), "");
  B = A;
  B.Nodes[1].Dependencies.clear();
  EXPECT_NE(captureDifference(A, B), "");
  B = A;
  B.Nodes.pop_back();
  EXPECT_EQ(captureDifference(A, B), "2 nodes, then 1");
}

// What the capture child writes is untrusted: each of these is refused.
TEST(Capture, RefusesMalformedReports) {
  json Good = captureToJson(sample());
  EXPECT_FALSE(parse(json::parse("[1, 2]")));
  EXPECT_FALSE(parse(json::object()));
  auto Broken = [&](auto Edit) {
    json J = Good;
    Edit(J);
    return parse(J);
  };
  json &N0 = Good["shapes"][0]["nodes"][0];
  (void)N0;
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["nodes"][1]["dependencies"] = {1}; // not earlier
  }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["nodes"][0]["params"][0] = "0g"; // not hex
  }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["nodes"][0]["params"][0] = std::string(70000, 'a');
  }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["nodes"][0]["grid"] = {0, 1, 1}; // empty grid
  }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["nodes"][0]["kind"] = "host"; // not replayable
  }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"][0]["ranges"][1]["address"] = 0x7f0000000800; // overlaps
  }));
  EXPECT_FALSE(
      Broken([](json &J) { J["shapes"][0]["ranges"][0]["bytes"] = -4; }));
  EXPECT_FALSE(
      Broken([](json &J) { J["shapes"][0]["nodes"][1]["element_size"] = 3; }));
  EXPECT_FALSE(Broken([](json &J) { J["activity_traced"] = "yes"; }));
  EXPECT_FALSE(Broken([](json &J) {
    J["shapes"] = json::array();
    for (int I = 0; I < 65; ++I)
      J["shapes"].push_back(J["findings"]);
  }));
  EXPECT_TRUE(Broken([](json &) {}));
}

TEST(Capture, FindsRangesIncludingEndPointers) {
  CapturedShape S = sample().Shapes[0];
  EXPECT_EQ(findRange(S, 0x7f0000000000)->Arg, 0);
  EXPECT_EQ(findRange(S, 0x7f0000001000)->Arg, 0); // one past the end
  EXPECT_EQ(findRange(S, 0x7f0000001001), nullptr);
  EXPECT_EQ(findRange(S, 0x7f00000fffff), nullptr);
  EXPECT_EQ(findRange(S, 0x7f0000100010)->Arg, -1);
}

TEST(ElfSection, ReadsSectionsAndRefusesGarbage) {
  std::ifstream In("/proc/self/exe", std::ios::binary);
  std::string Self((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  std::string Error;
  auto Text = readElfSection(Self, ".text", Error);
  ASSERT_TRUE(Text) << Error;
  EXPECT_GT(Text->size(), 1000u);
  EXPECT_FALSE(readElfSection(Self, ".nv_fatbin", Error));
  EXPECT_NE(Error.find("no section"), std::string::npos);
  EXPECT_FALSE(readElfSection("not an elf file at all", ".text", Error));
  // A section table past the end of a truncated file.
  EXPECT_FALSE(readElfSection(Self.substr(0, 64), ".text", Error));
}

std::string fatHeader(unsigned long long Size) {
  std::string H(16, '\0');
  unsigned Magic = 0xBA55ED50u;
  unsigned short HeaderSize = 16;
  std::memcpy(&H[0], &Magic, 4);
  std::memcpy(&H[6], &HeaderSize, 2);
  std::memcpy(&H[8], &Size, 8);
  return H;
}

TEST(ElfSection, SplitsTheFatBinaries) {
  std::string Error;
  EXPECT_FALSE(fatBinaries(fatHeader(8), Error)); // body missing
  EXPECT_FALSE(fatBinaries(std::string(32, 'x'), Error));
  std::string Section = fatHeader(8) + std::string(8, 'a') +
                        std::string(8, '\0') + // padding
                        fatHeader(16) + std::string(16, 'b');
  auto Fat = fatBinaries(Section, Error);
  ASSERT_TRUE(Fat) << Error;
  ASSERT_EQ(Fat->size(), 2u);
  EXPECT_EQ((*Fat)[0], fatHeader(8) + std::string(8, 'a'));
  EXPECT_EQ((*Fat)[1], fatHeader(16) + std::string(16, 'b'));
}

} // namespace

namespace {
TEST(DeviceNames, InternalVariablesAreRenamedOnTheDevice) {
  std::vector<std::string> Strings = {
      "kopt_shim_call",
      "_ZN49_INTERNAL_090b3833_18_honest_constant_cu_78c9db6f51_GLOBAL__N__"
      "090b3833_18_honest_constant_cu_78c9db6f12CoefficientsE",
      "Table", "_ZN49_INTERNAL_aa_GLOBAL__N__bb5TableE"};
  // External: the same name on both sides.
  EXPECT_EQ(kopt::eval::deviceName("Table", Strings), "Table");
  // Internal: the registered string ending in the same name.
  EXPECT_EQ(kopt::eval::deviceName(
                "_ZN51_GLOBAL__N__090b3833_18_honest_constant_cu_78c9db6fL12"
                "CoefficientsE",
                Strings),
            Strings[1]);
  // Two candidates, or none: the host name is kept.
  Strings.push_back("_ZN49_INTERNAL_cc_GLOBAL__N__dd12CoefficientsE");
  EXPECT_EQ(kopt::eval::deviceName("_ZL12Coefficients", Strings),
            "_ZL12Coefficients");
  EXPECT_EQ(kopt::eval::deviceName("_ZL1x", Strings), "_ZL1x");
}

TEST(Capture, CarriesCopiesFromHostMemory) {
  CaptureReport R = sample();
  CapturedNode C;
  C.Kind = CapturedNodeKind::Copy;
  C.Width = 8;
  C.HostBytes = {0, 0, 0x80, 0x3f, 0, 0, 0x80, 0x3f};
  C.Symbol = "Table";
  R.Shapes[0].Nodes.push_back(C);
  auto Back = parse(captureToJson(R));
  ASSERT_TRUE(Back);
  EXPECT_EQ(Back->Shapes[0].Nodes[2].HostBytes, C.HostBytes);
  EXPECT_EQ(Back->Shapes[0].Nodes[2].Symbol, "Table");
  json J = captureToJson(R);
  J["shapes"][0]["nodes"][2]["bytes"] = 9; // not the bytes it carries
  EXPECT_FALSE(parse(J));
  J = captureToJson(R);
  J["shapes"][0]["nodes"][2].erase("host_bytes"); // a symbol, device source
  EXPECT_FALSE(parse(J));
}
} // namespace
