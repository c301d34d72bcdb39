//===- Confinement.h - What a process may do to the machine -----*- C++ -*-===//
//
// The capture child runs a candidate's host code (Capture.h). Before it
// loads the candidate it confines itself, for the rest of its life:
// - no_new_privs (needed by the two below, and no setuid escalation);
// - Landlock, where the kernel has it: files may be written, created,
//   removed or renamed only under the given directories (so the compile
//   cache, the reference cache, the problem, kopt-bench and the toolkit
//   cannot be changed for the judge that runs next);
// - seccomp: a new process (fork, vfork, clone without CLONE_THREAD),
//   execve, ptrace and process_vm_readv/writev kill the process (SIGSYS);
//   clone3 answers ENOSYS, so the C library makes threads with clone;
// - when started as root, the uid `nobody` once the GPU is open (dropRoot).
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_EVAL_CONFINEMENT_H
#define KOPT_EVAL_CONFINEMENT_H

#include <string>
#include <vector>

namespace kopt::eval {

struct ConfinementResult {
  std::vector<std::string> Applied; // "no-new-privs", "landlock", "seccomp"
  std::vector<std::string> Missing; // what could not be applied, and why
};

/// Confines the calling process; \p WritableDirs stay writable (with /dev
/// and /proc, which CUDA's initialization writes to). Call it before CUDA
/// starts its threads, so that they inherit it.
ConfinementResult confineProcess(const std::vector<std::string> &WritableDirs);

/// When running as root: gives up root for \p Uid (its groups too) for
/// good, so the process can change no file, and reach no process, that
/// root owns; to be called once the GPU's device files are open. Returns
/// "uid N" when it dropped, "" when not root, or why it could not (text
/// starting "cannot").
std::string dropRoot(unsigned Uid);

/// The uid the capture child takes when started as root.
constexpr unsigned UnprivilegedUid = 65534; // nobody

} // namespace kopt::eval

#endif // KOPT_EVAL_CONFINEMENT_H
