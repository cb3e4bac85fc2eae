// Further Newton iterations of the I-Cloth step (solver.cpp, newton_iterations):
// a step linearised once at a flat sheet has no stiffness across the sheet, so a
// vertex held while its neighbours move out of the plane stretches their edges
// by (speed x h) / edge length; linearised again at the solved end, the step
// keeps the edges near their length, and the iterations converge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/solvers/icloth/solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

// A flat 0.2 m sheet of 12 x 12 vertices (1.8 cm edges) with one corner pinned,
// every free vertex moving down at `speed` m/s, one implicit step of 1/60 s (the
// free vertices move ~6.7 cm at 4 m/s: 3.7 edges). No obstacles.
std::unique_ptr<World> thrown_sheet(const Context& ctx, float speed, const std::string& newton_iterations) {
  SceneSpec s = test::grid_scene(12, 12, 0.2f, 0.2f, 0.5f);
  s.dt = 1.f / 60;
  s.substeps = 1;
  auto w = std::make_unique<World>(ctx, std::move(s));
  w->set_solver(make_icloth_solver(ctx, w->model()));
  EXPECT_EQ(w->set_solver_param("newton_iterations", newton_iterations), "");
  w->set_pinned(0, true);
  std::vector<Vec3f> v(w->model().num_vertices(), Vec3f{0, -speed, 0});
  v[0] = Vec3f{0, 0, 0};
  w->mutable_state().v.upload(ctx, v);
  return w;
}

// Linearised once, the step moves the pinned corner's neighbours on with the
// sheet: edges of 1.8 cm that end 6.7 cm apart across the sheet (strain ~2.8).
// Backward Euler solved further keeps them near their length (the sheet swings
// about the corner instead).
TEST(IClothNewton, SheetThrownPastAPinnedCornerKeepsItsEdgesInOneStep) {
  for (const Context& ctx : test::backends()) {
    auto once = thrown_sheet(ctx, 4.f, "0");
    once->step();
    auto newton = thrown_sheet(ctx, 4.f, "2");
    newton->step();
    std::printf("%s: largest strain after one step: linearised once %.3f, with Newton iterations %.3f (%g)\n",
                backend_name(ctx.backend), once->stats().max_strain, newton->stats().max_strain,
                newton->stats().get("newton iterations"));
    EXPECT_GT(once->stats().max_strain, 1.f) << "the defect this guards against";
    EXPECT_LT(newton->stats().max_strain, 0.25f);
    EXPECT_GE(newton->stats().get("newton iterations"), 1);
    EXPECT_FALSE(newton->stats().has_nan);
  }
}

// More iterations never leave a larger stretch: K is the projected stiffness,
// not the force's Jacobian, so an iteration may overshoot (the fourth does here:
// 0.03 -> 0.12); it is dropped and the iterations stop (newton_strain 0: every
// step iterates until then).
TEST(IClothNewton, FurtherIterationsNeverStretchTheThrownSheetMore) {
  const Context ctx = test::backends()[0];
  std::vector<float> strain;
  double rejected = 0;
  for (const char* k : {"0", "1", "2", "3", "4", "6"}) {
    auto w = thrown_sheet(ctx, 4.f, k);
    ASSERT_EQ(w->set_solver_param("newton_strain", "0"), "");
    ASSERT_EQ(w->set_solver_param("cg_tolerance", "1e-6"), "");
    ASSERT_EQ(w->set_solver_param("cg_max_iterations", "2000"), "");
    w->step();
    strain.push_back(w->stats().max_strain);
    rejected += w->stats().get("newton rejected");
  }
  std::printf("largest strain after 0, 1, 2, 3, 4, 6 iterations: %.3f %.3f %.3f %.3f %.3f %.3f (%g dropped)\n",
              strain[0], strain[1], strain[2], strain[3], strain[4], strain[5], rejected);
  for (size_t k = 1; k < strain.size(); ++k) EXPECT_LE(strain[k], strain[k - 1]) << "after " << k << " runs";
  EXPECT_LT(strain[2], 0.1f);
}

// Where the force is nearly linear over the step (a sheet hanging in its own
// plane from its top corners: gravity stretches it in the plane, by ~0.05 mm), the
// relinearised system gives back the first one's answer: b* = b0 + h (f(x*) -
// f(x)) + h^2 K* v* is b0 for a linear force.
TEST(IClothNewton, InPlaneStepIsUnchangedByAFurtherIteration) {
  const Context ctx = test::backends()[0];
  std::vector<std::vector<Vec3f>> ends;
  std::vector<Vec3f> start;
  for (const char* k : {"0", "1"}) {
    SceneSpec s = test::grid_scene(12, 12, 0.2f, 0.2f, 0.5f);
    for (Vec3f& p : s.cloths[0].mesh.positions) p = Vec3f{p.x, 0.5f - p.z, 0.f};  // upright, in the xy plane
    s.dt = 1.f / 60;
    s.substeps = 2;
    World w(ctx, std::move(s));
    w.set_solver(make_icloth_solver(ctx, w.model()));
    ASSERT_EQ(w.set_solver_param("newton_iterations", k), "");
    ASSERT_EQ(w.set_solver_param("newton_strain", "0"), "");
    ASSERT_EQ(w.set_solver_param("cg_tolerance", "1e-6"), "");
    ASSERT_EQ(w.set_solver_param("cg_max_iterations", "2000"), "");
    start = w.positions();
    uint32_t left = 0, right = 0;  // the top corners
    for (uint32_t v = 0; v < start.size(); ++v) {
      if (start[v].y > start[left].y + 1e-6f || (start[v].y > start[left].y - 1e-6f && start[v].x < start[left].x))
        left = v;
      if (start[v].y > start[right].y + 1e-6f || (start[v].y > start[right].y - 1e-6f && start[v].x > start[right].x))
        right = v;
    }
    w.set_pinned(left, true);
    w.set_pinned(right, true);
    for (int f = 0; f < 3; ++f) w.step();
    ends.push_back(w.positions());
  }
  float d = 0, moved = 0;
  for (size_t v = 0; v < start.size(); ++v) {
    d = std::max(d, length(ends[1][v] - ends[0][v]));
    moved = std::max(moved, length(ends[0][v] - start[v]));
  }
  std::printf("sheet hanging in its plane: moved %.2e m in 3 frames, changed by further iterations %.2e m\n", moved,
              d);
  EXPECT_GT(moved, 1e-5f);
  EXPECT_LT(d, 0.01f * moved);
}

}  // namespace
}  // namespace cb::icloth
