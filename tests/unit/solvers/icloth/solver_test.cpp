// The I-Cloth solver end to end on small sheets: equilibrium under pins, obstacle
// contact, the grab, parameters; CPU against CUDA where a GPU answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "sim/solvers/icloth/solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

// a vertical sheet (nx x nx, side m) hanging from its two top corners, its
// bottom edge at height 0.5 m
SceneSpec hanging_scene(int nx, float side) {
  SceneSpec s = test::grid_scene(nx, nx, side, side, 0.f);
  for (Vec3f& p : s.cloths[0].mesh.positions) p = Vec3f{p.x, 0.5f + side * 0.5f + p.z, 0.f};
  // grid_scene puts row j = 0 at z = +side/2: it becomes the top row
  s.cloths[0].pinned = {0, uint32_t(nx - 1)};
  s.dt = 1.f / 60;
  s.substeps = 1;
  return s;
}

std::unique_ptr<World> make_world(const Context& ctx, SceneSpec scene) {
  auto w = std::make_unique<World>(ctx, std::move(scene));
  w->set_solver(make_icloth_solver(ctx, w->model()));
  return w;
}

float max_speed(const World& w) {
  float m = 0;
  for (const Vec3f& v : w.host_state().v) m = std::max(m, length(v));
  return m;
}

// a horizontal sheet pinned at two corners swings down and, with damping,
// comes to rest hanging below the pins
TEST(IClothSolver, SheetPinnedAtTwoCornersReachesEquilibrium) {
  const int nx = 12;
  SceneSpec s = test::grid_scene(nx, nx, 0.5f, 0.5f, 1.f);
  s.cloths[0].pinned = {0, uint32_t(nx - 1)};
  s.cloths[0].material.damping = 3.f;
  s.substeps = 1;
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, s);
    World& w = *wp;
    const auto x0 = w.positions();
    for (int f = 0; f < 300; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << "frame " << f;
      ASSERT_LT(w.stats().max_strain, 0.05f) << "frame " << f;
    }
    auto x = w.positions();
    for (uint32_t p : {0u, uint32_t(nx - 1)}) EXPECT_EQ(x[p], x0[p]) << "pinned vertices never move";
    EXPECT_LT(max_speed(w), 2e-3f) << "the sheet comes to rest";
    w.step();
    auto x1 = w.positions();
    float move = 0, low = 1e9f;
    for (size_t i = 0; i < x.size(); ++i) {
      move = std::max(move, length(x1[i] - x[i]));
      low = std::min(low, x[i].y);
    }
    EXPECT_LT(move, 1e-4f) << "positions no longer change";
    EXPECT_LT(low, 0.6f) << "the free edge hangs about a sheet length below the pins";
    EXPECT_GT(low, 0.4f);
  }
}

TEST(IClothSolver, SheetFallingOnASphereStaysOutsideIt) {
  SceneSpec s = test::grid_scene(16, 16, 0.8f, 0.8f, 0.5f);
  ObstacleSpec ball;
  ball.kind = ObstacleKind::Sphere;
  ball.radius = 0.2f;
  ball.pose.t = Vec3f{0, 0.25f, 0};
  s.obstacles.push_back(ball);
  s.substeps = 1;
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, s);
    World& w = *wp;
    const float thickness = w.model().materials[0].thickness;
    float min_d = 1e9f;
    for (int f = 0; f < 90; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan);
      for (const Vec3f& p : w.positions()) min_d = std::min(min_d, length(p - ball.pose.t) - ball.radius);
    }
    EXPECT_GT(min_d, 0.5f * thickness) << "no vertex comes closer than half the thickness";
    // the centre of the sheet rests on top of the ball
    auto x = w.positions();
    EXPECT_NEAR(x[8 * 16 + 8].y, 0.45f + thickness, 0.02f);
  }
}

