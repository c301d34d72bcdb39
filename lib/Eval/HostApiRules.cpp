//===- HostApiRules.cpp - Host calls that reach past the candidate --------===//
#include "HostApiRules.h"

#include <cctype>
#include <set>
#include <string>

namespace kopt::eval {

using spec::Token;

namespace {

bool startsWith(const std::string &Text, const std::string &Prefix) {
  return Text.rfind(Prefix, 0) == 0;
}

/// Calls that change what the device does for everyone after the candidate
/// returns (the reference timed next, its flush), or move work where the
/// judge does not look.
const std::set<std::string> &interferingCalls() {
  static const std::set<std::string> Names = {
      "cudaDeviceSetLimit",
      "cudaThreadSetLimit",
      "cudaCtxResetPersistingL2Cache",
      "cudaStreamSetAttribute",
      "cudaGraphKernelNodeSetAttribute",
      "cudaDeviceSetCacheConfig",
      "cudaThreadSetCacheConfig",
      "cudaDeviceSetSharedMemConfig",
      "cudaSetDeviceFlags",
      "cudaDeviceReset",
      "cudaThreadExit",
      "cudaSetDevice",
      "cudaSetValidDevices",
      "cudaInitDevice",
      "cudaDeviceSetMemPool",
      "cudaMemPoolSetAttribute",
      "cudaDeviceSetGraphMemAttribute",
      "cuCtxSetLimit",
      "cuCtxResetPersistingL2Cache",
      "cuCtxSetCacheConfig",
      "cuCtxSetSharedMemConfig",
      "cuCtxSetFlags",
      "cuCtxCreate",
      "cuCtxCreate_v2",
      "cuCtxCreate_v3",
      "cuCtxCreate_v4",
      "cuCtxPushCurrent",
      "cuCtxSetCurrent",
      "cuGreenCtxCreate",
      "cuStreamSetAttribute",
      "cuGraphKernelNodeSetAttribute",
      "cuDevicePrimaryCtxSetFlags",
      "cuDevicePrimaryCtxReset",
      "cuDeviceSetMemPool",
      "cuMemPoolSetAttribute",
  };
  return Names;
}

/// Enumerators whose only use is to make lines persist in L2 or set a
/// device-wide limit: mentioned at all (a launch attribute list, a limit
/// passed through a variable), the candidate is rejected.
const std::set<std::string> &interferingEnumerators() {
  static const std::set<std::string> Names = {
      "cudaLimitPersistingL2CacheSize",
      "cudaStreamAttributeAccessPolicyWindow",
      "cudaKernelNodeAttributeAccessPolicyWindow",
      "cudaLaunchAttributeAccessPolicyWindow",
      "cudaAccessPropertyPersisting",
      "CU_LIMIT_PERSISTING_L2_CACHE_SIZE",
      "CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW",
      "CU_KERNEL_NODE_ATTRIBUTE_ACCESS_POLICY_WINDOW",
      "CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW",
      "CU_ACCESS_PROPERTY_PERSISTING",
  };
  return Names;
}

/// Calls that leave the candidate's process or thread, signal or trace
/// another process, or make code pages writable.
const std::set<std::string> &processCalls() {
  static const std::set<std::string> Names = {
      "fork",     "vfork",          "clone",
      "clone3",   "posix_spawn",    "posix_spawnp",
      "system",   "popen",          "execl",
      "execlp",   "execle",         "execv",
      "execvp",   "execvpe",        "execve",
      "fexecve",  "daemon",         "setsid",
      "setpgid",  "setpgrp",        "kill",
      "killpg",   "tgkill",         "ptrace",
      "prctl",    "pthread_create", "thrd_create",
      "mprotect", "pkey_mprotect",  "process_vm_writev",
      "syscall",  "_Fork",          "__fork",
      "__clone",  "__libc_fork"};
  return Names;
}

/// Code loaded or compiled while the candidate runs, which the static rules
/// and the SASS rules never see.
bool loadsCode(const std::string &Word) {
  static const std::set<std::string> Names = {
      "cudaLibraryLoadData",
      "cudaLibraryLoadFromFile",
      "cuLibraryLoadData",
      "cuLibraryLoadFromFile",
      "cuModuleLoad",
      "cuModuleLoadData",
      "cuModuleLoadDataEx",
      "cuModuleLoadFatBinary",
      "cudaGetDriverEntryPoint",
      "cudaGetDriverEntryPointByVersion",
      "cuGetProcAddress",
      "cuGetProcAddress_v2"};
  return Names.count(Word) || startsWith(Word, "nvrtc") ||
         startsWith(Word, "nvJitLink");
}

/// A driver entry-point lookup whose first argument is a string literal
/// naming a pointer query.
bool looksUpPointerQuery(const std::vector<Token> &Tokens, std::size_t I) {
  return isDriverLookup(Tokens[I].Text) && I + 3 < Tokens.size() &&
         Tokens[I + 1].isPunct("(") &&
         Tokens[I + 2].TokKind == Token::Kind::String &&
         isPointerQuery(Tokens[I + 2].Text) && Tokens[I + 3].isPunct(",");
}

bool isStdThread(const std::vector<Token> &Tokens, std::size_t I) {
  const std::string &W = Tokens[I].Text;
  return (W == "thread" || W == "jthread" || W == "async") && I >= 2 &&
         Tokens[I - 1].isPunct("::") && Tokens[I - 2].isIdentifier() &&
         Tokens[I - 2].Text == "std";
}

/// __attribute__((constructor)): code that runs when the library is loaded,
/// before the judge calls anything.
bool isConstructorAttribute(const std::vector<Token> &Tokens, std::size_t I) {
  return Tokens[I].Text == "constructor" && I >= 3 &&
         Tokens[I - 1].isPunct("(") && Tokens[I - 2].isPunct("(") &&
         Tokens[I - 3].isIdentifier() && Tokens[I - 3].Text == "__attribute__";
}

} // namespace

bool isDriverLookup(const std::string &Name) {
  return Name == "cudaGetDriverEntryPoint" ||
         Name == "cudaGetDriverEntryPointByVersion" ||
         Name == "cuGetProcAddress" || Name == "cuGetProcAddress_v2";
}

bool isPointerQuery(const std::string &Name) {
  return Name == "cuMemGetAddressRange" || Name == "cuPointerGetAttribute" ||
         Name == "cuPointerGetAttributes";
}

std::optional<RuleViolation> hostCallViolation(const std::string &Name) {
  if (interferingCalls().count(Name))
    return RuleViolation{"baseline-interference",
                         "changes state that outlives the call or the "
                         "device the work runs on ('" +
                             Name + "')"};
  if (startsWith(Name, "nvml"))
    return RuleViolation{"baseline-interference",
                         "uses NVML ('" + Name +
                             "'): clocks and power are the judge's"};
  if (processCalls().count(Name))
    return RuleViolation{"process-control",
                         "acts outside its own thread ('" + Name + "')"};
  // std::thread, std::jthread and std::async start threads through it.
  if (startsWith(Name, "_ZNSt6thread15_M_start_thread"))
    return RuleViolation{"process-control", "starts a thread ('std::thread')"};
  if (Name == "dlopen" || Name == "dlmopen" || Name == "dlsym" ||
      Name == "dlvsym")
    return RuleViolation{"vendor-library",
                         "loads code at run time ('" + Name + "')"};
  if (loadsCode(Name) && !isDriverLookup(Name))
    return RuleViolation{"vendor-library",
                         "loads or compiles code at run time ('" + Name + "')"};
  static const std::set<std::string> Timers = {
      "clock",
      "clock_gettime",
      "gettimeofday",
      "timespec_get",
      "cudaEventElapsedTime",
      "cudaEventElapsedTime_v2",
      "cuEventElapsedTime",
      "cuEventElapsedTime_v2",
      "_ZNSt6chrono3_V212steady_clock3nowEv",
      "_ZNSt6chrono3_V212system_clock3nowEv"};
  if (Timers.count(Name))
    return RuleViolation{"timer-read",
                         "reads a clock on the host ('" + Name + "')"};
  return std::nullopt;
}

std::string libraryOfSymbol(const std::string &Name) {
  for (const char *Lib :
       {"cublasLt", "cublas", "cudnn", "cufft", "cusparse", "cusolver"})
    if (startsWith(Name, Lib)) {
      std::string L = Lib;
      return L == "cublasLt" ? "cublaslt" : L;
    }
  // The cuRAND host API is camel case (curandGenerate); the device API
  // (curand_init) is inlined device code.
  if (startsWith(Name, "curand") && Name.size() > 6 &&
      std::isupper(static_cast<unsigned char>(Name[6])))
    return "curand";
  return "";
}

std::optional<RuleViolation> checkHostApiToken(const std::vector<Token> &Tokens,
                                               std::size_t I) {
  const Token &T = Tokens[I];
  if (!T.isIdentifier())
    return std::nullopt;
  const std::string &W = T.Text;
  bool Called = I + 1 < Tokens.size() && Tokens[I + 1].isPunct("(");
  bool Member =
      I > 0 && (Tokens[I - 1].isPunct(".") || Tokens[I - 1].isPunct(">"));
  if (interferingEnumerators().count(W))
    return RuleViolation{
        "baseline-interference",
        "asks for L2 persistence or a device limit ('" + W + "')", T.Line};
  if (Member)
    return std::nullopt;
  if (isStdThread(Tokens, I)) {
    RuleViolation V{"process-control", "starts a thread ('std::" + W + "')",
                    T.Line};
    V.SecondOpinion = true;
    return V;
  }
  if (isConstructorAttribute(Tokens, I))
    return RuleViolation{"process-control",
                         "runs code when the library loads "
                         "(__attribute__((constructor)))",
                         T.Line};
  // A call, or the function's address taken (`auto f = &fork;`, `g(fork)`);
  // a declaration of something else by that name (`int kill;`, the name
  // after a type) is not. Either way a second opinion: the compiled
  // library's imports decide.
  bool Declared = I > 0 && Tokens[I - 1].isIdentifier();
  if (!Called && Declared)
    return std::nullopt;
  if (isDriverLookup(W) && looksUpPointerQuery(Tokens, I))
    return std::nullopt;
  std::optional<RuleViolation> V =
      isDriverLookup(W)
          ? RuleViolation{"vendor-library",
                          "loads or compiles code at run time ('" + W + "')"}
          : hostCallViolation(W);
  if (!V || W == "clock" || V->Rule == "timer-read")
    return std::nullopt; // host clocks: the object decides alone
  V->Line = T.Line;
  V->SecondOpinion = true;
  return V;
}

} // namespace kopt::eval
