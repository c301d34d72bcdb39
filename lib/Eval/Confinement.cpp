//===- Confinement.cpp - What a process may do to the machine -------------===//
#include "kopt/Eval/Confinement.h"

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if __has_include(<linux/landlock.h>)
#include <linux/landlock.h>
#define KOPT_HAS_LANDLOCK_HEADER 1
#endif

namespace kopt::eval {

namespace {
#if defined(__x86_64__)
constexpr unsigned AuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr unsigned AuditArch = AUDIT_ARCH_AARCH64;
#endif

#ifdef KOPT_HAS_LANDLOCK_HEADER
std::string applyLandlock(const std::vector<std::string> &Writable) {
  long Abi = syscall(__NR_landlock_create_ruleset, nullptr, 0,
                     LANDLOCK_CREATE_RULESET_VERSION);
  if (Abi < 1)
    return std::string("landlock: not available in this kernel (") +
           std::strerror(errno) + ")";
  __u64 Handled =
      LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
      LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
      LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
      LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
#ifdef LANDLOCK_ACCESS_FS_REFER
  if (Abi >= 2)
    Handled |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (Abi >= 3)
    Handled |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
  landlock_ruleset_attr Attr{};
  Attr.handled_access_fs = Handled;
  int Ruleset = static_cast<int>(
      syscall(__NR_landlock_create_ruleset, &Attr, sizeof(Attr), 0));
  if (Ruleset < 0)
    return std::string("landlock: cannot create a ruleset (") +
           std::strerror(errno) + ")";
  // CUDA's initialization writes under /dev (device nodes, /dev/shm) and
  // /proc (its threads' names, at least): without /proc it fails with
  // cudaErrorOperatingSystem. /proc/PID/mem of another process also needs
  // ptrace access, which the parent refuses (not dumpable) and the dropped
  // uid lacks (dropRoot).
  std::vector<std::string> Dirs = Writable;
  Dirs.push_back("/dev");
  Dirs.push_back("/proc");
  for (const std::string &Dir : Dirs) {
    int Fd = open(Dir.c_str(), O_PATH | O_CLOEXEC);
    if (Fd < 0)
      continue;
    landlock_path_beneath_attr Rule{};
    Rule.allowed_access = Handled;
    Rule.parent_fd = Fd;
    syscall(__NR_landlock_add_rule, Ruleset, LANDLOCK_RULE_PATH_BENEATH, &Rule,
            0);
    close(Fd);
  }
  long Done = syscall(__NR_landlock_restrict_self, Ruleset, 0);
  int Saved = errno;
  close(Ruleset);
  if (Done != 0)
    return std::string("landlock: cannot restrict this process (") +
           std::strerror(Saved) + ")";
  return "";
}
#endif

std::string applySeccomp() {
#if defined(__x86_64__) || defined(__aarch64__)
  const unsigned Kill = SECCOMP_RET_KILL_PROCESS;
  const unsigned Allow = SECCOMP_RET_ALLOW;
  const unsigned NoSys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
  auto Load = [](unsigned Offset) {
    return sock_filter BPF_STMT(BPF_LD | BPF_W | BPF_ABS, Offset);
  };
  auto Is = [](unsigned Nr, unsigned char TrueSkip, unsigned char FalseSkip) {
    return sock_filter BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, Nr, TrueSkip,
                                FalseSkip);
  };
  auto Ret = [](unsigned Action) {
    return sock_filter BPF_STMT(BPF_RET | BPF_K, Action);
  };
  std::vector<sock_filter> F;
  F.push_back(Load(offsetof(seccomp_data, arch)));
  F.push_back(Is(AuditArch, 1, 0));
  F.push_back(Ret(Kill));
  F.push_back(Load(offsetof(seccomp_data, nr)));
#if defined(__x86_64__)
  // x32 system calls carry bit 30 in the number and the same audit arch:
  // none is needed here, and each would slip past the numbers below.
  F.push_back(
      sock_filter BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  F.push_back(Ret(Kill));
#endif
  // A new process, a new program, or another process's memory: killed.
  for (unsigned Nr : {
#ifdef __NR_fork
           unsigned(__NR_fork),
#endif
#ifdef __NR_vfork
           unsigned(__NR_vfork),
#endif
           unsigned(__NR_execve), unsigned(__NR_execveat),
           unsigned(__NR_ptrace), unsigned(__NR_process_vm_readv),
           unsigned(__NR_process_vm_writev)}) {
    F.push_back(Is(Nr, 0, 1));
    F.push_back(Ret(Kill));
  }
  // clone3 hides its flags in memory a filter cannot read: ENOSYS, and the
  // C library falls back to clone.
  F.push_back(Is(__NR_clone3, 0, 1));
  F.push_back(Ret(NoSys));
  // clone: threads only (the flags are the first argument on both arches).
  F.push_back(Is(__NR_clone, 0, 3));
  F.push_back(Load(offsetof(seccomp_data, args[0])));
  F.push_back(
      sock_filter BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0));
  F.push_back(Ret(Kill));
  F.push_back(Ret(Allow));
  sock_fprog Program{static_cast<unsigned short>(F.size()), F.data()};
  // TSYNC: every thread of the process, not just this one.
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
              &Program) != 0)
    return std::string("seccomp: cannot install the filter (") +
           std::strerror(errno) + ")";
  return "";
#else
  return "seccomp: no filter for this architecture";
#endif
}
} // namespace

std::string dropRoot(unsigned Uid) {
  if (geteuid() != 0)
    return "";
  if (setgroups(0, nullptr) != 0 || setresgid(Uid, Uid, Uid) != 0 ||
      setresuid(Uid, Uid, Uid) != 0)
    return std::string("cannot drop root (") + std::strerror(errno) + ")";
  return "uid " + std::to_string(Uid);
}

ConfinementResult confineProcess(const std::vector<std::string> &WritableDirs) {
  ConfinementResult R;
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    R.Missing.push_back(std::string("no-new-privs: ") + std::strerror(errno));
    return R;
  }
  R.Applied.push_back("no-new-privs");
#ifdef KOPT_HAS_LANDLOCK_HEADER
  std::string Why = applyLandlock(WritableDirs);
#else
  (void)WritableDirs;
  std::string Why = "landlock: built without <linux/landlock.h>";
#endif
  if (Why.empty())
    R.Applied.push_back("landlock");
  else
    R.Missing.push_back(Why);
  Why = applySeccomp();
  if (Why.empty())
    R.Applied.push_back("seccomp");
  else
    R.Missing.push_back(Why);
  return R;
}

} // namespace kopt::eval