// two sheets dropped on the ground, one on the other: once they rest, the
// proximity repulsion alone keeps them apart (no CCD impact, no intersection) and
// the upper sheet lies about a proximity distance above the lower one; also with
// the closing pairs as springs in the solve (proximity_stiffness)
void stacked_sheets_rest(const char* proximity_stiffness) {
  SceneSpec s = test::grid_scene(10, 10, 0.3f, 0.3f, 0.02f);
  ClothSpec top = s.cloths[0];
  for (Vec3f& p : top.mesh.positions) p = Vec3f{p.x + 0.01f, 0.03f, p.z + 0.005f};
  s.cloths.push_back(top);
  s.obstacles.push_back(ObstacleSpec{});  // the ground plane y = 0
  s.substeps = 2;
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, s);
    World& w = *wp;
    ASSERT_EQ(w.set_solver_param("proximity_stiffness", proximity_stiffness), "");
    const float th = w.model().materials[0].thickness;
    double late_impacts = 0, late_pairs = 0;
    for (int f = 0; f < 60; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan);
      ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << "frame " << f;
      if (f >= 40) {
        late_impacts += w.stats().get("impacts");
        late_pairs += w.stats().get("proximity pairs");
      }
    }
    EXPECT_EQ(late_impacts, 0) << "resting contact needs no impact zones";
    EXPECT_GT(late_pairs, 0) << "the sheets are in proximity";
    auto x = w.positions();
    const size_t half = x.size() / 2;
    for (size_t i = 0; i < half; ++i) EXPECT_NEAR(x[i].y, th, 0.5f * th) << "lower sheet on the ground";
    for (size_t i = half; i < x.size(); ++i) {
      EXPECT_GT(x[i].y, 1.5f * th) << "upper sheet above the lower one";
      EXPECT_LT(x[i].y, 3.f * th);
    }
  }
}

TEST(IClothSolver, StackedSheetsRestWithoutImpacts) { stacked_sheets_rest("0"); }
TEST(IClothSolver, StackedSheetsRestWithPairSpringsInTheSolve) { stacked_sheets_rest("10"); }

// The pair springs need an untangled start: across an intersection a pair's
// normal points to the wrong side and its spring would hold the tangle (with
// springs from such starts, two of the tangled hand-overs of
// tangled_start_test.cpp ended with more tangled pairs than they began with).
// Two stacked sheets get springs; the same with a third sheet pierced through
// both get none while the crossing lasts.
TEST(IClothSolver, PairSpringsWaitForAnUntangledStart) {
  SceneSpec s = test::grid_scene(10, 10, 0.3f, 0.3f, 0.004f);
  ClothSpec top = s.cloths[0];
  for (Vec3f& p : top.mesh.positions) p.y = 0.0085f;
  s.cloths.push_back(top);
  s.obstacles.push_back(ObstacleSpec{});  // the ground plane y = 0
  s.substeps = 2;
  SceneSpec pierced = s;
  ClothSpec blade = s.cloths[0];
  const Mat3f tilt = rotation(Vec3f{0, 0, 1}, 0.5f);
  for (Vec3f& p : blade.mesh.positions) p = tilt * Vec3f{p.x, 0.f, p.z} + Vec3f{0.02f, 0.006f, 0.01f};
  pierced.cloths.push_back(blade);
  for (const Context& ctx : test::backends()) {
    double springs = 0, tangled_springs = 0, tangled = 0;
    for (SceneSpec* scene : {&s, &pierced}) {
      auto wp = make_world(ctx, *scene);
      World& w = *wp;
      ASSERT_EQ(w.set_solver_param("proximity_stiffness", "10"), "");
      for (int f = 0; f < 5; ++f) {
        w.step();
        ASSERT_FALSE(w.stats().has_nan);
        const double n = w.stats().get("pair springs");
        if (scene == &s) springs += n;
        else tangled_springs += n, tangled += w.stats().get("tangled pairs");
      }
    }
    EXPECT_GT(springs, 100) << "stacked sheets rest on springs";
    EXPECT_GT(tangled, 0) << "the blade crosses both sheets";
    EXPECT_EQ(tangled_springs, 0) << "no springs while tangled";
  }
}

bool ran_stage(const World& w, const std::string& name) {
  for (const auto& st : w.stats().stages)
    if (st.first == name) return true;
  return false;
}

// The tangle search before a frame (an exact intersection count at its start)
// is skipped when the world's own check found none at the frame's start (the
// check after the last frame, or the load's for the first) and nothing moved
// the cloth since; it runs after a direct edit of the state, and every frame
// when the world does not check.
TEST(IClothSolver, TangleSearchOnlyWhenTheStartIsNotVouchedFor) {
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, hanging_scene(8, 0.4f));
    World& w = *wp;
    w.step();
    EXPECT_FALSE(ran_stage(w, "tangle check")) << "first frame: the load's check vouches for it";
    EXPECT_FALSE(ran_stage(w, "untangle")) << "first frame";
    ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0);
    w.step();
    EXPECT_FALSE(ran_stage(w, "tangle check")) << "a clean start, checked by the world";
    w.mutable_state();
    w.step();
    EXPECT_TRUE(ran_stage(w, "tangle check")) << "after an edit of the state";
    SimSettings st = w.settings();
    st.check_intersections = false;
    ASSERT_EQ(w.set_settings(st), "");
    w.step();
    w.step();
    EXPECT_TRUE(ran_stage(w, "tangle check")) << "without the world's check";
  }
}

