// sweep_points (obstacle_sweep.h): moving points against moving obstacle
// triangles, on every backend; the LBVH's candidates against all triangles.
#include <gtest/gtest.h>

#include <random>

#include "sim/collision/ccd.h"
#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/obstacle_sweep.h"
#include "support/test_support.h"

namespace cb {
namespace {

struct Sweep {
  std::vector<Vec3f> x0, x1;
  float t0 = 0, t1 = 1, reach = 0;
  float query_pose = -1;  ///< where the caller's closest-point query looks; < 0: t1
};

// still points over the part [t0, t1] of the frame
Sweep still_points(std::vector<Vec3f> x, float t0, float t1, float reach) {
  Sweep s;
  s.x0 = s.x1 = std::move(x);
  s.t0 = t0;
  s.t1 = t1;
  s.reach = reach;
  return s;
}

std::vector<SweepHit> run_sweep(const Context& ctx, ObstacleSet& o, const Sweep& s) {
  o.sync(ctx);
  ObstacleProximity prox;
  prox.update(ctx, o, 0.01f);
  DeviceBuffer<Vec3f> a(ctx, s.x0), b(ctx, s.x1);
  DeviceBuffer<SweepHit> out(ctx, s.x0.size());
  sweep_points(ctx, prox.mesh_view(), a.data(), b.data(), int(s.x0.size()), s.t0, s.t1, s.reach,
               s.query_pose < 0 ? s.t1 : s.query_pose, out.data());
  return out.to_host();
}

TEST(ObstacleSweep, APointFallingThroughAStillTriangleStopsOnIt) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(0.f, 0.f, 0.3f);
    Sweep s;
    s.reach = 0.01f;
    s.x0 = {Vec3f(0.2f, 0.3f, 0.2f), Vec3f(0.2f, -0.2f, 0.3f), Vec3f(0.2f, 0.004f, 0.2f), Vec3f(2, 0.3f, 0),
            Vec3f(0.2f, 0.1f, 0.2f)};
    s.x1 = {Vec3f(0.2f, -0.7f, 0.2f), Vec3f(0.2f, 0.2f, 0.3f), Vec3f(0.2f, -0.004f, 0.2f), Vec3f(2, -0.7f, 0),
            Vec3f(0.2f, 0.9f, 0.2f)};
    const std::vector<SweepHit> h = run_sweep(ctx, o, s);
    ASSERT_EQ(h[0].tri, 0) << "falling through from above";
    EXPECT_NEAR(h[0].toi, 0.3f, 1e-5f);
    EXPECT_LE(h[0].toi, 0.3f + 1e-7f) << "a lower bound of the touch";
    EXPECT_NEAR(h[0].point.x, 0.2f, 1e-5f);
    EXPECT_NEAR(h[0].point.y, 0.f, 1e-6f);
    EXPECT_NEAR(h[0].point.z, 0.2f, 1e-5f);
    EXPECT_NEAR(h[0].normal.y, 1.f, 1e-6f) << "to the side it came from";
    ASSERT_EQ(h[1].tri, 0) << "rising through from below";
    EXPECT_NEAR(h[1].toi, 0.5f, 1e-5f);
    EXPECT_NEAR(h[1].normal.y, -1.f, 1e-6f);
    EXPECT_EQ(h[2].tri, -1) << "8 mm across the triangle, within the 10 mm reach: the closest-point query's";
    EXPECT_EQ(h[3].tri, -1) << "beside the triangle";
    EXPECT_EQ(h[4].tri, -1) << "moving away from it";
  }
}

// The triangle rises from y = 0 to 0.1 over the frame. Over the frame's second
// half (0.05 -> 0.1) it reaches a still point at 0.07 at 40 % of that half and
// carries it to its end pose on top; a point at 0.03, below its pose at the
// half's start, is not reached then (over the whole frame it is).
TEST(ObstacleSweep, ATriangleSweepingIntoAStillPointCarriesItWithinTheSubstep) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(0.f, 0.1f, 0.3f);
    Sweep s = still_points({Vec3f(0.2f, 0.07f, 0.2f), Vec3f(0.2f, 0.03f, 0.2f)}, 0.5f, 1.f, 0.01f);
    std::vector<SweepHit> h = run_sweep(ctx, o, s);
    ASSERT_EQ(h[0].tri, 0);
    EXPECT_NEAR(h[0].toi, 0.4f, 1e-4f);
    EXPECT_NEAR(h[0].point.y, 0.1f, 1e-6f) << "the touched point at the end pose";
    EXPECT_NEAR(h[0].normal.y, 1.f, 1e-6f) << "the point was above the triangle at the half's start";
    EXPECT_EQ(h[1].tri, -1);
    s.t0 = 0.f;
    h = run_sweep(ctx, o, s);
    ASSERT_EQ(h[1].tri, 0);
    EXPECT_NEAR(h[1].toi, 0.3f, 1e-4f);
  }
}

