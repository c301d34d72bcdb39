//===- Maker.cpp - Candidates made by kopt-opt, side by side, once --------===//
#include "kopt/Search/Maker.h"

#include "kopt/Eval/Compiler.h"
#include "kopt/Eval/ReferenceCache.h"
#include "kopt/Eval/Sha256.h"
#include "kopt/Spec/ProblemValidator.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include <unistd.h>

namespace fs = std::filesystem;

namespace kopt::search {

namespace {

/// What kopt-opt's output may depend on besides its program, the recipe
/// and the source: the nvcc its resource checks run (found as kopt-opt
/// finds it) and the environment (CUDA_PATH, KOPT_NVCC, PATH, nvcc's own
/// variables, a wrapper's settings). Searches from another shell may miss;
/// none hits an output another setting made.
std::string environmentIdentity() {
  return eval::programIdentity(eval::findNvcc()) + eval::environmentIdentity();
}

/// Copies From to To through a temporary name of this process and thread,
/// so that To is whole or absent, also while other searches share the memo.
bool copyWhole(const std::string &From, const std::string &To) {
  std::error_code EC;
  std::string Tmp =
      To + ".tmp" + std::to_string(getpid()) + "-" +
      std::to_string(std::hash<std::thread::id>()(std::this_thread::get_id()));
  fs::copy_file(From, Tmp, fs::copy_options::overwrite_existing, EC);
  if (!EC)
    fs::rename(Tmp, To, EC);
  if (EC)
    fs::remove(Tmp, EC);
  return !EC;
}

} // namespace

Maker::Maker(const KoptOpt &Opt, std::string MemoDir, std::string ScratchDir,
             unsigned Workers)
    : Opt(Opt), MemoDir(std::move(MemoDir)), ScratchDir(std::move(ScratchDir)),
      ProgramId(eval::programIdentity(Opt.program()) + '\0' +
                environmentIdentity()),
      Workers(Workers ? Workers
                      : std::max(1u, std::thread::hardware_concurrency())) {}

std::string Maker::key(const MakeJob &J) const {
  std::optional<std::string> Text = spec::readTextFile(J.Source);
  if (!Text)
    return "";
  return eval::sha256Hex(ProgramId + '\0' + J.Recipe + '\0' + *Text);
}

bool Maker::held(const std::string &Key) const {
  fs::path Base = fs::path(MemoDir) / Key;
  std::error_code EC;
  return !Key.empty() && fs::exists(Base.string() + ".cu", EC) &&
         fs::exists(Base.string() + ".remarks.json", EC);
}

bool Maker::copyOut(const std::string &Key, const MakeJob &J) const {
  fs::path Base = fs::path(MemoDir) / Key;
  if (!held(Key))
    return false;
  // Used now: pruning removes the entries used longest ago first.
  std::error_code EC;
  fs::last_write_time(Base.string() + ".remarks.json",
                      fs::file_time_type::clock::now(), EC);
  return copyWhole(Base.string() + ".remarks.json", J.Remarks) &&
         copyWhole(Base.string() + ".cu", J.Out);
}

void Maker::remember(const std::string &Key, const MakeJob &J) const {
  if (Key.empty())
    return;
  std::error_code EC;
  fs::create_directories(MemoDir, EC);
  fs::path Base = fs::path(MemoDir) / Key;
  // The remarks first: a memo entry counts once its .cu is there.
  if (copyWhole(J.Remarks, Base.string() + ".remarks.json"))
    copyWhole(J.Out, Base.string() + ".cu");
}

std::vector<MadeCandidate> Maker::run(const std::vector<MakeJob> &Jobs,
                                      const std::string &BatchBase,
                                      bool Background) const {
  std::vector<MadeCandidate> Made(Jobs.size());
  unsigned N = static_cast<unsigned>(
      std::min<std::size_t>(Workers, (Jobs.size() + 1) / 2));
  // Contiguous runs: siblings share their source, so the CUDA headers are
  // parsed once a batch.
  std::vector<std::thread> Pool;
  for (unsigned W = 0; W < N; ++W)
    Pool.emplace_back([&, W] {
      std::size_t Begin = Jobs.size() * W / N, End = Jobs.size() * (W + 1) / N;
      std::vector<MakeJob> Mine(Jobs.begin() + Begin, Jobs.begin() + End);
      std::vector<MadeCandidate> Out = Opt.makeAll(
          Mine, BatchBase + "." + std::to_string(W) + ".jsonl", Background);
      std::copy(Out.begin(), Out.end(), Made.begin() + Begin);
    });
  for (std::thread &T : Pool)
    T.join();
  return Made;
}

std::vector<MadeCandidate> Maker::makeAll(const std::vector<MakeJob> &Jobs,
                                          const std::string &BatchBase) {
  std::vector<MadeCandidate> Made(Jobs.size());
  std::vector<MakeJob> ToRun;
  std::vector<std::size_t> RunOf;
  std::vector<std::string> Keys(Jobs.size());
  for (std::size_t I = 0; I < Jobs.size(); ++I) {
    Keys[I] = key(Jobs[I]);
    if (copyOut(Keys[I], Jobs[I])) {
      Made[I].Ok = true;
      ++Hits;
      continue;
    }
    ToRun.push_back(Jobs[I]);
    RunOf.push_back(I);
  }
  std::vector<MadeCandidate> Ran = run(ToRun, BatchBase, false);
  for (std::size_t K = 0; K < Ran.size(); ++K) {
    Made[RunOf[K]] = Ran[K];
    if (Ran[K].Ok)
      remember(Keys[RunOf[K]], Jobs[RunOf[K]]);
  }
  return Made;
}

std::size_t Maker::prepare(const std::vector<MakeJob> &Jobs) {
  std::vector<MakeJob> Todo;
  std::vector<std::string> Keys;
  for (const MakeJob &J : Jobs) {
    std::string K = key(J);
    if (K.empty() || held(K) ||
        std::find(Keys.begin(), Keys.end(), K) != Keys.end())
      continue;
    // Made into this run's scratch directory, then remembered.
    MakeJob Ahead = J;
    Ahead.Out = (fs::path(ScratchDir) / ("ahead-" + K + ".cu")).string();
    Ahead.Remarks =
        (fs::path(ScratchDir) / ("ahead-" + K + ".remarks.json")).string();
    Todo.push_back(Ahead);
    Keys.push_back(K);
  }
  std::error_code EC;
  fs::create_directories(ScratchDir, EC);
  std::vector<MadeCandidate> Out =
      run(Todo, (fs::path(ScratchDir) / "ahead-batch").string(), true);
  std::size_t Made = 0;
  for (std::size_t I = 0; I < Todo.size(); ++I) {
    if (Out[I].Ok) {
      remember(Keys[I], Todo[I]);
      ++Made;
    }
    fs::remove(Todo[I].Out, EC);
    fs::remove(Todo[I].Remarks, EC);
  }
  return Made;
}

std::uintmax_t Maker::prune(std::uintmax_t MaxBytes) const {
  std::error_code EC;
  if (!fs::is_directory(MemoDir, EC))
    return 0;
  // KEY.cu and KEY.remarks.json are one entry, used when its .json was.
  return eval::pruneKeyedFiles(MemoDir, MaxBytes);
}

std::uintmax_t Maker::defaultMaxBytes() {
  return eval::cacheMaxBytes("KOPT_MAKE_MEMO_MAX_MB", 512);
}

} // namespace kopt::search
