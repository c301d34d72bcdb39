//===- Process.h - Child processes with a wall-clock limit ------*- C++ -*-===//
//
// Everything that can hang or crash runs in a child: nvcc, cuobjdump, and
// the evaluation worker (kopt-bench itself in a hidden mode). The child gets
// its own process group so a timeout kills it and whatever it started.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_PROCESS_H
#define KOPT_EVAL_PROCESS_H

#include <map>
#include <string>
#include <vector>

namespace kopt::eval {

struct ProcessOptions {
  double TimeoutSeconds = 0;                   // 0: no limit
  std::map<std::string, std::string> ExtraEnv; // set in the child
  std::string OutputFile; // stdout+stderr go here; empty: captured
  std::size_t MaxCapturedBytes = 1 << 20;
};

struct ProcessResult {
  bool Started = false;
  bool TimedOut = false;
  int ExitCode = -1;  // when it exited normally
  int Signal = 0;     // when a signal ended it
  std::string Output; // captured stdout+stderr (when no OutputFile)
  std::string StartError;
  double Seconds = 0;

  bool succeeded() const {
    return Started && !TimedOut && Signal == 0 && ExitCode == 0;
  }
  /// "exit code 1", "signal 11 (Segmentation fault)", "timed out".
  std::string describeEnd() const;
};

/// Runs \p Argv (Argv[0] is looked up on PATH) and waits for it.
ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const ProcessOptions &Options = {});

/// True when \p Path is a file this process may execute.
bool isExecutableFile(const std::string &Path);

/// \p Name's first executable in $PATH, or "".
std::string findOnPath(const std::string &Name);

/// The path of the running executable (/proc/self/exe).
std::string currentExecutable();

/// Kills every child process group still running (from a signal handler).
void killAllChildren();

/// Makes this process the "child subreaper" of everything it starts: a
/// descendant whose parent dies (a daemon that forked twice, a process
/// that left its group with setsid) becomes this process's child instead
/// of init's, so collectOrphans can find it. False where Linux refuses.
bool becomeChildSubreaper();

/// Kills and reaps every child of this process that runProcess did not
/// start (orphaned descendants, see becomeChildSubreaper) and returns one
/// line of evidence for each ("pid 4242 (sleep): sleep 100").
std::vector<std::string> collectOrphans();

} // namespace kopt::eval

#endif // KOPT_EVAL_PROCESS_H
