//===- CompileFlags.cpp - Compilation databases and nvcc flags ------------===//

#include "kopt/Frontend/CompileFlags.h"

#include "clang/Tooling/CompilationDatabase.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace kopt {

namespace {

/// nvcc spells most options in a long and a short form, with the value either
/// attached (`-I/x`, `--include-path=/x`) or in the next argument.
struct OptionSpelling {
  StringRef Short;
  StringRef Long;
};

/// Options whose value is kept, mapped to the Clang flag that takes it.
struct KeptOption {
  OptionSpelling Spelling;
  StringRef ClangFlag;
};

const KeptOption KeptOptions[] = {
    {{"-I", "--include-path"}, "-I"},
    {{"-D", "--define-macro"}, "-D"},
    {{"-U", "--undefine-macro"}, "-U"},
    {{"-isystem", "--system-include"}, "-isystem"},
    {{"-include", "--pre-include"}, "-include"},
};

/// Options that take a value and mean nothing to a parse.
const OptionSpelling DroppedWithValue[] = {
    {"-o", "--output-file"},
    {"-ccbin", "--compiler-bindir"},
    {"-gencode", "--generate-code"},
    {"-code", "--gpu-code"},
    {"-Xptxas", "--ptxas-options"},
    {"-Xlinker", "--linker-options"},
    {"-Xnvlink", "--nvlink-options"},
    {"-maxrregcount", "--maxrregcount"},
    {"-MF", ""},
    {"-MT", ""},
    {"-MQ", ""},
    {"-x", "--x"},
    {"-default-stream", "--default-stream"},
    {"-t", "--threads"},
    {"-l", "--library"},
    {"-L", "--library-path"},
};

/// Flags without a value that a parse ignores.
bool isDroppedFlag(StringRef A) {
  return StringSwitch<bool>(A)
      .Cases({"-c", "--compile", "-rdc=true", "-rdc=false", "-dc", "-dw"}, true)
      .Cases({"--expt-relaxed-constexpr", "--expt-extended-lambda",
              "-expt-relaxed-constexpr", "-expt-extended-lambda",
              "--extended-lambda", "-extended-lambda"},
             true)
      .Cases({"-lineinfo", "--generate-line-info", "-G", "--device-debug", "-g",
              "--use_fast_math", "-use_fast_math", "-MD", "-MMD", "-fPIC",
              "-shared", "--shared", "-w"},
             true)
      .Default(
          A.starts_with("-rdc") || A.starts_with("--relocatable-device-code") ||
          A.starts_with("-O") || A.starts_with("--optimize") ||
          A.starts_with("--resource-usage") || A.starts_with("-Werror") ||
          A.starts_with("--ftz") || A.starts_with("--prec-") ||
          A.starts_with("--fmad") || A.starts_with("-ftz") ||
          A.starts_with("-prec-") || A.starts_with("-fmad") ||
          A.starts_with("--diag-suppress") || A.starts_with("-diag-suppress"));
}

/// If A is Spelling (value in the next argument) returns 1; if it carries
/// the value (`-Ifoo`, `-I=foo`, `--include-path=foo`) returns 2 and sets
/// Value; otherwise 0.
int matchOption(StringRef A, const OptionSpelling &S, StringRef &Value) {
  for (StringRef Name : {S.Short, S.Long}) {
    if (Name.empty() || !A.starts_with(Name))
      continue;
    StringRef Rest = A.drop_front(Name.size());
    if (Rest.empty())
      return 1;
    if (Rest.consume_front("=")) {
      Value = Rest;
      return 2;
    }
    // Only single-dash short options glue their value (-Ifoo, -DX=1).
    if (Name == S.Short && Name.size() == 2) {
      Value = Rest;
      return 2;
    }
  }
  return 0;
}

/// nvcc's -arch accepts sm_XX, compute_XX and "native"/"all"; only sm_XX and
/// compute_XX name one arch a parse can use.
std::optional<std::string> archFromValue(StringRef V) {
  V = V.split(',').first;
  if (V.consume_front("sm_") || V.consume_front("compute_"))
    return ("sm_" + V).str();
  return std::nullopt;
}

/// -gencode=arch=compute_90,code=sm_90 -> sm_90.
std::optional<std::string> archFromGencode(StringRef V) {
  SmallVector<StringRef, 4> Parts;
  V.split(Parts, ',');
  for (StringRef P : Parts)
    if (P.consume_front("arch="))
      return archFromValue(P.trim("[]\""));
  return std::nullopt;
}

/// -Xcompiler passes host-compiler flags; keep the ones a parse needs.
void translateHostCompilerFlags(StringRef List, TranslatedFlags &Out) {
  SmallVector<StringRef, 8> Flags;
  List.split(Flags, ',', -1, /*KeepEmpty=*/false);
  for (StringRef F : Flags) {
    if (F.starts_with("-I") || F.starts_with("-D") || F.starts_with("-U") ||
        F.starts_with("-std="))
      Out.ClangArgs.push_back(F.str());
    else
      Out.Dropped.push_back(("-Xcompiler=" + F).str());
  }
}

bool isNvcc(StringRef Compiler) {
  return sys::path::filename(Compiler).starts_with("nvcc");
}

} // namespace

