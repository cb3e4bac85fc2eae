// Stage timers: wall time per named stage of a frame. On the CUDA backend each
// stage is bracketed by CUDA events, so the times are GPU times, read once per
// frame (one synchronisation) in collect().
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/backend.h"

namespace cb {

/// Milliseconds per stage name, in the order stages were first seen this frame.
using StageTimes = std::vector<std::pair<std::string, double>>;

class StageTimer {
 public:
  explicit StageTimer(const Context& ctx = {}) : ctx_(ctx) {}
  ~StageTimer();
  StageTimer(const StageTimer&) = delete;
  StageTimer& operator=(const StageTimer&) = delete;

  /// Starts stage `name`; the previous stage (if open) ends here.
  void begin(const std::string& name);
  void end();
  /// Ends the open stage, sums repeated stages and clears for the next frame.
  StageTimes collect();

 private:
  struct Mark {
    std::string name;
    std::chrono::steady_clock::time_point t0, t1;
    void* ev0 = nullptr;  ///< cudaEvent_t on the CUDA backend
    void* ev1 = nullptr;
  };
  Context ctx_;
  std::vector<Mark> marks_;
  std::vector<void*> event_pool_;
  bool open_ = false;
  void* take_event();
};

/// RAII stage: `{ ScopedStage s(timer, "collide"); ... }`.
class ScopedStage {
 public:
  ScopedStage(StageTimer& t, const char* name) : t_(t) { t_.begin(name); }
  ~ScopedStage() { t_.end(); }

 private:
  StageTimer& t_;
};

}  // namespace cb
