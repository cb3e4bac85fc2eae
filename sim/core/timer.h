// Stage timers: wall time per named stage of a frame. On the CUDA backend each
// stage is bracketed by CUDA events, so the times are GPU times, read once per
// frame (one synchronisation) in collect(). Stages nest: a stage begun while
// another is open pauses it until it ends, so each stage's time is its own
// (exclusive) and the stages of a frame add up to the frame.
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

  /// Starts stage `name`; the open stage (if any) pauses until this one ends.
  void begin(const std::string& name);
  /// Ends the innermost open stage and resumes the one it paused.
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
  std::vector<std::string> open_;  ///< open stages, innermost last
  void* take_event();
  void start_mark(const std::string& name);
  void stop_mark();
};

/// RAII stage: `{ ScopedStage s(timer, "collide"); ... }`; a null timer times nothing.
class ScopedStage {
 public:
  ScopedStage(StageTimer& t, const char* name) : ScopedStage(&t, name) {}
  ScopedStage(StageTimer* t, const char* name) : t_(t) {
    if (t_) t_->begin(name);
  }
  ~ScopedStage() {
    if (t_) t_->end();
  }
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  StageTimer* t_;
};

}  // namespace cb