TEST(IClothSolver, GrabPullsTheGrabbedPointToTheTarget) {
  for (const Context& ctx : test::backends()) {
    auto wp = make_world(ctx, hanging_scene(8, 0.4f));
    World& w = *wp;
    // grab the first triangle's centroid near the top and pull it 0.1 m forward
    const Int3 t = w.model().tris[20];
    auto x = w.positions();
    Vec3f p = (x[t.a] + x[t.b] + x[t.c]) / 3.f;
    Vec3f target = p + Vec3f{0, 0, 0.1f};
    w.grab_begin(20, Vec3f{1.f / 3, 1.f / 3, 1.f / 3}, target);
    for (int f = 0; f < 120; ++f) w.step();
    x = w.positions();
    Vec3f q = (x[t.a] + x[t.b] + x[t.c]) / 3.f;
    EXPECT_LT(length(q - target), 0.25f * length(p - target)) << "the point moves most of the way";
    EXPECT_FALSE(w.stats().has_nan);
  }
}

// The warm start of a step's first solve (IClothParams::cg_warm_start), on and
// off, over `frames` frames of `scene`: the first solves' PCG iterations in all
// and the positions at the end.
struct WarmRun {
  double first_iterations = 0, warm_starts = 0;
  std::vector<Vec3f> x;
};

WarmRun run_warm(const Context& ctx, const SceneSpec& scene, bool warm, int frames) {
  auto wp = make_world(ctx, scene);
  World& w = *wp;
  EXPECT_EQ(w.set_solver_param("cg_warm_start", warm ? "true" : "false"), "");
  WarmRun r;
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan);
    r.first_iterations += w.stats().get("cg first iterations");
    r.warm_starts += w.stats().get("cg warm starts");
  }
  r.x = w.positions();
  return r;
}

// A sheet that touches nothing, swinging down from two pinned corners (the
// app's default scene: 40 x 40 vertices, 1 m, 4 steps a frame), starts each
// first solve from the last step's velocity change: fewer iterations to the
// same tolerance, and the same swing to within it.
TEST(IClothSolver, WarmStartCutsTheIterationsOfAnUntouchedSheetAndKeepsItsSwing) {
  const int nx = 40;
  SceneSpec s = test::grid_scene(nx, nx, 1.f, 1.f, 1.2f);
  s.cloths[0].pinned = {0, uint32_t(nx - 1)};
  s.dt = 1.f / 60;
  s.substeps = 4;
  for (const Context& ctx : test::backends()) {
    const WarmRun cold = run_warm(ctx, s, false, 30), warm = run_warm(ctx, s, true, 30);
    EXPECT_EQ(cold.warm_starts, 0);
    EXPECT_GT(warm.warm_starts, 0);
    EXPECT_LT(warm.first_iterations, 0.7 * cold.first_iterations)
        << cold.first_iterations << " iterations cold, " << warm.first_iterations << " warm";
    EXPECT_LT(test::max_distance(warm.x, cold.x), 2e-3f) << "m, after 30 frames of a 1 m sheet's swing";
  }
}

// A sheet sliding down a slope (20 degrees, mu 0.1) has resting contacts in
// every step's solve, so the warm start waits: the same run as without it, bit
// for bit. (With contacts the guess's error stays in the answer: stacked sheets
// were thrown and the dress overstretched when it did not wait; RESULTS.md.)
TEST(IClothSolver, WarmStartWaitsWhileTheClothTouchesAnObstacle) {
  SceneSpec s = test::grid_scene(16, 16, 0.4f, 0.4f, 0.f);
  const Mat3f tilt = rotation(Vec3f{0, 0, 1}, 20.f * 3.14159265f / 180.f);
  const float thickness = s.cloths[0].material.thickness;
  for (Vec3f& p : s.cloths[0].mesh.positions) p = tilt * p + tilt * Vec3f{0, thickness, 0};
  ObstacleSpec slope;  // kind Plane: y = 0, normal +y, before the pose
  slope.pose.R = tilt;
  slope.friction = 0.1f;
  s.obstacles.push_back(slope);
  s.substeps = 2;
  for (const Context& ctx : test::backends()) {
    const WarmRun cold = run_warm(ctx, s, false, 20), warm = run_warm(ctx, s, true, 20);
    EXPECT_EQ(warm.warm_starts, 0);
    EXPECT_EQ(warm.first_iterations, cold.first_iterations);
    EXPECT_EQ(test::max_distance(warm.x, cold.x), 0.f);
  }
}

