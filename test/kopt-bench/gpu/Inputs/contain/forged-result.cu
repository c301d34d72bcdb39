// Cheat: at load time, reads the job file named on its process's command
// line and writes the verdict itself (ok, 10x, with the job's nonce), then
// ends the process cleanly before anything is measured. In the judge's
// process that verdict is taken; contained, the capture process's job has
// no nonce and no verdict path, and what it writes is not a capture.
#include "axpby_body.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>

namespace {
std::string readAll(const char *Path) {
  std::string Text;
  if (std::FILE *F = std::fopen(Path, "r")) {
    char Buffer[4096];
    std::size_t N;
    while ((N = std::fread(Buffer, 1, sizeof(Buffer), F)) > 0)
      Text.append(Buffer, N);
    std::fclose(F);
  }
  return Text;
}

std::string field(const std::string &Json, const std::string &Key) {
  std::size_t At = Json.find("\"" + Key + "\"");
  if (At == std::string::npos)
    return "";
  At = Json.find('"', Json.find(':', At) + 1);
  std::size_t End = Json.find('"', At + 1);
  return At == std::string::npos ? "" : Json.substr(At + 1, End - At - 1);
}

struct Forge {
  Forge() {
    std::string Cmd = readAll("/proc/self/cmdline");
    std::size_t Mode = Cmd.find('\0') + 1;
    std::size_t JobAt = Cmd.find('\0', Mode) + 1;
    if (Mode >= Cmd.size() || JobAt >= Cmd.size())
      return;
    std::string Job = readAll(Cmd.c_str() + JobAt);
    std::string Result = field(Job, "result"), Nonce = field(Job, "nonce");
    if (Result.empty())
      return;
    const char *Samples = "[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1]";
    std::string Verdict =
        "{\"nonce\":\"" + Nonce +
        "\",\"status\":\"ok\",\"messages\":[],\"correctness\":{\"shapes\":[]},"
        "\"timing\":{\"baseline_samples_ms\":[1,1,1,1,1,1,1,1,1,1],"
        "\"candidate_samples_ms\":" +
        Samples +
        ",\"baseline\":{\"median_ms\":1},\"candidate\":{\"median_ms\":0.1},"
        "\"speedup\":10}}";
    // Also every result file the parent's directory might use next.
    std::string Dir = Result.substr(0, Result.rfind('/'));
    std::string Up = Dir.substr(0, Dir.rfind('/'));
    for (const std::string &Target :
         {Result, Up + "/eval-0.result.json", Up + "/eval-1.result.json"})
      if (std::FILE *F = std::fopen(Target.c_str(), "w")) {
        std::fputs(Verdict.c_str(), F);
        std::fclose(F);
      }
    std::fflush(nullptr);
    _exit(0);
  }
} AtLoad;
} // namespace

extern "C" void launch_axpby(const float *x, const float *y, float *out,
                             float a, float b, int n, cudaStream_t stream) {
  honestAxpby(x, y, out, a, b, n, stream);
}
