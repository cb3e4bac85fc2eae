// Simulation state: what moves. Structure of arrays in backend memory.
#pragma once

#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb {

struct SimState {
  DeviceBuffer<Vec3f> x;         ///< (nverts) m, positions
  DeviceBuffer<Vec3f> v;         ///< (nverts) m/s, velocities
  DeviceBuffer<Vec3f> x_prev;    ///< (nverts) m, positions at the start of the last frame
  DeviceBuffer<float> inv_mass;  ///< (nverts) 1/kg; 0 = pinned (solvers never move these)

  size_t size() const { return x.size(); }
};

/// Host copy of a state (tests, checkpoints, dumps).
struct HostState {
  std::vector<Vec3f> x, v, x_prev;
  std::vector<float> inv_mass;
};

HostState download(const SimState& s);
void upload(const Context& ctx, const HostState& h, SimState& s);

}  // namespace cb
