//===- AheadWorker.h - Making ahead, in a thread of its own -----*- C++ -*-===//
//
// The children a search may ask for next, made into the Maker's memo by a
// thread of their own while the device evaluates (docs/search.md, "Making
// ahead"). The search's thread only queues jobs and says when the worker
// may run: never while the search itself makes or compiles, so the worker
// takes only time the CPU would otherwise spend waiting for the device;
// its kopt-opt processes run at the lowest priority. A chunk under way when
// it is paused finishes; nothing it does is stored.
//
//===----------------------------------------------------------------------===//
#ifndef KOPT_SEARCH_AHEADWORKER_H
#define KOPT_SEARCH_AHEADWORKER_H

#include "kopt/Search/Maker.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace kopt::search {

class AheadWorker {
public:
  explicit AheadWorker(Maker &Make);
  ~AheadWorker(); // drops the queue, waits for the chunk under way

  /// Queues \p Jobs (after those queued before); the first call starts the
  /// worker's thread.
  void add(std::vector<MakeJob> Jobs);
  /// Lets the worker run (true) or stops it after its chunk (false).
  void run(bool Allowed);
  long made() const { return Made; }

private:
  void loop();

  Maker &Make;
  std::mutex Mutex;
  std::condition_variable Wake;
  std::deque<MakeJob> Queue;
  bool Allowed = false, Done = false;
  std::atomic<long> Made{0};
  std::thread Thread;
};

} // namespace kopt::search

#endif // KOPT_SEARCH_AHEADWORKER_H
