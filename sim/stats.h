// Per-frame statistics: stage times, named counters, strain and a NaN check.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/core/timer.h"

namespace cb {

struct FrameStats {
  int frame = 0;
  double sim_time = 0;         ///< s, simulated time at the end of the frame
  double step_ms = 0;          ///< wall time of World::step
  StageTimes stages;           ///< ms per stage (solver-defined names)
  /// Named counters the solver and detectors report ("contacts", "cg iterations", ...).
  std::vector<std::pair<std::string, double>> counters;
  float min_strain = 0, max_strain = 0;  ///< min/max of (length / rest length - 1) over edges
  bool has_nan = false;        ///< a position or velocity is NaN or inf
  size_t device_bytes = 0;     ///< bytes of backend memory held by the world and solver

  void set(const std::string& name, double v) {
    for (auto& c : counters)
      if (c.first == name) {
        c.second = v;
        return;
      }
    counters.emplace_back(name, v);
  }
  /// Value of counter `name`, or `fallback` when absent.
  double get(const std::string& name, double fallback = 0) const {
    for (auto& c : counters)
      if (c.first == name) return c.second;
    return fallback;
  }
};

}  // namespace cb
