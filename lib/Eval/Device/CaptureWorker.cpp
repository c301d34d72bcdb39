//===- CaptureWorker.cpp - The child that runs a candidate's host code ----===//
//
// `kopt-bench __capture JOB` (include/kopt/Eval/Capture.h): confines itself
// (Confinement.h), loads the reference and then the candidate's library
// (its constructors run here). For each shape it calls the entry directly
// and checks every call against the reference (DirectCalls.h), captures
// one call as a CUDA graph, calls it directly again, captures it again on
// other buffers, and refuses graphs that differ (inconsistent-capture);
// the first graph is written down for the replay. Nothing it captures
// runs; the candidate's kernels run only in its direct calls. This process
// never sees the evaluation's seeds, the judge's clock, its job or its
// verdict.
//
//===----------------------------------------------------------------------===//
#include "ActivityTrace.h"
#include "DeviceData.h"
#include "DeviceVariables.h"
#include "DirectCalls.h"
#include "Evaluation.h"

#include "kopt/Eval/Capture.h"
#include "kopt/Eval/Confinement.h"
#include "kopt/Spec/ProblemParser.h"

#include <cuda.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace kopt::eval {

using namespace device;

namespace {
using GetAddressRangeFn = CUresult (*)(CUdeviceptr *, size_t *, CUdeviceptr);

const char *nodeTypeName(cudaGraphNodeType T) {
  switch (T) {
  case cudaGraphNodeTypeHost:
    return "host-function";
  case cudaGraphNodeTypeGraph:
    return "child-graph";
  case cudaGraphNodeTypeWaitEvent:
    return "event-wait";
  case cudaGraphNodeTypeEventRecord:
    return "event-record";
  case cudaGraphNodeTypeMemAlloc:
    return "memory-allocation (cudaMallocAsync)";
  case cudaGraphNodeTypeMemFree:
    return "memory-free (cudaFreeAsync)";
  default:
    return "unsupported";
  }
}

class GraphRecorder {
public:
  GraphRecorder(CapturedShape &Out, CaptureReport &Report,
                const std::vector<DeviceVariable> &Variables)
      : Out(Out), Report(Report), Variables(Variables) {
    void *Fn = nullptr;
    cudaDriverEntryPointQueryResult Q;
    if (cudaGetDriverEntryPointByVersion("cuMemGetAddressRange", &Fn, 12000,
                                         cudaEnableDefault,
                                         &Q) == cudaSuccess &&
        Q == cudaDriverEntryPointSuccess)
      GetRange = reinterpret_cast<GetAddressRangeFn>(Fn);
    cudaGetLastError();
  }

  void record(cudaGraph_t G);

private:
  CapturedShape &Out;
  CaptureReport &Report;
  const std::vector<DeviceVariable> &Variables;
  GetAddressRangeFn GetRange = nullptr;

