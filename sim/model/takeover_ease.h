// The takeover ease, shared by the solvers that take over a state another solver
// shaped (IClothSolver, PbdSolver; World::set_solver). That state holds the other
// model's strain: the Verlet fold handed to I-Cloth at frame 60 gained 7.9 J in
// one frame (RESULTS.md, twenty-fifth session). From the new solver's first step,
// no step may end with more kinetic energy than it started with plus what gravity
// can add over it (gravity_energy_bound); a step above that has its velocities
// scaled down to it (cap_kinetic_energy), its positions kept, so the strain is
// released through positions over a few steps. The ease ends after a frame whose
// steps needed no cap, or after the frames it was begun with.
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/kinetic_energy.h"

namespace cb {

class TakeoverEase {
 public:
  /// Eases the next `frames` frames at most (0 = off).
  void begin(int frames) {
    frames_left_ = frames;
    capped_in_frame_ = false;
  }
  bool active() const { return frames_left_ > 0; }

  /// Runs `step()`, one time step of h (s) that advances the velocities v ((n)
  /// m/s; mass: (n) kg, cloth_mass: their sum, kg; g: m/s^2), then caps the
  /// kinetic energy it ends with. True when it capped.
  template <class Step>
  bool run(const Context& ctx, const float* mass, double cloth_mass, Vec3f* v, int n, float h, const Vec3f& g,
           Step&& step) {
    const double e0 = kinetic_energy(ctx, mass, v, n, scratch_);
    step();
    const bool capped = cap_kinetic_energy(ctx, mass, v, n, gravity_energy_bound(e0, cloth_mass, h, g), scratch_);
    capped_in_frame_ = capped_in_frame_ || capped;
    return capped;
  }

  /// After a frame's steps: a frame without a cap ends the ease.
  void end_frame() {
    if (frames_left_ > 0) frames_left_ = capped_in_frame_ ? frames_left_ - 1 : 0;
    capped_in_frame_ = false;
  }

  size_t bytes() const { return scratch_.bytes(); }

 private:
  int frames_left_ = 0;
  bool capped_in_frame_ = false;
  DeviceBuffer<float> scratch_;  ///< kinetic_energy's
};

}  // namespace cb
