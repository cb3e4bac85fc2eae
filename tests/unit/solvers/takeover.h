// A solver taking over a moving cloth from another (World::set_solver): the
// shipped hanging sheet swings under one solver, then another goes on. Shared by
// the pbd and I-Cloth takeover tests.
#pragma once

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/scene/scene.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::test {

struct Takeover {
  double swing_energy = 0;  ///< J, the largest kinetic energy under the first solver
  double energy_after = 0;  ///< J, the largest over the frames after the switch
  float rise = 0;           ///< m, how far the cloth got above its pins after the switch
  double settle_passes = -1;  ///< the first frame's `settle_stat` (-1: not reported)
  double intersecting = 0;  ///< the most intersecting pairs after a frame of the second solver
};

using Params = std::vector<std::pair<std::string, std::string>>;

/// `from` for `before` frames, then `to` for `after` frames with `params` set on
/// it (its settle's statistic: settle_stat); the scene: the shipped hanging sheet,
/// or another scene file.
inline Takeover run_takeover(const Context& ctx, const std::string& from, const std::string& to, int before,
                             int after, const std::string& settle_stat, const Params& params = {},
                             const std::string& scene = source_path("scenes/hanging_sheet.json")) {
  World w(ctx, load_scene(scene));
  Takeover r;
  EXPECT_EQ(w.set_solver(from), "");
  for (int f = 0; f < before; ++f) {
    w.step();
    r.swing_energy = std::max(r.swing_energy, w.stats().get("kinetic energy"));
  }
  float pins = -1e30f;
  const std::vector<Vec3f> x = w.positions();
  for (uint32_t v : w.pinned_vertices()) pins = std::max(pins, x[v].y);
  EXPECT_EQ(w.set_solver(to), "");
  for (const auto& p : params) EXPECT_EQ(w.set_solver_param(p.first, p.second), "");
  for (int f = 0; f < after; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan) << to << " frame " << f;
    if (f == 0) r.settle_passes = w.stats().get(settle_stat, -1);
    r.energy_after = std::max(r.energy_after, w.stats().get("kinetic energy"));
    r.intersecting = std::max(r.intersecting, w.stats().get("intersecting pairs"));
    for (const Vec3f& p : w.positions()) r.rise = std::max(r.rise, p.y - pins);
  }
  return r;
}

}  // namespace cb::test
