//===- AheadWorker.cpp - Making ahead, in a thread of its own -------------===//
#include "AheadWorker.h"

namespace kopt::search {

AheadWorker::AheadWorker(Maker &Make) : Make(Make) {}

AheadWorker::~AheadWorker() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Done = true;
    Queue.clear();
  }
  Wake.notify_all();
  if (Thread.joinable())
    Thread.join();
}

void AheadWorker::add(std::vector<MakeJob> Jobs) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (MakeJob &J : Jobs)
      Queue.push_back(std::move(J));
  }
  // The thread starts with the first jobs: a search that never makes
  // ahead (no --look-ahead) runs none.
  if (!Thread.joinable())
    Thread = std::thread([this] { loop(); });
  Wake.notify_all();
}

void AheadWorker::run(bool Allow) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Allowed = Allow;
  }
  Wake.notify_all();
}

void AheadWorker::loop() {
  std::unique_lock<std::mutex> Lock(Mutex);
  while (true) {
    Wake.wait(Lock, [&] { return Done || (Allowed && !Queue.empty()); });
    if (Done)
      return;
    // One job a worker process: a chunk ends soon after a pause.
    std::vector<MakeJob> Chunk;
    while (!Queue.empty() && Chunk.size() < Make.workers()) {
      Chunk.push_back(std::move(Queue.front()));
      Queue.pop_front();
    }
    Lock.unlock();
    Made += static_cast<long>(Make.prepare(Chunk));
    Lock.lock();
  }
}

} // namespace kopt::search