  void finding(const std::string &Rule, const std::string &Evidence) {
    if (Report.Findings.size() < CaptureLimits::MaxFindings)
      Report.Findings.push_back({Rule, Evidence});
  }
  /// Device memory at \p Address that is no buffer argument: memory the
  /// entry allocated, reported so the replay can allocate its own.
  void noteMemory(std::uint64_t Address);
  void recordKernel(cudaGraphNode_t Node, CapturedNode &N);
  void recordCopy(cudaGraphNode_t Node, CapturedNode &N);
};

void GraphRecorder::noteMemory(std::uint64_t Address) {
  if (!Address || findRange(Out, Address) || !GetRange)
    return;
  cudaPointerAttributes A{};
  bool Device =
      cudaPointerGetAttributes(&A, reinterpret_cast<void *>(Address)) ==
          cudaSuccess &&
      (A.type == cudaMemoryTypeDevice || A.type == cudaMemoryTypeManaged);
  cudaGetLastError();
  if (!Device)
    return;
  CUdeviceptr Base = 0;
  size_t Bytes = 0;
  if (GetRange(&Base, &Bytes, Address) != CUDA_SUCCESS || !Base)
    return;
  if (Out.Ranges.size() < CaptureLimits::MaxRanges)
    Out.Ranges.push_back({-1, Base, Bytes});
}

void GraphRecorder::recordKernel(cudaGraphNode_t Node, CapturedNode &N) {
  N.Kind = CapturedNodeKind::Kernel;
  cudaKernelNodeParams P{};
  KOPT_CUDA(cudaGraphKernelNodeGetParams(Node, &P));
  const char *Name = nullptr;
  if (cudaFuncGetName(&Name, P.func) != cudaSuccess || !Name) {
    cudaGetLastError();
    finding("not-capturable", "a captured kernel has no name");
    return;
  }
  N.Kernel = Name;
  N.Grid = {P.gridDim.x, P.gridDim.y, P.gridDim.z};
  N.Block = {P.blockDim.x, P.blockDim.y, P.blockDim.z};
  N.SharedBytes = P.sharedMemBytes;
  if (!P.kernelParams) {
    finding("not-capturable",
            "kernel '" + N.Kernel + "' was launched with `extra` parameters");
    return;
  }
  std::size_t Offset = 0, Size = 0;
  for (std::size_t I = 0;
       cudaFuncGetParamInfo(P.func, I, &Offset, &Size) == cudaSuccess; ++I) {
    auto *Bytes = static_cast<const unsigned char *>(P.kernelParams[I]);
    N.Params.emplace_back(Bytes, Bytes + Size);
    for (std::size_t At = 0; At + 8 <= Size; At += 8) {
      std::uint64_t Word;
      std::memcpy(&Word, Bytes + At, 8);
      noteMemory(Word);
    }
  }
  cudaGetLastError();
  cudaLaunchAttributeValue V{};
  if (cudaGraphKernelNodeGetAttribute(
          Node, cudaLaunchAttributeAccessPolicyWindow, &V) == cudaSuccess &&
      V.accessPolicyWindow.num_bytes > 0)
    finding("baseline-interference",
            "kernel '" + N.Kernel + "' carries an L2 access policy window of " +
                std::to_string(V.accessPolicyWindow.num_bytes) +
                " bytes (cudaStreamSetAttribute on the capturing stream)");
  V = {};
  if (cudaGraphKernelNodeGetAttribute(Node, cudaLaunchAttributeClusterDimension,
                                      &V) == cudaSuccess &&
      V.clusterDim.x * V.clusterDim.y * V.clusterDim.z > 1)
    finding("not-capturable", "kernel '" + N.Kernel +
                                  "' is a cluster launch, which the replay "
                                  "does not reproduce yet");
  cudaGetLastError();
}

void GraphRecorder::recordCopy(cudaGraphNode_t Node, CapturedNode &N) {
  N.Kind = CapturedNodeKind::Copy;
  cudaMemcpy3DParms P{};
  KOPT_CUDA(cudaGraphMemcpyNodeGetParams(Node, &P));
  bool OneDimensional = !P.srcArray && !P.dstArray && P.extent.height == 1 &&
                        P.extent.depth == 1 && P.srcPos.x == 0 &&
                        P.srcPos.y == 0 && P.srcPos.z == 0 && P.dstPos.x == 0 &&
                        P.dstPos.y == 0 && P.dstPos.z == 0;
  auto IsDevice = [](const void *Ptr) {
    cudaPointerAttributes A{};
    bool D =
        cudaPointerGetAttributes(&A, Ptr) == cudaSuccess &&
        (A.type == cudaMemoryTypeDevice || A.type == cudaMemoryTypeManaged);
    cudaGetLastError();
    return D;
  };
  bool FromHost = OneDimensional && !IsDevice(P.srcPtr.ptr) &&
                  IsDevice(P.dstPtr.ptr) &&
                  P.extent.width <= CaptureLimits::MaxHostCopyBytes;
  if (!OneDimensional || !IsDevice(P.dstPtr.ptr) ||
      (!FromHost && !IsDevice(P.srcPtr.ptr))) {
    finding("not-capturable",
            "a captured copy is neither a one-dimensional device-to-device "
            "copy nor one of at most " +
                std::to_string(CaptureLimits::MaxHostCopyBytes) +
                " bytes from host memory");
    return;
  }
  N.Destination = reinterpret_cast<std::uint64_t>(P.dstPtr.ptr);
  N.Width = P.extent.width;
  if (FromHost) {
    // By value: the host bytes as the graph would read them now (a
    // constant table; a buffer the launcher rewrites gives the correctness
    // check something to find).
    const auto *Bytes = static_cast<const unsigned char *>(P.srcPtr.ptr);
    N.HostBytes.assign(Bytes, Bytes + N.Width);
    if (const DeviceVariable *V = variableAt(Variables, N.Destination)) {
      N.Symbol = V->Name;
      N.Destination -= V->Address;
      return;
    }
  } else {
    N.Source = reinterpret_cast<std::uint64_t>(P.srcPtr.ptr);
    noteMemory(N.Source);
  }
  noteMemory(N.Destination);
}

void GraphRecorder::record(cudaGraph_t G) {
  std::size_t Count = 0;
  KOPT_CUDA(cudaGraphGetNodes(G, nullptr, &Count));
  if (Count > CaptureLimits::MaxNodes) {
    finding("not-capturable",
            "the captured graph has " + std::to_string(Count) + " nodes");
    return;
  }
  std::vector<cudaGraphNode_t> Nodes(Count);
  KOPT_CUDA(cudaGraphGetNodes(G, Nodes.data(), &Count));
  // Dependency order (Kahn), so each node names only earlier ones.
  std::map<cudaGraphNode_t, std::vector<cudaGraphNode_t>> Deps;
  for (cudaGraphNode_t Node : Nodes) {
    std::size_t N = 0;
    KOPT_CUDA(cudaGraphNodeGetDependencies(Node, nullptr, nullptr, &N));
    Deps[Node].resize(N);
    KOPT_CUDA(
        cudaGraphNodeGetDependencies(Node, Deps[Node].data(), nullptr, &N));
  }
  std::map<cudaGraphNode_t, std::size_t> Index;
  while (Index.size() < Nodes.size()) {
    std::size_t Before = Index.size();
    for (cudaGraphNode_t Node : Nodes) {
      if (Index.count(Node))
        continue;
      const auto &D = Deps[Node];
      if (!std::all_of(D.begin(), D.end(),
                       [&](cudaGraphNode_t X) { return Index.count(X); }))
        continue;
      CapturedNode N;
      for (cudaGraphNode_t X : D)
        N.Dependencies.push_back(Index[X]);
      cudaGraphNodeType Type;
      KOPT_CUDA(cudaGraphNodeGetType(Node, &Type));
      if (Type == cudaGraphNodeTypeKernel) {
        recordKernel(Node, N);
      } else if (Type == cudaGraphNodeTypeMemset) {
        cudaMemsetParams M{};
        KOPT_CUDA(cudaGraphMemsetNodeGetParams(Node, &M));
        N.Kind = CapturedNodeKind::Memset;
        N.Destination = reinterpret_cast<std::uint64_t>(M.dst);
        N.Value = M.value;
        N.ElementSize = M.elementSize;
        N.Width = M.width;
        N.Height = M.height;
        N.Pitch = M.pitch;
        noteMemory(N.Destination);
      } else if (Type == cudaGraphNodeTypeMemcpy) {
        recordCopy(Node, N);
      } else if (Type == cudaGraphNodeTypeEmpty) {
        N.Kind = CapturedNodeKind::Empty;
      } else {
        finding("not-capturable",
                std::string("the entry's work holds a ") + nodeTypeName(Type) +
                    " node, which the replay cannot reproduce");
      }
      Index[Node] = Out.Nodes.size();
      Out.Nodes.push_back(std::move(N));
    }
    if (Index.size() == Before) {
      finding("not-capturable", "the captured graph has a cycle");
      return;
    }
  }
}

/// The report goes to a file opened before root was dropped (its
/// directories need not be reachable by the unprivileged user).
void writeReport(int Fd, const CaptureReport &Report) {
  std::string Text = captureToJson(Report).dump() + "\n";
  if (ftruncate(Fd, 0) != 0)
    return;
  std::size_t Done = 0;
  while (Done < Text.size()) {
    ssize_t N = pwrite(Fd, Text.data() + Done, Text.size() - Done, Done);
    if (N <= 0)
      return;
    Done += static_cast<std::size_t>(N);
  }
}

bool hasWork(const CapturedShape &S) {
  return std::any_of(S.Nodes.begin(), S.Nodes.end(), [](const CapturedNode &N) {
    return N.Kind != CapturedNodeKind::Empty;
  });
}

/// Nothing captured runs, so the device should be idle at once. Work still
/// running (a kernel left on a private stream, a hog) is reported; after
/// \p Seconds the report is written from a watchdog and the process ends.
void waitForStrayWork(
    CaptureReport &Report, int Fd, double Seconds,
    const std::vector<std::pair<std::uint64_t, std::uint64_t>> &Allowed,
    cudaStream_t Own) {
  std::mutex Mutex;
  std::condition_variable Done;
  bool Finished = false;
  std::thread Watchdog([&] {
    std::unique_lock<std::mutex> Lock(Mutex);
    if (Done.wait_for(Lock, std::chrono::duration<double>(Seconds),
                      [&] { return Finished; }))
      return;
    Report.Findings.push_back(
        {"uncaptured-work",
         "GPU work the judge was not given was still running " +
             std::to_string(static_cast<int>(Seconds)) +
             " s after the last captured call (a kernel on a private stream "
             "or thread, or left running after the entry returned)"});
    writeReport(Fd, Report);
    std::fflush(stderr);
    _exit(0);
  });
  auto Start = std::chrono::steady_clock::now();
  cudaDeviceSynchronize();
  cudaGetLastError();
  double Waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Finished = true;
  }
  Done.notify_all();
  Watchdog.join();
  if (Waited > 0.1)
    Report.Findings.push_back(
        {"uncaptured-work",
         "the device was busy for " + std::to_string(Waited) +
             " s after the last captured call, with work the judge was not "
             "given (a private stream, a thread, or work left running)"});
#ifdef KOPT_EVAL_HAS_CUPTI
  if (Report.ActivityTraced)
    for (const std::string &K : kernelsOutside(Allowed, Own, 8))
      Report.Findings.push_back(
          {"uncaptured-work",
           K + " ran in the capture process outside the candidate's direct "
               "calls (before the first, during a capture, or after a "
               "call's stream had drained): work the judge was not given"});
#else
  (void)Allowed;
  (void)Own;
#endif
}

