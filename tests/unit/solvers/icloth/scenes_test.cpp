// The small I-Cloth scenes (scenes/icloth_*.json): the penetration counter of
// the collision core reports no intersecting triangle pair after any frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

constexpr float kNoStrainBound = std::numeric_limits<float>::infinity();

// Runs scenes/<file> for `frames` frames on every backend: no NaN, no
// intersecting pair, edge strain under `strain_bound` after each frame.
void run_scene(const std::string& file, int frames, float strain_bound = 0.5f) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/" + file)));
    ASSERT_EQ(w.solver_name(), "icloth");
    double impacts = 0;
    float worst_strain = 0;
    for (int f = 0; f < frames; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << file << " frame " << f;
      ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << file << " frame " << f;
      ASSERT_LT(w.stats().max_strain, strain_bound) << file << " frame " << f;
      impacts += w.stats().get("impacts");
      worst_strain = std::max(worst_strain, w.stats().max_strain);
    }
    ::testing::Test::RecordProperty("impacts", std::to_string(impacts));
    ::testing::Test::RecordProperty("max_strain", std::to_string(worst_strain));
  }
}

TEST(IClothScenes, SphereStaysPenetrationFree) { run_scene("icloth_sphere.json", 100); }
TEST(IClothScenes, TwistingStaysPenetrationFree) { run_scene("icloth_twisting.json", 100); }
// the sheets reach the funnel and each other at frames ~15-25, then rest stacked
// in it (the proximity repulsion keeps that contact cheap). The squeezed stack
// stretches edges by 0.33 (CPU, this file, 100 frames; 0.51 by frame 150), by
// 0.33-0.49 when the first sheet starts 0.3-2 mm to the side, and by 0.81 on the
// CUDA backend, whose rounding takes another trajectory (an open defect:
// RESULTS.md, "GPU (H100)" and "I-Cloth repulsion filter"). The bound of 1
// catches a blow-up, not that defect.
TEST(IClothScenes, FunnelStaysPenetrationFree) { run_scene("icloth_funnel.json", 100, 1.f); }
TEST(IClothScenes, ScarfStaysPenetrationFree) { run_scene("icloth_scarf.json", 100); }

// The skirt (skirt4K, 7,496 triangles) on the kicking mannequin (25,472 moving
// triangles): it falls onto the hips, the kick starts at 0.5 s (frame 50) and the
// leg lifts the skirt by frame ~80. Checked: no NaN and no intersecting pair after
// any frame. Not checked: edge strain, which reaches ~1.1 where the skirt lands on
// the hips (the PCG hits its 200-iteration cap on this mesh of 2.6-8.7 mm edges
// and ~1e-5 kg vertices): a known defect, so the small scenes' bound is not asserted.
TEST(IClothScenes, DressOnTheKickingMannequinStaysPenetrationFree) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  run_scene("shared/icloth_dress.json", 100, kNoStrainBound);
}

}  // namespace
}  // namespace cb
