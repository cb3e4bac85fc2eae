// The small I-Cloth scenes (scenes/icloth_*.json): the penetration counter of
// the collision core reports no intersecting triangle pair after any frame.
#include <gtest/gtest.h>

#include <string>

#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

void run_scene(const std::string& file, int frames) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/" + file)));
    ASSERT_EQ(w.solver_name(), "icloth");
    double impacts = 0;
    for (int f = 0; f < frames; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << file << " frame " << f;
      ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << file << " frame " << f;
      ASSERT_LT(w.stats().max_strain, 0.5f) << file << " frame " << f;
      impacts += w.stats().get("impacts");
    }
    ::testing::Test::RecordProperty("impacts", std::to_string(impacts));
  }
}

TEST(IClothScenes, SphereStaysPenetrationFree) { run_scene("icloth_sphere.json", 100); }
TEST(IClothScenes, TwistingStaysPenetrationFree) { run_scene("icloth_twisting.json", 100); }
// the sheets reach the funnel and each other at frames ~15-25, then rest stacked
// in it (the proximity repulsion keeps that contact cheap)
TEST(IClothScenes, FunnelStaysPenetrationFree) { run_scene("icloth_funnel.json", 100); }
TEST(IClothScenes, ScarfStaysPenetrationFree) { run_scene("icloth_scarf.json", 100); }

}  // namespace
}  // namespace cb