/// Calls the entry on \p Args under stream capture and records the graph;
/// nullopt (with a finding) when the work could not be captured.
std::optional<CapturedShape>
captureCall(const spec::Problem &P, std::size_t ShapeIndex,
            ProblemArguments &Args, const Entry &Candidate,
            const std::vector<DeviceVariable> &Variables,
            CaptureReport &Report) {
  std::string Where = "shape #" + std::to_string(ShapeIndex);
  CapturedShape Shape;
  Shape.Shape = ShapeIndex;
  for (std::size_t A = 0; A < P.Args.size(); ++A) {
    if (P.Args[A].isScalar())
      Shape.Scalars.push_back(
          *static_cast<const std::uint64_t *>(Args.argv()[A]));
    else if (P.Args[A].isBuffer())
      Shape.Ranges.push_back(
          {static_cast<int>(A),
           reinterpret_cast<std::uint64_t>(Args.buffer(A).data()),
           Args.bytes(A)});
  }
  cudaStream_t Stream = nullptr;
  KOPT_CUDA(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
  // Relaxed: an entry may allocate scratch on its first call.
  KOPT_CUDA(cudaStreamBeginCapture(Stream, cudaStreamCaptureModeRelaxed));
  Candidate.call(Args.argv(), Stream);
  cudaError_t Launch = cudaGetLastError();
  cudaGraph_t Graph = nullptr;
  cudaError_t End = cudaStreamEndCapture(Stream, &Graph);
  if (Launch != cudaSuccess || End != cudaSuccess || !Graph) {
    cudaGetLastError();
    Report.Findings.push_back(
        {"not-capturable",
         Where + ": the entry's work cannot be captured as a CUDA graph (" +
             cudaGetErrorName(Launch != cudaSuccess ? Launch : End) +
             "): it synchronizes, copies from host memory, or works "
             "outside the stream it was given"});
    return std::nullopt;
  }
  std::size_t Before = Report.Findings.size();
  GraphRecorder(Shape, Report, Variables).record(Graph);
  cudaGraphDestroy(Graph);
  if (!hasWork(Shape))
    Report.Findings.push_back(
        {"uncaptured-work",
         Where + ": the entry put no GPU work on the stream it was "
                 "given (work on a private stream or thread is neither "
                 "timed nor replayed)"});
  if (Report.Findings.size() != Before)
    return std::nullopt;
  return Shape;
}
} // namespace