TranslatedFlags translateCompileCommand(const std::vector<std::string> &Argv,
                                        StringRef SourceFile,
                                        StringRef Directory) {
  TranslatedFlags Out;
  if (Argv.empty())
    return Out;
  bool Nvcc = isNvcc(Argv[0]);
  StringRef SourceName = sys::path::filename(SourceFile);
  for (size_t I = 1; I < Argv.size(); ++I) {
    StringRef A = Argv[I];
    auto NextValue = [&]() -> StringRef {
      return I + 1 < Argv.size() ? StringRef(Argv[++I]) : StringRef();
    };
    // The value of an option we drop. Clang's interpolation of commands for
    // files missing from the database drops values of options it does not
    // know (`-ccbin g++` becomes `-ccbin`): never swallow the next flag.
    auto DroppedValue = [&]() -> StringRef {
      if (I + 1 < Argv.size() && !StringRef(Argv[I + 1]).starts_with("-"))
        return StringRef(Argv[++I]);
      return StringRef();
    };
    if (A == "--")
      continue;
    // The source file itself is appended by the frontend.
    if (!A.starts_with("-") && sys::path::filename(A) == SourceName)
      continue;

    StringRef Value;
    bool Handled = false;
    for (const KeptOption &K : KeptOptions) {
      if (int M = matchOption(A, K.Spelling, Value)) {
        if (M == 1)
          Value = NextValue();
        Out.ClangArgs.push_back(K.ClangFlag.str());
        std::string V = Value.str();
        bool IsPath = K.ClangFlag != "-D" && K.ClangFlag != "-U";
        if (IsPath && !Directory.empty() && !sys::path::is_absolute(V)) {
          SmallString<256> Abs(Directory);
          sys::path::append(Abs, V);
          V = std::string(Abs);
        }
        Out.ClangArgs.push_back(V);
        Handled = true;
        break;
      }
    }
    if (Handled)
      continue;

    if (A.starts_with("-std=") || A.starts_with("--std=")) {
      Out.ClangArgs.push_back(("-std=" + A.split('=').second).str());
      continue;
    }
    if (A == "-std" || A == "--std") {
      Out.ClangArgs.push_back(("-std=" + NextValue()).str());
      continue;
    }
    // GPU arch: nvcc -arch/--gpu-architecture, clang
    // --cuda-gpu-arch/--offload-arch.
    if (int M = matchOption(A, {"-arch", "--gpu-architecture"}, Value)) {
      if (M == 1)
        Value = NextValue();
      if (auto Arch = archFromValue(Value))
        Out.GpuArch = Arch;
      continue;
    }
    if (A.consume_front("--cuda-gpu-arch=") ||
        A.consume_front("--offload-arch=")) {
      if (auto Arch = archFromValue(A))
        Out.GpuArch = Arch;
      continue;
    }
    if (int M = matchOption(A, {"-gencode", "--generate-code"}, Value)) {
      if (M == 1)
        Value = DroppedValue();
      if (!Out.GpuArch)
        Out.GpuArch = archFromGencode(Value);
      Out.Dropped.push_back(("-gencode=" + Value).str());
      continue;
    }
    if (int M = matchOption(A, {"-Xcompiler", "--compiler-options"}, Value)) {
      if (M == 1)
        Value = NextValue();
      translateHostCompilerFlags(Value, Out);
      continue;
    }
    bool IsDroppedOption = false;
    for (const OptionSpelling &S : DroppedWithValue) {
      if (int M = matchOption(A, S, Value)) {
        std::string Flag = A.str();
        // -Xptxas and friends pass flags on: their value starts with '-'.
        if (M == 1)
          Flag +=
              " " +
              (S.Short.starts_with("-X") ? NextValue() : DroppedValue()).str();
        Out.Dropped.push_back(Flag);
        IsDroppedOption = true;
        break;
      }
    }
    if (IsDroppedOption)
      continue;
    if (isDroppedFlag(A) || A.starts_with("--cuda-")) {
      Out.Dropped.push_back(A.str());
      continue;
    }
    // Anything else: nvcc-specific flags start with "--" or are unknown to
    // Clang, so only a clang/gcc command's remaining flags are kept.
    bool ClangSpelling =
        A.starts_with("-f") || A.starts_with("-W") || A.starts_with("-m");
    if (Nvcc && (A.starts_with("--") || !ClangSpelling)) {
      Out.Dropped.push_back(A.str());
      continue;
    }
    Out.ClangArgs.push_back(A.str());
  }
  return Out;
}

namespace {

Expected<std::unique_ptr<clang::tooling::CompilationDatabase>>
loadDatabase(StringRef BuildDir) {
  std::string Message;
  std::unique_ptr<clang::tooling::CompilationDatabase> DB =
      clang::tooling::CompilationDatabase::loadFromDirectory(BuildDir, Message);
  if (!DB)
    return createStringError(inconvertibleErrorCode(),
                             "cannot load compilation database from '%s': %s",
                             BuildDir.str().c_str(), Message.c_str());
  return std::move(DB);
}

} // namespace

Expected<std::vector<std::string>> compileDatabaseFiles(StringRef BuildDir) {
  auto DB = loadDatabase(BuildDir);
  if (!DB)
    return DB.takeError();
  return (*DB)->getAllFiles();
}

Expected<TranslatedFlags> loadCompileFlags(StringRef BuildDir,
                                           StringRef SourceFile) {
  auto Loaded = loadDatabase(BuildDir);
  if (!Loaded)
    return Loaded.takeError();
  std::unique_ptr<clang::tooling::CompilationDatabase> DB = std::move(*Loaded);
  std::vector<clang::tooling::CompileCommand> Commands =
      DB->getCompileCommands(SourceFile);
  if (Commands.empty())
    return createStringError(inconvertibleErrorCode(),
                             "'%s' has no entry in %s/compile_commands.json",
                             SourceFile.str().c_str(), BuildDir.str().c_str());
  return translateCompileCommand(Commands.front().CommandLine, SourceFile,
                                 Commands.front().Directory);
}

} // namespace kopt