TEST(IClothSolver, ParamsRoundTripAndRejectBadValues) {
  ClothModel m = build_cloth_model({ClothInput{"s", test::grid_scene(4, 4, 1, 1, 0).cloths[0].mesh, Material{}, {}}});
  IClothSolver s(Context{}, m);
  ParamTable t = s.params();
  EXPECT_EQ(t.set("cg_max_iterations", 50), "");
  EXPECT_EQ(t.set("weft_ratio", 0.5), "");
  EXPECT_EQ(s.set_params(t), "");
  EXPECT_EQ(s.typed_params().cg_max_iterations, 50);
  EXPECT_FLOAT_EQ(s.typed_params().weft_ratio, 0.5f);
  EXPECT_NE(t.set("cg_tolerance", -1), "");
  EXPECT_NE(t.set("no_such_thing", 1), "");
}

TEST(IClothSolver, CpuAndCudaAgree) {
  Context gpu;
  if (!test::cuda_context(&gpu)) GTEST_SKIP() << "no CUDA device";
  auto ap = make_world(Context{}, hanging_scene(12, 0.5f));
  auto bp = make_world(gpu, hanging_scene(12, 0.5f));
  World &a = *ap, &b = *bp;
  const std::vector<float> d = test::divergence(a, b, 30);
  test::expect_agreement(d, 5, 1e-5f, 2e-3f);
}

// The PCG's product with 2 or 4 threads a row (product_lanes) rounds each row's
// sum in another order: the trajectory follows one thread's as two backends'
// do, on every backend; and CUDA's lanes follow the CPU's, which add the same
// shares in the same order (the solve alone: IClothCg.ProductLanesGiveTheSameSolve).
TEST(IClothSolver, ProductLanesKeepTheTrajectory) {
  for (const Context& ctx : test::backends())
    for (const char* lanes : {"2", "4"}) {
      auto ap = make_world(ctx, hanging_scene(12, 0.5f));
      auto bp = make_world(ctx, hanging_scene(12, 0.5f));
      ASSERT_EQ(bp->set_solver_param("product_lanes", lanes), "");
      const std::vector<float> d = test::divergence(*ap, *bp, 30);
      test::expect_agreement(d, 5, 1e-5f, 2e-3f);
    }
  auto world = make_world(Context{}, hanging_scene(4, 0.5f));
  EXPECT_NE(world->set_solver_param("product_lanes", "3"), "") << "three lanes do not divide a block's warps";
}

TEST(IClothSolver, CpuAndCudaAgreeWithTwoThreadsARow) {
  Context gpu;
  if (!test::cuda_context(&gpu)) GTEST_SKIP() << "no CUDA device";
  auto ap = make_world(Context{}, hanging_scene(12, 0.5f));
  auto bp = make_world(gpu, hanging_scene(12, 0.5f));
  ASSERT_EQ(ap->set_solver_param("product_lanes", "2"), "");
  ASSERT_EQ(bp->set_solver_param("product_lanes", "2"), "");
  const std::vector<float> d = test::divergence(*ap, *bp, 30);
  test::expect_agreement(d, 5, 1e-5f, 2e-3f);
}

// On CUDA the system's blocks are stored split by component (split_blocks, the
// default) or whole: the same arithmetic in the same order, so the same
// trajectory bit for bit, the switch made mid-run included (the pattern is
// uploaded again). The CPU keeps CSR order whatever the switch says, so this
// runs on a GPU only (the layouts themselves: IClothSystem.SellLayoutGivesTheSameSystemAsCsr).
TEST(IClothSolver, SplitAndWholeBlocksGiveTheSameTrajectoryOnCuda) {
  Context gpu;
  if (!test::cuda_context(&gpu)) GTEST_SKIP() << "no CUDA device";
  auto ap = make_world(gpu, hanging_scene(12, 0.5f));
  auto bp = make_world(gpu, hanging_scene(12, 0.5f));
  ASSERT_EQ(bp->set_solver_param("split_blocks", "false"), "");
  for (int f = 0; f < 20; ++f) {
    if (f == 10) ASSERT_EQ(bp->set_solver_param("split_blocks", "true"), "");
    ap->step();
    bp->step();
    const std::vector<Vec3f> xa = ap->positions(), xb = bp->positions();
    for (size_t i = 0; i < xa.size(); ++i) ASSERT_EQ(xa[i], xb[i]) << "frame " << f << ", vertex " << i;
  }
}

}  // namespace
}  // namespace cb::icloth
