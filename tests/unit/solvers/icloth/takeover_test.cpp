// The I-Cloth solver taking over a moving cloth from another solver
// (World::set_solver): the takeover settle (IClothSolver::settle) relaxes the
// handed state under I-Cloth's membrane with implicit passes from rest, so the
// first steps do not turn the other model's strain into motion.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "sim/solvers/icloth/params.h"
#include "unit/solvers/takeover.h"

namespace cb {
namespace {

test::Takeover to_icloth(const Context& ctx, const char* from, int settle_passes) {
  return test::run_takeover(ctx, from, "icloth", 100, 20, "settle passes", settle_passes);
}

TEST(IClothTakeover, AStateFromTheSofterVerletSolverIsSettledNotThrown) {
  for (const Context& ctx : test::backends()) {
    const test::Takeover r = to_icloth(ctx, "verlet", icloth::IClothParams{}.settle_passes);
    // Without the settle (measured on the CPU): 5.36 J against the swing's
    // 0.78 J, the sheet 0.14 m above its pins. With it: 22 passes, 0.15 J, 2 mm.
    std::printf("%s: swing %.3f J, after the switch %.3f J, rise %.3f m, %g settle passes\n",
                backend_name(ctx.backend), r.swing_energy, r.energy_after, r.rise, r.settle_passes);
    EXPECT_LT(r.energy_after, 0.5 * r.swing_energy) << backend_name(ctx.backend);
    EXPECT_LT(r.rise, 0.05f) << backend_name(ctx.backend);
    EXPECT_GT(r.settle_passes, 1) << backend_name(ctx.backend);
    EXPECT_EQ(r.intersecting, 0) << backend_name(ctx.backend);  // the passes keep I-Cloth's promise
  }
}

TEST(IClothTakeover, WithoutTheSettleTheSameSwitchThrowsTheSheet) {
  // the scenario above is one that needs the settle (so its bounds can fail)
  const test::Takeover r = to_icloth(test::backends().front(), "verlet", 0);
  EXPECT_GT(r.energy_after, 2 * r.swing_energy);
  EXPECT_GT(r.rise, 0.1f);
  EXPECT_EQ(r.settle_passes, -1);  // no settle ran
}

TEST(IClothTakeover, AStateFromPbdSettlesInOnePass) {
  // pbd's state meets I-Cloth's membrane closely: the first pass releases less
  // than the bound and the settle stops there
  const test::Takeover r = to_icloth(test::backends().front(), "pbd", icloth::IClothParams{}.settle_passes);
  EXPECT_EQ(r.settle_passes, 1);
  EXPECT_LT(r.energy_after, r.swing_energy);
}

TEST(IClothTakeover, TheScenesOwnStartDoesNotSettle) {
  World w(test::backends().front(), load_scene(test::source_path("scenes/icloth_sphere.json")));
  w.step();
  EXPECT_EQ(w.stats().get("settle passes", -1), -1);  // time 0: nothing to take over
}

}  // namespace
}  // namespace cb