// Which points are swept depends on where the caller's closest-point query
// looks. Over {0.5, 0.75} the triangle rises 0.025 m. A still point it passes
// at 0.06 ends 0.015 from its pose at 0.75, within a 0.03 reach, so a query at
// 0.75 finds it and it is not swept; a query at the frame's end (0.1) would
// see it 0.04 away, beyond the reach, so then it is swept and hit.
TEST(ObstacleSweep, PointsAreSweptWhereTheQueryAtItsPoseWouldMissTheCrossing) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(0.f, 0.1f, 0.3f);
    Sweep s = still_points({Vec3f(0.2f, 0.06f, 0.2f)}, 0.5f, 0.75f, 0.03f);
    EXPECT_EQ(run_sweep(ctx, o, s)[0].tri, -1) << "the query at 0.75 sees it";
    s.query_pose = 1.f;
    const SweepHit h = run_sweep(ctx, o, s)[0];
    ASSERT_EQ(h.tri, 0);
    EXPECT_NEAR(h.toi, 0.4f, 1e-4f);
    EXPECT_NEAR(h.point.y, 0.075f, 1e-6f) << "carried to the pose at 0.75";
  }
}

// Random moving soup, random segments: the same first touch as the CCD of
// every triangle (the tree's box must contain every pose of a triangle within
// the interval).
TEST(ObstacleSweep, FindsTheSameFirstTouchAsEveryTriangle) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  ObstacleSet o;
  const int ntris = 400;
  for (int t = 0; t < ntris; ++t) {
    const Vec3f c(u(rng), u(rng), u(rng));
    const Vec3f move = Vec3f(u(rng), u(rng), u(rng)) * 0.1f;
    for (int k = 0; k < 3; ++k) {
      const Vec3f p = c + Vec3f(u(rng), u(rng), u(rng)) * 0.1f;
      o.mesh_x.push_back(p);
      o.mesh_x_prev.push_back(p - move);
    }
    o.mesh_tris.push_back(Int3{3 * t, 3 * t + 1, 3 * t + 2});
  }
  MeshRange r;
  r.num_vertices = uint32_t(o.mesh_x.size());
  r.num_tris = uint32_t(ntris);
  o.meshes = {r};
  o.mesh_version = 1;
  Sweep s;
  s.t0 = 0.25f;
  s.t1 = 0.75f;
  for (int i = 0; i < 2000; ++i) {
    const Vec3f p(u(rng), u(rng), u(rng));
    s.x0.push_back(p);
    s.x1.push_back(p + Vec3f(u(rng), u(rng), u(rng)) * 0.3f);
  }
  const auto pose = [&](int v, float f) { return o.mesh_x_prev[v] + (o.mesh_x[v] - o.mesh_x_prev[v]) * f; };
  const auto to_d = [](Vec3f p) { return Vec3d(p.x, p.y, p.z); };
  for (const Context& ctx : test::backends()) {
    const std::vector<SweepHit> h = run_sweep(ctx, o, s);
    int hits = 0;
    for (size_t i = 0; i < s.x0.size(); ++i) {
      int best = -1;
      double best_toi = 2;
      for (int t = 0; t < ntris; ++t) {
        const Int3 f = o.mesh_tris[size_t(t)];
        const Vec3d a[4] = {to_d(s.x0[i]), to_d(pose(f.a, s.t0)), to_d(pose(f.b, s.t0)), to_d(pose(f.c, s.t0))};
        const Vec3d b[4] = {to_d(s.x1[i]), to_d(pose(f.a, s.t1)), to_d(pose(f.b, s.t1)), to_d(pose(f.c, s.t1))};
        const CcdResult c = ccd_vertex_face(a, b);
        if (c.hit && c.toi < best_toi) best_toi = c.toi, best = t;
      }
      ASSERT_EQ(h[i].tri, best) << "segment " << i;
      if (best < 0) continue;
      ++hits;
      // the same arithmetic on the CPU; the device contracts the poses'
      // interpolation into fused multiply-adds, which moves the CCD's inputs in
      // their last bits (on an H200, 2e-6 of the interval at most)
      if (ctx.backend == Backend::Cpu)
        EXPECT_FLOAT_EQ(h[i].toi, float(best_toi)) << "segment " << i;
      else
        EXPECT_NEAR(h[i].toi, float(best_toi), 1e-5f) << "segment " << i;
      EXPECT_NEAR(length(h[i].normal), 1.f, 1e-5f);
    }
    EXPECT_GT(hits, 50) << "the test must exercise hits";
  }
}

}  // namespace
}  // namespace cb
