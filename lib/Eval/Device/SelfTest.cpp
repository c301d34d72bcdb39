//===- SelfTest.cpp - The GPU's data path against the host's --------------===//
//
// `kopt-bench selftest`: on this GPU, the inputs generated on the device
// must be the host generator's bytes, the device's comparison must reach
// the host's verdict, and the byte and poison checks must find what they
// are meant to find. Run it once on a new GPU, driver or toolkit; the GPU
// tests run it too.
//
//===----------------------------------------------------------------------===//
#include "DeviceData.h"
#include "DeviceSupport.h"

#include "kopt/Eval/HostData.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace kopt::eval {

using namespace device;
using spec::DType;

namespace {

int Failures = 0;

void report(bool Ok, const std::string &What) {
  std::printf("%s %s\n", Ok ? "ok  " : "FAIL", What.c_str());
  Failures += !Ok;
}

std::vector<unsigned char> download(const DeviceMemory &D, std::size_t Bytes) {
  std::vector<unsigned char> H(Bytes);
  KOPT_CUDA(cudaMemcpy(H.data(), D.data(), Bytes, cudaMemcpyDeviceToHost));
  return H;
}

DeviceMemory upload(const std::vector<unsigned char> &H) {
  DeviceMemory D(H.size());
  KOPT_CUDA(cudaMemcpy(D.data(), H.data(), H.size(), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA has landed, and
  // the checks run on a non-blocking stream that does not wait for it.
  KOPT_CUDA(cudaDeviceSynchronize());
  return D;
}

std::string formatRelative(double V) {
  char Text[32];
  std::snprintf(Text, sizeof(Text), "%.2g", V);
  return Text;
}

/// Element \p I's bits as an integer, to measure differences in units of
/// the last place.
std::int64_t bitsOf(DType T, const unsigned char *E) {
  std::int64_t B = 0;
  std::memcpy(&B, E, spec::dtypeSize(T));
  return B;
}

void checkGeneration(cudaStream_t Stream) {
  const DType Types[] = {
      DType::F64,     DType::F32, DType::F16, DType::BF16, DType::FP8E4M3,
      DType::FP8E5M2, DType::I8,  DType::U8,  DType::I16,  DType::I32,
      DType::I64,     DType::U32, DType::U64};
  struct Dist {
    spec::Init::Kind Kind;
    double First, Second;
    const char *Name;
  } Dists[] = {{spec::Init::Kind::Normal, 0.5, 2, "normal(0.5, 2)"},
               {spec::Init::Kind::Uniform, -3, 7, "uniform(-3, 7)"},
               {spec::Init::Kind::RandInt, -100, 300, "randint(-100, 300)"},
               {spec::Init::Kind::Constant, 1.25, 0, "constant(1.25)"}};
  const std::int64_t Count = 1000003;
  for (DType T : Types)
    for (const Dist &D : Dists) {
      spec::Arg A;
      A.Name = "x";
      A.Type = T;
      A.Initializer.Dist = D.Kind;
      A.Initializer.First = D.First;
      A.Initializer.Second = D.Second;
      std::uint64_t Seed = 12345, Argument = 3;
      std::vector<unsigned char> Host =
          generateBuffer(A, Count, Seed, Argument);
      DeviceMemory Dev(Host.size());
      generateOnDevice(Dev.data(), T, distributionOf(A.Initializer),
                       codec::bufferKey(Seed, Argument), Count, Stream);
      std::vector<unsigned char> Got = download(Dev, Host.size());
      std::size_t Size = spec::dtypeSize(T);
      std::int64_t Different = 0, Far = 0;
      double Worst = 0;
      for (std::int64_t I = 0; I < Count; ++I) {
        if (std::memcmp(&Got[I * Size], &Host[I * Size], Size) == 0)
          continue;
        ++Different;
        std::int64_t Ulps =
            bitsOf(T, &Got[I * Size]) - bitsOf(T, &Host[I * Size]);
        Far += Ulps > 1 || Ulps < -1;
        double G = decodeElement(T, &Got[I * Size]);
        double H = decodeElement(T, &Host[I * Size]);
        Worst = std::max(Worst, std::fabs(G - H) / std::max(1.0, std::fabs(H)));
      }
      // Every draw but the normal one is exact arithmetic (no contraction
      // into FMA on either side): the same bytes. The normal draw goes
      // through log and cos, whose last bits differ between the GPU's
      // library and the C library's: f64 values then differ by a few units
      // in the last place, and after rounding to a narrower dtype at most
      // one unit in a few elements.
      bool Ok;
      if (D.Kind != spec::Init::Kind::Normal)
        Ok = Different == 0;
      else if (T == DType::F64)
        Ok = Worst <= 1e-14;
      else
        Ok = Far == 0 && Different * 10000 <= Count;
      report(Ok, "inputs " + std::string(spec::dtypeName(T)) + " " + D.Name +
                     ": " + std::to_string(Different) + " of " +
                     std::to_string(Count) +
                     " elements differ from the host's" +
                     (Far ? " (" + std::to_string(Far) +
                                " by more than 1 ulp, relative " +
                                formatRelative(Worst) + " at most)"
                          : ""));
    }
}

void checkComparison(cudaStream_t Stream) {
  struct Case {
    DType T;
    bool IntegerTolerance;
    const char *Name;
  } Cases[] = {{DType::F32, false, "f32"},
               {DType::BF16, false, "bf16"},
               {DType::F64, false, "f64"},
               {DType::I32, false, "i32 exact"},
               {DType::I32, true, "i32 with tolerance"},
               {DType::FP8E4M3, false, "fp8e4m3"}};
  const std::int64_t Count = 300007;
  for (const Case &C : Cases) {
    spec::Arg A;
    A.Type = C.T;
    A.Initializer = {spec::Init::Kind::Uniform, -4, 4};
    std::vector<unsigned char> Expected = generateBuffer(A, Count, 7, 1);
    std::vector<unsigned char> Got = Expected;
    std::size_t Size = spec::dtypeSize(C.T);
    // Small errors, large ones, NaN and infinity where a float type has
    // them, and elements left with the poison.
    for (std::int64_t I = 1000; I < Count; I += 9973) {
      double E = decodeElement(C.T, &Expected[I * Size]);
      double V = (I / 9973) % 5 == 0   ? E + 1e-7
                 : (I / 9973) % 5 == 1 ? E * 1.5 + 1
                 : (I / 9973) % 5 == 2 ? NAN
                 : (I / 9973) % 5 == 3 ? INFINITY
                                       : E;
      encodeElement(C.T, V, &Got[I * Size]);
      if ((I / 9973) % 5 == 4)
        std::memset(&Got[I * Size], FirstPoisonByte, Size);
    }
    spec::Tolerance Tol{1e-5, 1e-5};
    ComparisonResult H =
        compareOutputs(C.T, Got.data(), Expected.data(), Count, Tol,
                       C.IntegerTolerance, FirstPoisonByte);
    DeviceMemory DG = upload(Got), DE = upload(Expected);
    ComparisonResult D =
        compareOnDevice(C.T, DG.data(), DE.data(), Count, Tol,
                        C.IntegerTolerance, FirstPoisonByte, Stream);
    auto Same = [](double X, double Y) {
      return (std::isnan(X) && std::isnan(Y)) || X == Y;
    };
    bool Ok = H.Ok == D.Ok && H.Mismatches == D.Mismatches &&
              H.Unwritten == D.Unwritten &&
              H.FirstMismatch == D.FirstMismatch &&
              Same(H.FirstGot, D.FirstGot) &&
              Same(H.FirstExpected, D.FirstExpected) &&
              H.FirstUnwritten == D.FirstUnwritten &&
              H.MaxAbsError == D.MaxAbsError && H.MaxRelError == D.MaxRelError;
    report(Ok, std::string("compare ") + C.Name + ": host " +
                   std::to_string(H.Mismatches) + " mismatches (" +
                   std::to_string(H.Unwritten) + " unwritten, first " +
                   std::to_string(H.FirstMismatch) + "), device " +
                   std::to_string(D.Mismatches) + " (" +
                   std::to_string(D.Unwritten) + ", first " +
                   std::to_string(D.FirstMismatch) + ")");
    ComparisonResult Equal =
        compareOnDevice(C.T, DE.data(), DE.data(), Count, Tol,
                        C.IntegerTolerance, FirstPoisonByte, Stream);
    report(Equal.Ok && Equal.Mismatches == 0,
           std::string("compare ") + C.Name + " with itself: no mismatch");
  }
}

void checkBytesAndPoison(cudaStream_t Stream) {
  const std::size_t Bytes = (1 << 20) + 13;
  std::vector<unsigned char> A(Bytes);
  for (std::size_t I = 0; I < Bytes; ++I)
    A[I] = static_cast<unsigned char>(codec::mix(I));
  DeviceMemory DA = upload(A);
  report(firstDifferenceOnDevice(DA.data(), DA.data(), Bytes, Stream) == -1,
         "a buffer equals itself");
  for (std::size_t Flip : {std::size_t(0), std::size_t(15), std::size_t(16),
                           std::size_t(123457), Bytes - 1}) {
    std::vector<unsigned char> B = A;
    B[Flip] ^= 0x40;
    if (Flip != Bytes - 1)
      B[Bytes - 1] ^= 1; // a later difference must not hide the first
    DeviceMemory DB = upload(B);
    std::int64_t Found =
        firstDifferenceOnDevice(DA.data(), DB.data(), Bytes, Stream);
    std::int64_t Shifted = firstDifferenceOnDevice(DA.data() + 1, DB.data() + 1,
                                                   Bytes - 1, Stream);
    // One byte in: the flip at byte 0 is not seen, the last byte's is.
    std::int64_t ShiftedWant = Flip == 0 ? static_cast<std::int64_t>(Bytes) - 2
                                         : static_cast<std::int64_t>(Flip) - 1;
    report(Found == static_cast<std::int64_t>(Flip) && Shifted == ShiftedWant,
           "first difference at byte " + std::to_string(Flip) + ": found " +
               std::to_string(Found) + ", unaligned " +
               std::to_string(Shifted));
    report(checksumOnDevice(DA.data(), Bytes, Stream) !=
               checksumOnDevice(DB.data(), Bytes, Stream),
           "a changed byte changes the checksum (byte " + std::to_string(Flip) +
               ")");
  }
  // Elements of 4 bytes: every 1000th kept both poisons.
  const std::int64_t Count = 250003;
  std::vector<unsigned char> First(Count * 4, 0x11), Second(Count * 4, 0x22);
  std::int64_t Kept = 0;
  for (std::int64_t I = 77; I < Count; I += 1000, ++Kept) {
    std::memset(&First[I * 4], FirstPoisonByte, 4);
    std::memset(&Second[I * 4], SecondPoisonByte, 4);
  }
  std::memset(&First[5 * 4], FirstPoisonByte, 4); // only one run: written
  DeviceMemory DF = upload(First), DS = upload(Second);
  KeptPoison K = keptPoisonOnDevice(DF.data(), DS.data(), Count, 4,
                                    FirstPoisonByte, SecondPoisonByte, Stream);
  report(K.Count == Kept && K.First == 77,
         "elements kept under both poisons: " + std::to_string(K.Count) +
             " (expected " + std::to_string(Kept) + "), first " +
             std::to_string(K.First));
}

} // namespace

int runDataSelfTest() {
  try {
    KOPT_CUDA(cudaSetDevice(0));
    cudaStream_t Stream = nullptr;
    KOPT_CUDA(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
    initDeviceData();
    cudaDeviceProp Props{};
    KOPT_CUDA(cudaGetDeviceProperties(&Props, 0));
    std::printf("kopt-bench selftest on %s (sm_%d%d)\n", Props.name,
                Props.major, Props.minor);
    checkGeneration(Stream);
    checkComparison(Stream);
    checkBytesAndPoison(Stream);
  } catch (const std::exception &E) {
    std::printf("FAIL %s\n", E.what());
    return 2;
  }
  std::printf("%s: %d failed\n", Failures ? "FAILED" : "PASSED", Failures);
  return Failures ? 1 : 0;
}

} // namespace kopt::eval
