//===- ReplayedEntry.cpp - A candidate's captured work, replayed ----------===//
#include "ReplayedEntry.h"

#include "Evaluation.h"

#include "kopt/Eval/ElfSection.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Spec/ProblemValidator.h"

#include <cstdio>
#include <cstring>
#include <optional>

namespace kopt::eval::device {

namespace {
[[noreturn]] void notReplayable(const std::string &Why) {
  throw Verdict(Status::Rejected,
                "the captured work cannot be replayed: " + Why,
                "not-replayable");
}

/// A CUDA call on the candidate's behalf; an error that leaves the context
/// usable is the capture's fault (not-replayable), a sticky one a crash.
void replayCall(cudaError_t Error, const std::string &What) {
  if (Error == cudaSuccess)
    return;
  cudaGetLastError();
  if (cudaPeekAtLastError() != cudaSuccess ||
      cudaDeviceSynchronize() != cudaSuccess)
    check(Error, What.c_str());
  notReplayable(What + ": " + cudaGetErrorName(Error));
}

std::string hexAddress(std::uint64_t A) {
  char Buffer[32];
  std::snprintf(Buffer, sizeof(Buffer), "0x%llx",
                static_cast<unsigned long long>(A));
  return Buffer;
}
} // namespace

struct ReplayedEntry::Instance {
  std::vector<std::uint64_t> Key; // callKey of the calls it serves
  std::vector<DeviceMemory> Scratch;
  cudaGraphExec_t Exec = nullptr;
  ~Instance() {
    if (Exec)
      cudaGraphExecDestroy(Exec);
  }
};

ReplayedEntry::ReplayedEntry(const spec::Problem &P,
                             std::vector<std::string> Binaries, CaptureReport C)
    : P(P), Capture(std::move(C)), FatBinaries(std::move(Binaries)) {
  for (const std::string &Fat : FatBinaries) {
    cudaLibrary_t Library = nullptr;
    cudaError_t E = cudaLibraryLoadData(&Library, Fat.data(), nullptr, nullptr,
                                        0, nullptr, nullptr, 0);
    if (E != cudaSuccess) {
      cudaGetLastError();
      notReplayable(std::string("the candidate's device code does not load (") +
                    cudaGetErrorName(E) + ")");
    }
    Libraries.push_back(Library);
  }
  // The device variables as the candidate's own calls left them (state a
  // launcher sets up once), by name into this copy of its device code.
  for (const CapturedGlobal &G : Capture.Globals) {
    // A variable of internal linkage may be named otherwise in the device
    // code: left as loaded; the correctness check tells if it mattered.
    std::optional<std::pair<void *, std::size_t>> V = findVariable(G.Name);
    if (!V) {
      std::fprintf(stderr,
                   "kopt-bench replay: note: device variable '%s' of the "
                   "capture was not found by that name; left as loaded\n",
                   G.Name.c_str());
      continue;
    }
    if (V->second != G.Bytes.size())
      notReplayable("the capture holds " + std::to_string(G.Bytes.size()) +
                    " bytes of device variable '" + G.Name + "', which has " +
                    std::to_string(V->second));
    KOPT_CUDA(cudaMemcpy(V->first, G.Bytes.data(), V->second,
                         cudaMemcpyHostToDevice));
  }
}

ReplayedEntry::~ReplayedEntry() {
  Instances.clear();
  // Never unloaded: graphs may still be in flight when the worker exits.
}

std::optional<std::pair<void *, std::size_t>>
ReplayedEntry::findVariable(const std::string &Name) const {
  for (cudaLibrary_t Library : Libraries) {
    void *Device = nullptr;
    std::size_t Bytes = 0;
    if (cudaLibraryGetGlobal(&Device, &Bytes, Library, Name.c_str()) ==
        cudaSuccess)
      return std::make_pair(Device, Bytes);
    cudaGetLastError();
  }
  return std::nullopt;
}

void *ReplayedEntry::variable(const std::string &Name, std::uint64_t Offset,
                              std::uint64_t Extent) const {
  std::optional<std::pair<void *, std::size_t>> V = findVariable(Name);
  if (!V)
    notReplayable("the capture copies into device variable '" + Name +
                  "', which the candidate's device code does not define");
  if (Offset > V->second || Extent > V->second - Offset)
    notReplayable("a copy into device variable '" + Name + "' of " +
                  std::to_string(V->second) + " bytes reaches past its end");
  return static_cast<unsigned char *>(V->first) + Offset;
}

cudaKernel_t ReplayedEntry::kernel(const std::string &Name) const {
  for (cudaLibrary_t Library : Libraries) {
    cudaKernel_t K = nullptr;
    if (cudaLibraryGetKernel(&K, Library, Name.c_str()) == cudaSuccess)
      return K;
    cudaGetLastError();
  }
  notReplayable("the capture names kernel '" + Name +
                "', which the candidate's device code does not define");
}

const CapturedShape &ReplayedEntry::shapeFor(void *const *Args) const {
  std::vector<std::uint64_t> Scalars;
  for (std::size_t I = 0; I < P.Args.size(); ++I)
    if (P.Args[I].isScalar())
      Scalars.push_back(*static_cast<const std::uint64_t *>(Args[I]));
  for (const CapturedShape &S : Capture.Shapes)
    if (S.Scalars == Scalars)
      return S;
  notReplayable("no captured call has this call's scalar arguments");
}

std::unique_ptr<ReplayedEntry::Instance>
ReplayedEntry::instantiate(const CapturedShape &S, void *const *Args,
                           cudaStream_t Stream) const {
  auto In = std::make_unique<Instance>();
  In->Key = callKey(P, Args);
  if (S.Shape >= P.Shapes.size())
    notReplayable("the capture names a shape the problem does not have");
  const spec::Shape &Shape = P.Shapes[S.Shape];
  // Where each captured range lives in this process.
  std::vector<unsigned char *> Target(S.Ranges.size(), nullptr);
  for (std::size_t R = 0; R < S.Ranges.size(); ++R) {
    const CapturedRange &Range = S.Ranges[R];
    if (Range.Arg < 0) {
      In->Scratch.emplace_back(static_cast<std::size_t>(Range.Bytes));
      // On the call's stream: a synchronous memset would wait for the
      // legacy default stream, which the correctness check holds.
      KOPT_CUDA(
          cudaMemsetAsync(In->Scratch.back().data(), 0, Range.Bytes, Stream));
      Target[R] = In->Scratch.back().data();
      continue;
    }
    std::size_t A = static_cast<std::size_t>(Range.Arg);
    if (A >= P.Args.size() || !P.Args[A].isBuffer())
      notReplayable("a captured range names argument " + std::to_string(A) +
                    ", which is not a buffer");
    std::uint64_t Bytes = static_cast<std::uint64_t>(
        spec::elementCount(P.Args[A], Shape) * spec::dtypeSize(P.Args[A].Type));
    if (Range.Bytes != Bytes)
      notReplayable("the captured size of '" + P.Args[A].Name + "' is " +
                    std::to_string(Range.Bytes) + " bytes, not " +
                    std::to_string(Bytes));
    Target[R] = *static_cast<unsigned char *const *>(Args[A]);
  }
  auto translate = [&](std::uint64_t Address, std::uint64_t Extent,
                       bool Required) -> std::uint64_t {
    const CapturedRange *R = findRange(S, Address);
    if (!R || Address - R->Address + Extent > R->Bytes) {
      if (Required)
        notReplayable("address " + hexAddress(Address) + " (+" +
                      std::to_string(Extent) +
                      " bytes) is in no memory the capture reported");
      return Address;
    }
    return reinterpret_cast<std::uint64_t>(Target[R - S.Ranges.data()]) +
           (Address - R->Address);
  };

  cudaGraph_t Graph = nullptr;
  KOPT_CUDA(cudaGraphCreate(&Graph, 0));
  struct GraphGuard {
    cudaGraph_t G;
    ~GraphGuard() { cudaGraphDestroy(G); }
  } Guard{Graph};
  std::vector<cudaGraphNode_t> Nodes;
  for (const CapturedNode &N : S.Nodes) {
    std::vector<cudaGraphNode_t> Deps;
    for (std::size_t D : N.Dependencies)
      Deps.push_back(Nodes.at(D));
    cudaGraphNode_t Node = nullptr;
    switch (N.Kind) {
    case CapturedNodeKind::Kernel: {
      cudaKernel_t K = kernel(N.Kernel);
      const void *Fn = reinterpret_cast<const void *>(K);
      std::size_t Count = 0, Offset = 0, Size = 0;
      while (cudaFuncGetParamInfo(Fn, Count, &Offset, &Size) == cudaSuccess) {
        if (Count >= N.Params.size() || N.Params[Count].size() != Size)
          notReplayable("kernel '" + N.Kernel + "' parameter " +
                        std::to_string(Count) +
                        " does not have the captured size");
        ++Count;
      }
      cudaGetLastError(); // the probe past the last parameter
      if (Count != N.Params.size())
        notReplayable("kernel '" + N.Kernel + "' takes " +
                      std::to_string(Count) + " parameters, the capture has " +
                      std::to_string(N.Params.size()));
      // Addresses inside parameters (pointers, pointers in structs) that
      // fall in a captured range are moved to this process's memory.
      std::vector<std::vector<unsigned char>> Params = N.Params;
      std::vector<void *> ParamPointers;
      for (auto &Bytes : Params) {
        for (std::size_t At = 0; At + 8 <= Bytes.size(); At += 8) {
          std::uint64_t Word;
          std::memcpy(&Word, Bytes.data() + At, 8);
          Word = translate(Word, 0, false);
          std::memcpy(Bytes.data() + At, &Word, 8);
        }
        ParamPointers.push_back(Bytes.data());
      }
      if (N.SharedBytes > 48 * 1024)
        replayCall(cudaFuncSetAttribute(
                       Fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                       static_cast<int>(N.SharedBytes)),
                   "setting kernel '" + N.Kernel + "' dynamic shared memory");
      cudaKernelNodeParams KP{};
      KP.func = const_cast<void *>(Fn);
      KP.gridDim = dim3(N.Grid[0], N.Grid[1], N.Grid[2]);
      KP.blockDim = dim3(N.Block[0], N.Block[1], N.Block[2]);
      KP.sharedMemBytes = N.SharedBytes;
      KP.kernelParams = ParamPointers.data();
      replayCall(
          cudaGraphAddKernelNode(&Node, Graph, Deps.data(), Deps.size(), &KP),
          "adding kernel '" + N.Kernel + "'");
      break;
    }
    case CapturedNodeKind::Memset: {
      std::uint64_t Extent =
          N.Pitch * (N.Height ? N.Height - 1 : 0) + N.Width * N.ElementSize;
      cudaMemsetParams MP{};
      MP.dst = reinterpret_cast<void *>(translate(N.Destination, Extent, true));
      MP.pitch = N.Pitch;
      MP.value = N.Value;
      MP.elementSize = N.ElementSize;
      MP.width = N.Width;
      MP.height = N.Height;
      replayCall(
          cudaGraphAddMemsetNode(&Node, Graph, Deps.data(), Deps.size(), &MP),
          "adding a memset");
      break;
    }
    case CapturedNodeKind::Copy: {
      void *Destination = N.Symbol.empty()
                              ? reinterpret_cast<void *>(
                                    translate(N.Destination, N.Width, true))
                              : variable(N.Symbol, N.Destination, N.Width);
      // From host memory: the captured bytes, read when the graph runs, as
      // the candidate's own graph reads its table.
      const void *Source =
          N.HostBytes.empty()
              ? reinterpret_cast<void *>(translate(N.Source, N.Width, true))
              : static_cast<const void *>(N.HostBytes.data());
      replayCall(cudaGraphAddMemcpyNode1D(
                     &Node, Graph, Deps.data(), Deps.size(), Destination,
                     Source, N.Width,
                     N.HostBytes.empty() ? cudaMemcpyDeviceToDevice
                                         : cudaMemcpyHostToDevice),
                 "adding a copy");
      break;
    }
    case CapturedNodeKind::Empty:
      replayCall(cudaGraphAddEmptyNode(&Node, Graph, Deps.data(), Deps.size()),
                 "adding an empty node");
      break;
    }
    Nodes.push_back(Node);
  }
  replayCall(cudaGraphInstantiate(&In->Exec, Graph, 0),
             "instantiating the captured graph");
  return In;
}

void ReplayedEntry::call(void *const *Args, cudaStream_t Stream) const {
  // The scalars pick the captured shape, so the key names it too.
  std::vector<std::uint64_t> Key = callKey(P, Args);
  Instance *Use = nullptr;
  for (const auto &In : Instances)
    if (In->Key == Key)
      Use = In.get();
  if (!Use) {
    Instances.push_back(instantiate(shapeFor(Args), Args, Stream));
    Use = Instances.back().get();
  }
  KOPT_CUDA(cudaGraphLaunch(Use->Exec, Stream));
}

std::vector<std::uint64_t> callKey(const spec::Problem &P, void *const *Args) {
  std::vector<std::uint64_t> Key;
  for (std::size_t I = 0; I < P.Args.size(); ++I) {
    if (P.Args[I].isScalar())
      Key.push_back(*static_cast<const std::uint64_t *>(Args[I]));
    else if (P.Args[I].isBuffer())
      Key.push_back(reinterpret_cast<std::uint64_t>(
          *static_cast<void *const *>(Args[I])));
  }
  return Key;
}

GraphedEntry::~GraphedEntry() {
  for (auto &[Key, Exec] : Graphs)
    cudaGraphExecDestroy(Exec);
}

void GraphedEntry::call(void *const *Args, cudaStream_t Stream) const {
  if (!GraphFallback.empty()) {
    Inner->call(Args, Stream);
    return;
  }
  std::vector<std::uint64_t> Key = callKey(P, Args);
  for (const auto &[K, Exec] : Graphs)
    if (K == Key) {
      KOPT_CUDA(cudaGraphLaunch(Exec, Stream));
      return;
    }
  cudaGraph_t Graph = nullptr;
  cudaGraphExec_t Exec = nullptr;
  cudaError_t E = cudaStreamBeginCapture(Stream, cudaStreamCaptureModeRelaxed);
  if (E == cudaSuccess) {
    Inner->call(Args, Stream);
    cudaError_t Launch = cudaGetLastError();
    E = cudaStreamEndCapture(Stream, &Graph);
    if (E == cudaSuccess)
      E = Launch;
  }
  if (E == cudaSuccess && Graph)
    E = cudaGraphInstantiate(&Exec, Graph, 0);
  if (Graph)
    cudaGraphDestroy(Graph);
  if (E != cudaSuccess || !Exec) {
    cudaGetLastError();
    GraphFallback = std::string("the reference's work cannot be captured (") +
                    cudaGetErrorName(E) + "): it is called directly";
    Inner->call(Args, Stream);
    return;
  }
  Graphs.push_back({Key, Exec});
  KOPT_CUDA(cudaGraphLaunch(Exec, Stream));
}

std::string readUnchanged(const std::string &Path, const std::string &Sha256,
                          const std::string &What) {
  auto Bytes = spec::readTextFile(Path);
  if (!Bytes)
    throw Verdict(Status::Rejected,
                  What + " (" + Path + ") is gone since the parent checked it",
                  "tampering");
  if (sha256Hex(*Bytes) != Sha256)
    throw Verdict(Status::Rejected,
                  What + " (" + Path +
                      ") changed after the parent hashed it, while the "
                      "candidate's host code ran",
                  "tampering");
  return *Bytes;
}

std::unique_ptr<Entry> loadReplayedCandidate(const spec::Problem &P,
                                             const WorkerJob &Job) {
  std::string Library = readUnchanged(Job.CandidateLibrary, Job.CandidateSha256,
                                      "the candidate's library");
  std::string Error;
  auto Section = readElfSection(Library, ".nv_fatbin", Error);
  auto Binaries = Section ? fatBinaries(*Section, Error) : std::nullopt;
  if (!Binaries)
    notReplayable("no device code in the candidate's library: " + Error);
  // The parent checked and rewrote this file; checked again all the same.
  auto Text = spec::readTextFile(Job.CapturePath);
  nlohmann::json J = nlohmann::json::parse(Text.value_or(""), nullptr, false);
  auto Capture = captureFromJson(J, Error);
  if (!Capture)
    notReplayable("the capture is malformed: " + Error);
  return std::make_unique<ReplayedEntry>(P, std::move(*Binaries),
                                         std::move(*Capture));
}

} // namespace kopt::eval::device