int runCaptureWorker(const std::string &JobPath) {
  std::optional<WorkerJob> Read = readWorkerJob(JobPath, "capture");
  if (!Read)
    return 2;
  const WorkerJob &Job = *Read;
  CaptureReport Report;
  int OutFd = -1;
  try {
    auto Loaded = spec::loadProblemFile(Job.ProblemPath);
    if (!Loaded.ok())
      throw std::runtime_error("cannot load the problem: " +
                               Loaded.Errors.front());
    const spec::Problem &P = *Loaded.Value;
    // Opened now: once root is dropped, the directories holding them may
    // be out of reach.
    OutFd = open(Job.ResultPath.c_str(),
                 O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int LibraryFd = open(Job.CandidateLibrary.c_str(), O_RDONLY | O_CLOEXEC);
    int ReferenceFd = open(Job.ReferenceLibrary.c_str(), O_RDONLY | O_CLOEXEC);
    if (OutFd < 0 || LibraryFd < 0 || ReferenceFd < 0)
      throw std::runtime_error("cannot open the capture file, the "
                               "candidate's library or the reference's");
    // Before CUDA starts its threads, so that every thread inherits it.
    setStage("confining the capture process");
    ConfinementResult Confined = confineProcess(
        {std::filesystem::path(Job.ResultPath).parent_path().string()});
    Report.Confinement = Confined.Applied;
    for (const std::string &M : Confined.Missing)
      std::fprintf(stderr, "kopt-bench capture: not confined: %s\n", M.c_str());

#ifdef KOPT_EVAL_HAS_CUPTI
    Report.ActivityTraced = startKernelTrace();
#endif
    setStage("creating the CUDA context");
    KOPT_CUDA(cudaSetDevice(0));
    KOPT_CUDA(cudaFree(nullptr));
    // The persisting-L2 set-aside before any candidate code: a change is a
    // device setting the baseline would run under.
    std::size_t PersistingBefore = 0;
    cudaDeviceGetLimit(&PersistingBefore, cudaLimitPersistingL2CacheSize);
    cudaGetLastError();
    std::string Dropped = dropRoot(UnprivilegedUid);
    if (Dropped.rfind("cannot", 0) == 0)
      throw std::runtime_error("refusing to load the candidate as root: " +
                               Dropped);
    if (!Dropped.empty())
      Report.Confinement.push_back(Dropped);
    // The reference checks the direct calls; it is loaded first, before any
    // code of the candidate's runs.
    setStage("loading the reference");
    EntryLibrary Reference("/proc/self/fd/" + std::to_string(ReferenceFd));
    setStage("loading the candidate (its host code runs from here on)");
    EntryLibrary Candidate("/proc/self/fd/" + std::to_string(LibraryFd));
    std::vector<DeviceVariable> Variables = findDeviceVariables(
        "/proc/self/fd/" + std::to_string(LibraryFd), Candidate.loadBase());
    cudaStream_t Stream = nullptr;
    KOPT_CUDA(cudaStreamCreateWithFlags(&Stream, cudaStreamNonBlocking));
    initDeviceData();
    // At least MinDirectCalls direct calls in all (a launcher that skips
    // calls after a count), at least 8 a shape, half before the first
    // capture and half between the two.
    constexpr int MinDirectCalls = 48;
    int Shapes = static_cast<int>(P.Shapes.size());
    int PerShape = std::max(8, (MinDirectCalls + Shapes - 1) / Shapes);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> Allowed;
    for (std::size_t I = 0; I < P.Shapes.size() && Report.Findings.empty();
         ++I) {
      std::string Where = "shape #" + std::to_string(I);
      setStage("allocating " + Where);
      auto X = allocateArguments(P, P.Shapes[I], Where);
      auto Y = allocateArguments(P, P.Shapes[I], Where);
      setStage("calling the entry directly on " + Where);
      DirectCalls Direct(P, Job, I, Reference, Candidate, *X, *Y, Stream);
      std::size_t Added = 0; // of Direct's windows, into Allowed
      auto Calls = [&](int Count) {
        std::string Wrong = Direct.run(Count, 4, 1.5);
        // The calls' kernels are the candidate's, even when a call was
        // wrong: they are not stray work.
        Allowed.insert(Allowed.end(), Direct.windows().begin() + Added,
                       Direct.windows().end());
        Added = Direct.windows().size();
        if (!Wrong.empty()) {
          Report.Findings.push_back({"direct-call", Wrong});
          return false;
        }
        // Each call's stream has drained: the device should be idle. Work
        // left running is found here, before more calls pile it up.
        auto Start = std::chrono::steady_clock::now();
        KOPT_CUDA(cudaDeviceSynchronize());
        double Busy = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
        if (Busy > 0.1)
          Report.Findings.push_back(
              {"uncaptured-work",
               Where + ": the device was busy for " + std::to_string(Busy) +
                   " s after the direct calls' stream had drained: work "
                   "left running on a private stream or thread"});
        return Busy <= 0.1;
      };
      if (!Calls(PerShape / 2))
        break;
      setStage("capturing the entry's work on " + Where);
      std::optional<CapturedShape> First =
          captureCall(P, I, *X, Candidate, Variables, Report);
      if (!First || !Calls(PerShape - PerShape / 2))
        break;
      setStage("capturing the entry's work on " + Where + " again");
      std::optional<CapturedShape> Second =
          captureCall(P, I, *Y, Candidate, Variables, Report);
      if (!Second)
        break;
      std::string Differs = captureDifference(*First, *Second);
      if (!Differs.empty())
        Report.Findings.push_back(
            {"inconsistent-capture",
             Where +
                 ": two captures of the same call on different buffers "
                 "did different work (" +
                 Differs +
                 "): the graph replayed would not be what the launcher "
                 "does"});
      Report.Shapes.push_back(std::move(*First));
    }
    if (Report.Findings.empty()) {
      setStage("reading the candidate's device variables");
      KOPT_CUDA(cudaStreamSynchronize(Stream));
      Report.Globals = snapshotVariables(Variables);
    }
    setStage("looking for GPU work outside the captured calls");
    waitForStrayWork(Report, OutFd, 3.0, Allowed, Stream);
    std::size_t Persisting = 0;
    if (cudaDeviceGetLimit(&Persisting, cudaLimitPersistingL2CacheSize) ==
            cudaSuccess &&
        Persisting != PersistingBefore)
      Report.Findings.push_back(
          {"baseline-interference",
           "the entry changed the persisting L2 cache limit from " +
               std::to_string(PersistingBefore) + " to " +
               std::to_string(Persisting) + " bytes (cudaDeviceSetLimit)"});
    cudaGetLastError();
    setStage("done");
  } catch (const std::exception &E) {
    std::fprintf(stderr, "kopt-bench capture: %s\n", E.what());
    std::fflush(stderr);
    _exit(1);
  }
  writeReport(OutFd, Report);
  std::fflush(stdout);
  std::fflush(stderr);
  _exit(0);
}

} // namespace kopt::eval
