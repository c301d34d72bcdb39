//===- Process.cpp - Child processes with a wall-clock limit --------------===//
#include "kopt/Eval/Process.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

namespace kopt::eval {

namespace {
// Child process groups alive now, so that a signal to kopt-bench can take
// them down with it. A fixed array keeps the signal handler safe.
constexpr int MaxChildren = 256;
std::atomic<pid_t> LiveChildren[MaxChildren];

// Held from posix_spawn until the child is remembered, and while orphans
// are collected: a child just started is never taken for an orphan.
std::mutex SpawnMutex;

void rememberChild(pid_t Pid) {
  for (auto &Slot : LiveChildren) {
    pid_t Empty = 0;
    if (Slot.compare_exchange_strong(Empty, Pid))
      return;
  }
}

void forgetChild(pid_t Pid) {
  for (auto &Slot : LiveChildren) {
    pid_t Expected = Pid;
    if (Slot.compare_exchange_strong(Expected, 0))
      return;
  }
}

std::vector<std::string>
buildEnvironment(const std::map<std::string, std::string> &Extra) {
  std::vector<std::string> Env;
  for (char **E = environ; E && *E; ++E) {
    std::string Entry = *E;
    std::string Key = Entry.substr(0, Entry.find('='));
    if (!Extra.count(Key))
      Env.push_back(Entry);
  }
  for (const auto &[Key, Value] : Extra)
    Env.push_back(Key + "=" + Value);
  return Env;
}

std::vector<char *> pointers(std::vector<std::string> &Strings) {
  std::vector<char *> Result;
  for (std::string &S : Strings)
    Result.push_back(S.data());
  Result.push_back(nullptr);
  return Result;
}
} // namespace

std::string ProcessResult::describeEnd() const {
  if (!Started)
    return "could not start: " + StartError;
  if (TimedOut)
    return "timed out";
  if (Signal)
    return "signal " + std::to_string(Signal) + " (" + strsignal(Signal) + ")";
  return "exit code " + std::to_string(ExitCode);
}

ProcessResult runProcess(const std::vector<std::string> &Argv,
                         const ProcessOptions &Options) {
  ProcessResult Result;
  auto Start = std::chrono::steady_clock::now();
  if (Argv.empty()) {
    Result.StartError = "empty command";
    return Result;
  }

  int Pipe[2] = {-1, -1};
  posix_spawn_file_actions_t Actions;
  posix_spawn_file_actions_init(&Actions);
  posix_spawn_file_actions_addopen(&Actions, 0, "/dev/null", O_RDONLY, 0);
  if (Options.OutputFile.empty()) {
    if (pipe2(Pipe, O_CLOEXEC) != 0) {
      Result.StartError = std::strerror(errno);
      posix_spawn_file_actions_destroy(&Actions);
      return Result;
    }
    posix_spawn_file_actions_adddup2(&Actions, Pipe[1], 1);
    posix_spawn_file_actions_adddup2(&Actions, Pipe[1], 2);
  } else {
    posix_spawn_file_actions_addopen(&Actions, 1, Options.OutputFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&Actions, 1, 2);
  }
  posix_spawnattr_t Attr;
  posix_spawnattr_init(&Attr);
  // A group of its own: a timeout kills the child and its children.
  posix_spawnattr_setpgroup(&Attr, 0);
  sigset_t Default;
  sigemptyset(&Default);
  sigaddset(&Default, SIGINT);
  sigaddset(&Default, SIGTERM);
  sigaddset(&Default, SIGPIPE);
  posix_spawnattr_setsigdefault(&Attr, &Default);
  posix_spawnattr_setflags(&Attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> Args = Argv;
  std::vector<std::string> Env = buildEnvironment(Options.ExtraEnv);
  std::vector<char *> ArgPtrs = pointers(Args), EnvPtrs = pointers(Env);
  pid_t Pid = 0;
  std::unique_lock<std::mutex> Spawning(SpawnMutex);
  int Error = posix_spawnp(&Pid, Args[0].c_str(), &Actions, &Attr,
                           ArgPtrs.data(), EnvPtrs.data());
  if (Error == 0)
    rememberChild(Pid);
  Spawning.unlock();
  posix_spawn_file_actions_destroy(&Actions);
  posix_spawnattr_destroy(&Attr);
  if (Pipe[1] >= 0)
    close(Pipe[1]);
  if (Error != 0) {
    Result.StartError = "'" + Args[0] + "': " + std::strerror(Error);
    if (Pipe[0] >= 0)
      close(Pipe[0]);
    return Result;
  }
  Result.Started = true;

  auto Deadline = Start + std::chrono::duration<double>(Options.TimeoutSeconds);
  int Status = 0;
  bool Exited = false;
  bool PipeOpen = Pipe[0] >= 0;
  while (true) {
    if (PipeOpen) {
      pollfd P{Pipe[0], POLLIN, 0};
      if (poll(&P, 1, 20) > 0) {
        char Buffer[4096];
        ssize_t N = read(Pipe[0], Buffer, sizeof(Buffer));
        if (N > 0) {
          if (Result.Output.size() < Options.MaxCapturedBytes)
            Result.Output.append(Buffer, N);
        } else if (N == 0 || (N < 0 && errno != EINTR)) {
          PipeOpen = false;
        }
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    // Look without reaping: while the child is a zombie its process group
    // id cannot be reused, so killing the group below is safe.
    siginfo_t Info{};
    Info.si_pid = 0;
    if (waitid(P_PID, Pid, &Info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        Info.si_pid == Pid) {
      Exited = true;
      // Grandchildren left behind must not outlive the evaluation.
      kill(-Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      // Drain what is left in the pipe.
      while (PipeOpen) {
        char Buffer[4096];
        ssize_t N = read(Pipe[0], Buffer, sizeof(Buffer));
        if (N <= 0)
          break;
        if (Result.Output.size() < Options.MaxCapturedBytes)
          Result.Output.append(Buffer, N);
      }
      break;
    }
    if (Options.TimeoutSeconds > 0 &&
        std::chrono::steady_clock::now() > Deadline) {
      kill(-Pid, SIGKILL);
      kill(Pid, SIGKILL);
      waitpid(Pid, &Status, 0);
      Result.TimedOut = true;
      break;
    }
  }
  forgetChild(Pid);
  if (Pipe[0] >= 0)
    close(Pipe[0]);
  if (Exited) {
    if (WIFEXITED(Status))
      Result.ExitCode = WEXITSTATUS(Status);
    else if (WIFSIGNALED(Status))
      Result.Signal = WTERMSIG(Status);
  }
  Result.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Result;
}

std::string currentExecutable() {
  char Buffer[4096];
  ssize_t N = readlink("/proc/self/exe", Buffer, sizeof(Buffer) - 1);
  if (N <= 0)
    return "kopt-bench";
  return std::string(Buffer, N);
}

void killAllChildren() {
  for (auto &Slot : LiveChildren) {
    pid_t Pid = Slot.load();
    if (Pid > 0)
      kill(-Pid, SIGKILL);
  }
}

bool becomeChildSubreaper() {
  return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
}

namespace {
/// The parent pid and command name in /proc/PID/stat, or false.
bool readStat(const std::string &Pid, pid_t &Parent, std::string &Name) {
  std::ifstream In("/proc/" + Pid + "/stat");
  std::string Line;
  if (!std::getline(In, Line))
    return false;
  // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
  std::size_t Open = Line.find('('), Close = Line.rfind(')');
  if (Open == std::string::npos || Close == std::string::npos)
    return false;
  Name = Line.substr(Open + 1, Close - Open - 1);
  std::istringstream Rest(Line.substr(Close + 1));
  std::string State;
  Rest >> State >> Parent;
  return bool(Rest);
}

std::string commandLine(const std::string &Pid) {
  std::ifstream In("/proc/" + Pid + "/cmdline");
  std::string Text((std::istreambuf_iterator<char>(In)),
                   std::istreambuf_iterator<char>());
  for (char &C : Text)
    if (C == '\0')
      C = ' ';
  if (Text.size() > 200)
    Text = Text.substr(0, 200) + "...";
  return Text;
}
} // namespace

std::vector<std::string> collectOrphans() {
  std::lock_guard<std::mutex> Lock(SpawnMutex);
  std::vector<std::string> Found;
  pid_t Self = getpid();
  // Orphans may fork while we look: a few rounds, until none is left.
  for (int Round = 0; Round < 50; ++Round) {
    std::vector<std::pair<pid_t, std::string>> Now;
    std::error_code EC;
    for (const auto &Entry : std::filesystem::directory_iterator("/proc", EC)) {
      std::string Name = Entry.path().filename().string();
      if (Name.empty() ||
          Name.find_first_not_of("0123456789") != std::string::npos)
        continue;
      pid_t Parent = 0;
      std::string Comm;
      pid_t Pid = static_cast<pid_t>(std::stol(Name));
      if (!readStat(Name, Parent, Comm) || Parent != Self)
        continue;
      bool Known = false;
      for (auto &Slot : LiveChildren)
        Known = Known || Slot.load() == Pid;
      if (Known)
        continue;
      // Threads of this process are not listed in /proc, only processes.
      std::string Cmd = commandLine(Name);
      Now.push_back({Pid, "pid " + Name + " (" + Comm + ")" +
                              (Cmd.empty() ? "" : ": " + Cmd)});
    }
    if (Now.empty())
      break;
    for (const auto &[Pid, Evidence] : Now) {
      kill(Pid, SIGKILL);
      waitpid(Pid, nullptr, 0);
      Found.push_back(Evidence);
    }
  }
  return Found;
}

bool isExecutableFile(const std::string &Path) {
  std::error_code EC;
  return !Path.empty() && access(Path.c_str(), X_OK) == 0 &&
         !std::filesystem::is_directory(Path, EC);
}

std::string findOnPath(const std::string &Name) {
  const char *Path = std::getenv("PATH");
  if (!Path)
    return "";
  std::stringstream In(Path);
  std::string Dir;
  while (std::getline(In, Dir, ':')) {
    std::string Candidate = (std::filesystem::path(Dir) / Name).string();
    if (!Dir.empty() && isExecutableFile(Candidate))
      return Candidate;
  }
  return "";
}

} // namespace kopt::eval
