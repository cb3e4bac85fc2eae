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
#include "sim/solvers/solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

struct Throw {
  float strain = 0;      ///< largest edge strain after the step
  double iterations = 0; ///< further Newton iterations taken
  double dropped = 0;    ///< iterations dropped for stretching no less
  bool nan = false;
};

// A flat 0.2 m sheet of 12 x 12 vertices (1.8 cm edges) with one corner pinned,
// every free vertex moving down at `speed` m/s, one implicit step of 1/60 s (the
// free vertices move ~6.7 cm at 4 m/s: 3.7 edges). No obstacles. The solver is
// stepped directly, with the start vouched clean (as World does after its
// check): a start that may be tangled takes no further iterations.
Throw throw_sheet(const Context& ctx, float speed, const Params& params) {
  SceneSpec s = test::grid_scene(12, 12, 0.2f, 0.2f, 0.5f);
  World w(ctx, std::move(s));
  w.set_pinned(0, true);
  std::vector<Vec3f> v(w.model().num_vertices(), Vec3f{0, -speed, 0});
  v[0] = Vec3f{0, 0, 0};
  w.mutable_state().v.upload(ctx, v);
  std::unique_ptr<Solver> solver = make_icloth_solver(ctx, w.model());
  ParamTable table = solver->params();
  for (const auto& [name, value] : params) EXPECT_EQ(table.set_text(name, value), "") << name;
  EXPECT_EQ(solver->set_params(table), "");
  StageTimer timer(ctx);
  FrameStats stats;
  const float dt = 1.f / 60;
  StepInputs in{w.model(), w.scene().env, w.obstacles(), w.grab(), dt, 1, 0.0, true, timer, stats, true};
  solver->step(in, w.mutable_state());
  Throw r;
  const std::vector<Vec3f> x = w.positions();
  for (size_t e = 0; e < w.model().topo.edges.size(); ++e) {
    const Int2 ed = w.model().topo.edges[e];
    r.strain = std::max(r.strain, length(x[size_t(ed.b)] - x[size_t(ed.a)]) / w.model().rest_edge_length[e] - 1.f);
  }
  for (const Vec3f& p : x) r.nan = r.nan || !std::isfinite(p.x + p.y + p.z);
  r.iterations = stats.get("newton iterations");
  r.dropped = stats.get("newton rejected");
  return r;
}

// Linearised once, the step moves the pinned corner's neighbours on with the
// sheet: edges of 1.8 cm that end up to 6.7 cm apart across the sheet. Backward
// Euler solved further keeps them near their length (the sheet swings about
// the corner instead).
TEST(IClothNewton, SheetThrownPastAPinnedCornerKeepsItsEdgesInOneStep) {
  for (const Context& ctx : test::backends()) {
    const Throw once = throw_sheet(ctx, 4.f, {{"newton_iterations", "0"}});
    const Throw newton = throw_sheet(ctx, 4.f, {});
    std::printf("%s: largest strain after one step: linearised once %.3f, with Newton iterations %.3f (%g)\n",
                backend_name(ctx.backend), once.strain, newton.strain, newton.iterations);
    EXPECT_GT(once.strain, 1.f) << "the defect this guards against";
    EXPECT_LT(newton.strain, 0.25f);
    EXPECT_GE(newton.iterations, 1);
    EXPECT_FALSE(newton.nan);
  }
}

// More iterations never leave a larger stretch: K is the projected stiffness,
// not the force's Jacobian, so an iteration may overshoot (the fourth does here:
// 0.03 -> 0.12); it is dropped and the iterations stop (newton_strain 0: every
// step iterates until then).
TEST(IClothNewton, FurtherIterationsNeverStretchTheThrownSheetMore) {
  const Context ctx = test::backends()[0];
  std::vector<float> strain;
  double dropped = 0;
  for (const char* k : {"0", "1", "2", "3", "4", "6"}) {
    const Throw t = throw_sheet(ctx, 4.f, {{"newton_iterations", k}, {"newton_strain", "0"}, {"cg_tolerance", "1e-6"},
                                           {"cg_max_iterations", "2000"}});
    strain.push_back(t.strain);
    dropped += t.dropped;
  }
  std::printf("largest strain after 0, 1, 2, 3, 4, 6 iterations: %.3f %.3f %.3f %.3f %.3f %.3f (%g dropped)\n",
              strain[0], strain[1], strain[2], strain[3], strain[4], strain[5], dropped);
  for (size_t k = 1; k < strain.size(); ++k) EXPECT_LE(strain[k], strain[k - 1]) << "entry " << k;
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
    if (k[0] == '1') EXPECT_GE(w.stats().get("newton iterations"), 1) << "the last frame must iterate";
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
