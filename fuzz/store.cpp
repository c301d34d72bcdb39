//===- store.cpp - Fuzz target: kopt-search's store on damaged files ------===//
//
// Any bytes as a store file: it opens or is refused with a reason, and an
// opened one answers reads without crashing; the file is never made larger
// by a refused open.
//
//===----------------------------------------------------------------------===//
#include "kopt/Search/Store.h"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *Data,
                                      std::size_t Size) {
  // In memory where the system has it (/dev/shm): every input is written
  // to this file, and SQLite syncs it.
  static const std::string Path =
      std::string(access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") +
      "/kopt-fuzz-store-" + std::to_string(getpid()) + ".sqlite";
  {
    std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
    Out.write(reinterpret_cast<const char *>(Data),
              static_cast<std::streamsize>(Size));
  }
  std::string Error;
  std::unique_ptr<kopt::search::Store> S =
      kopt::search::Store::open(Path, /*Create=*/false, Error);
  if (!S) {
    if (Error.empty())
      std::abort();
  } else {
    for (const auto &P : S->problems())
      (void)S->candidates(P.Id);
  }
  S.reset();
  unlink(Path.c_str());
  unlink((Path + "-journal").c_str());
  unlink((Path + "-wal").c_str());
  unlink((Path + "-shm").c_str());
  return 0;
}
