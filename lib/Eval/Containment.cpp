//===- Containment.cpp - The parent's side of `run --contain` -------------===//
#include "kopt/Eval/Containment.h"

#include "kopt/Eval/Capture.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Eval/WorkerResult.h"
#include "kopt/Spec/ProblemValidator.h"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>

namespace kopt::eval {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
CaptureVerdict fail(CaptureVerdict V, Status S, const std::string &Rule,
                    const std::string &Message) {
  V.Ok = false;
  V.VerdictStatus = S;
  V.Rule = Rule;
  V.Messages.push_back(Message);
  return V;
}

bool hashFile(const std::string &Path, std::string &Out) {
  auto Bytes = spec::readTextFile(Path);
  if (!Bytes)
    return false;
  Out = sha256Hex(*Bytes);
  return true;
}
} // namespace

CaptureVerdict captureCandidate(const std::string &WorkerExecutable,
                                WorkerJob &Job, const std::string &Dir,
                                ProcessOptions Run) {
  CaptureVerdict V;
  if (!hashFile(Job.ProblemPath, Job.ProblemSha256) ||
      !hashFile(Job.ReferenceLibrary, Job.ReferenceSha256) ||
      !hashFile(Job.CandidateLibrary, Job.CandidateSha256))
    return fail(V, Status::RuntimeError, "",
                "containment: cannot read the problem or a compiled library "
                "to hash it");
  std::error_code EC;
  fs::path Private = fs::path(Dir) / "capture";
  fs::remove_all(Private, EC);
  fs::create_directories(Private, EC);

  WorkerJob CaptureJob = Job;
  CaptureJob.ResultPath = (Private / "capture.json").string();
  // Nothing of the evaluation that follows: not its nonce, not its seeds,
  // not its kept reference outputs. The reference's library checks the
  // direct calls (the evaluation child checks it is unchanged).
  CaptureJob.Nonce.clear();
  CaptureJob.ReferenceManifest.clear();
  CaptureJob.SeedBase = std::random_device{}() * 4096ull;
  fs::path JobPath = fs::path(Dir) / "capture-job.json";
  std::ofstream(JobPath) << workerJobToJson(CaptureJob).dump(2) << "\n";
  Run.OutputFile = (fs::path(Dir) / "capture.log").string();
  // One capture child at a time (they take well under a second): a process
  // left behind is then the one that just ended's, not another device's.
  static std::mutex OneAtATime;
  std::unique_lock<std::mutex> Lock(OneAtATime);
  // Whatever was orphaned before (a compiler's children killed at a time
  // limit) is not this candidate's doing.
  collectOrphans();
  ProcessResult R =
      runProcess({WorkerExecutable, "__capture", JobPath.string()}, Run);
  std::vector<std::string> Left = collectOrphans();
  Lock.unlock();
  std::string Log = readFileTail(Run.OutputFile, 16 * 1024);
  V.Report["end"] = R.describeEnd();
  V.Report["seconds"] = R.Seconds;
  if (!Left.empty()) {
    V.Report["processes_left"] = Left;
    std::string Evidence;
    for (const std::string &L : Left)
      Evidence += "\n  " + L;
    return fail(V, Status::Rejected, "process-escape",
                "the candidate's host code left processes running after its "
                "capture process ended (killed):" +
                    Evidence);
  }
  if (R.Signal == SIGSYS)
    return fail(V, Status::Rejected, "process-control",
                "the candidate's host code made a forbidden system call "
                "(a new process, exec, ptrace or another process's memory) "
                "and its capture process was killed by seccomp\n" +
                    Log);
  if (R.TimedOut)
    return fail(V, Status::Timeout, "",
                "the capture process (the candidate's host code) was killed "
                "after the " +
                    std::to_string(static_cast<int>(Run.TimeoutSeconds)) +
                    " s limit\n" + Log);
  std::optional<std::string> Text;
  if (fs::is_regular_file(CaptureJob.ResultPath, EC) &&
      fs::file_size(CaptureJob.ResultPath, EC) < (64u << 20) && !EC)
    Text = spec::readTextFile(CaptureJob.ResultPath);
  if (!R.succeeded() || !Text)
    return fail(V, Status::RuntimeError, "",
                "the capture process (the candidate's host code) ended with " +
                    R.describeEnd() + " and wrote no capture\n" + Log);
  std::string Error;
  auto Capture = captureFromJson(json::parse(*Text, nullptr, false), Error);
  if (!Capture)
    return fail(V, Status::RuntimeError, "",
                "the capture process wrote a malformed capture: " + Error);
  V.Report["confinement"] = Capture->Confinement;
  V.Report["activity_traced"] = Capture->ActivityTraced;
  json Shapes = json::array();
  for (const CapturedShape &S : Capture->Shapes) {
    std::size_t Kernels = 0;
    for (const CapturedNode &N : S.Nodes)
      Kernels += N.Kind == CapturedNodeKind::Kernel;
    Shapes.push_back({{"shape", S.Shape},
                      {"nodes", S.Nodes.size()},
                      {"kernels", Kernels},
                      {"allocations", S.Ranges.size()}});
  }
  V.Report["shapes"] = Shapes;
  if (!Capture->Findings.empty()) {
    // The verdict names the gravest rule: interference with the baseline,
    // then work hidden from the judge, then work that cannot be replayed.
    auto Rank = [](const std::string &Rule) {
      return Rule == "baseline-interference" ? 0
             : Rule == "uncaptured-work"     ? 1
                                             : 2;
    };
    std::stable_sort(Capture->Findings.begin(), Capture->Findings.end(),
                     [&](const CaptureFinding &A, const CaptureFinding &B) {
                       return Rank(A.Rule) < Rank(B.Rule);
                     });
    // The candidate's own launcher computing something else is a wrong
    // result, as it would be outside containment.
    const CaptureFinding &Gravest = Capture->Findings.front();
    V = fail(V,
             Gravest.Rule == "direct-call" ? Status::WrongResult
                                           : Status::Rejected,
             Gravest.Rule, Gravest.Evidence);
    for (std::size_t I = 1; I < Capture->Findings.size(); ++I)
      V.Messages.push_back(Capture->Findings[I].Rule + ": " +
                           Capture->Findings[I].Evidence);
    return V;
  }
  // The evaluation child reads the parent's copy of the checked capture.
  Job.Contained = true;
  Job.CapturePath = (fs::path(Dir) / "replay.json").string();
  fs::remove(Job.CapturePath, EC);
  std::ofstream(Job.CapturePath) << captureToJson(*Capture).dump() << "\n";
  V.Ok = true;
  return V;
}

} // namespace kopt::eval
