// ObstacleProximity (LBVH + closest point on triangle) against brute force over
// random triangle soups and a shared mesh, on every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/collision/lbvh.h"
#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/proximity.h"
#include "sim/io/obj.h"
#include "support/test_support.h"

namespace cb {
namespace {

ObstacleSet random_soup(int ntris, float tri_size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  ObstacleSet o;
  for (int t = 0; t < ntris; ++t) {
    Vec3f c(u(rng), u(rng), u(rng));
    for (int k = 0; k < 3; ++k) o.mesh_x.push_back(c + Vec3f(u(rng), u(rng), u(rng)) * tri_size);
    o.mesh_tris.push_back(Int3{3 * t, 3 * t + 1, 3 * t + 2});
  }
  o.mesh_x_prev = o.mesh_x;
  MeshRange r;
  r.num_vertices = uint32_t(o.mesh_x.size());
  r.num_tris = uint32_t(ntris);
  r.friction = 0.5f;
  o.meshes.push_back(r);
  o.mesh_version = 1;
  return o;
}

// brute-force nearest triangle distance (inf when none within radius)
float brute_distance(const ObstacleSet& o, Vec3f p, float radius, int* tri) {
  float best = INFINITY;
  *tri = -1;
  for (size_t t = 0; t < o.mesh_tris.size(); ++t) {
    Int3 f = o.mesh_tris[t];
    float d = std::sqrt(closest_point_triangle(p, o.mesh_x[f.a], o.mesh_x[f.b], o.mesh_x[f.c]).dist2);
    if (d <= radius && d < best) {
      best = d;
      *tri = int(t);
    }
  }
  return best;
}

std::vector<Vec3f> random_points(int n, float extent, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-extent, extent);
  std::vector<Vec3f> p(static_cast<size_t>(n));
  for (auto& v : p) v = Vec3f(u(rng), u(rng), u(rng));
  return p;
}

void check_against_brute(const Context& ctx, ObstacleSet& o, const std::vector<Vec3f>& pts, float radius) {
  o.sync(ctx);
  ObstacleProximity prox;
  prox.update(ctx, o, 0.01f);
  DeviceBuffer<Vec3f> dx(ctx, pts);
  DeviceBuffer<ObstacleContact> out(ctx, pts.size());
  prox.query(ctx, dx.data(), int(pts.size()), radius, out.data());
  auto h = out.to_host();
  int found = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    int bt;
    float bd = brute_distance(o, pts[i], radius, &bt);
    if (bt < 0) {
      ASSERT_EQ(h[i].tri, -1) << "point " << i << " has no triangle within the radius";
      continue;
    }
    ++found;
    ASSERT_GE(h[i].tri, 0) << "point " << i << " missed (brute distance " << bd << ")";
    ASSERT_NEAR(h[i].distance, bd, 1e-5f) << "point " << i;
    ASSERT_NEAR(length(h[i].point - pts[i]), h[i].distance, 1e-5f);
    ASSERT_NEAR(length(h[i].normal), 1.f, 1e-5f);
    // the normal points to the point's side of the triangle's plane
    Int3 f = o.mesh_tris[size_t(h[i].tri)];
    ASSERT_GE(dot(pts[i] - o.mesh_x[f.a], h[i].normal), -1e-6f);
  }
  EXPECT_GT(found, int(pts.size()) / 10) << "test must exercise hits";
}

TEST(ObstacleProximity, MatchesBruteForceOnRandomSoup) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = random_soup(2000, 0.05f, 7);
    check_against_brute(ctx, o, random_points(3000, 1.1f, 8), 0.1f);
  }
}

TEST(ObstacleProximity, MixedTriangleSizesAndTinySoups) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet big = random_soup(300, 0.6f, 3);  // long, overlapping triangles
    check_against_brute(ctx, big, random_points(1000, 1.5f, 4), 0.5f);
    ObstacleSet one = random_soup(1, 0.5f, 5);  // a single leaf is the root
    check_against_brute(ctx, one, random_points(200, 0.8f, 6), 2.f);
  }
}

TEST(ObstacleProximity, NormalVelocityAndFrictionOnOneTriangle) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(-0.1f, 0.f, 0.7f);  // normal -y (counter-clockwise seen from below)
    o.sync(ctx);
    ObstacleProximity prox;
    prox.update(ctx, o, 0.05f);
    std::vector<Vec3f> pts = {Vec3f(0.2f, 0.3f, 0.2f), Vec3f(0.2f, -0.3f, 0.2f), Vec3f(2, 0, 0), Vec3f(-0.5f, 0.4f, 0.3f)};
    DeviceBuffer<Vec3f> dx(ctx, pts);
    DeviceBuffer<ObstacleContact> out(ctx, pts.size());
    prox.query(ctx, dx.data(), int(pts.size()), 0.8f, out.data());
    auto h = out.to_host();
    EXPECT_EQ(h[0].tri, 0);
    EXPECT_NEAR(h[0].normal.y, 1.f, 1e-6f);
    EXPECT_NEAR(h[0].distance, 0.3f, 1e-6f);
    EXPECT_NEAR(h[0].velocity.y, 2.f, 1e-4f);  // 0.1 m over 0.05 s
    EXPECT_NEAR(h[0].friction, 0.7f, 1e-6f);
    EXPECT_NEAR(h[1].normal.y, -1.f, 1e-6f);
    EXPECT_EQ(h[2].tri, -1);  // 1 m away
    EXPECT_NEAR(h[3].point.x, 0.f, 1e-6f);  // beside the edge x = 0: closest point on it
    EXPECT_NEAR(h[3].distance, std::sqrt(0.25f + 0.16f), 1e-5f);
    EXPECT_NEAR(h[3].normal.y, 1.f, 1e-6f);  // face normal, oriented to the point's side
  }
}

// A triangle that moves 0.1 m up within the frame passes through a point 0.04 m
// above its start. Asked with the point as where it came from, the normal points
// up, the side it came from, though the point ends below the triangle's
// end-of-frame plane; asked without, down, the side of that plane it is on.
// Points the triangle does not reach get the same side either way, and so does
// every point of a triangle that does not move (the other tests).
TEST(ObstacleProximity, NormalKeepsTheSideAPointCameFromWhenTheObstacleSweepsPastIt) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(0.f, 0.1f, 0.3f);  // face normal -y
    o.sync(ctx);
    ObstacleProximity prox;
    prox.update(ctx, o, 0.01f);
    std::vector<Vec3f> pts = {Vec3f(0.2f, 0.04f, 0.2f), Vec3f(0.2f, 0.15f, 0.2f), Vec3f(0.2f, -0.03f, 0.2f)};
    DeviceBuffer<Vec3f> dx(ctx, pts);
    DeviceBuffer<ObstacleContact> out(ctx, pts.size());
    prox.query(ctx, dx.data(), int(pts.size()), 0.5f, out.data(), dx.data());
    auto h = out.to_host();
    ASSERT_EQ(h[0].tri, 0);
    EXPECT_NEAR(h[0].normal.y, 1.f, 1e-6f) << "swept past: the side it came from (above)";
    EXPECT_NEAR(h[0].distance, 0.06f, 1e-6f);
    EXPECT_NEAR(h[0].velocity.y, 10.f, 1e-3f);  // 0.1 m over 0.01 s
    EXPECT_NEAR(h[1].normal.y, 1.f, 1e-6f);   // above both planes
    EXPECT_NEAR(h[2].normal.y, -1.f, 1e-6f);  // below both planes
    prox.query(ctx, dx.data(), int(pts.size()), 0.5f, out.data());
    h = out.to_host();
    EXPECT_NEAR(h[0].normal.y, -1.f, 1e-6f) << "without from: the side of the end-of-frame plane";
    EXPECT_NEAR(h[1].normal.y, 1.f, 1e-6f);
    EXPECT_NEAR(h[2].normal.y, -1.f, 1e-6f);
  }
}

// The same rising triangle (y = 0 at the frame's start, 0.1 at its end) asked
// for the part {0.5, 0.75} of the frame, as a solver's sub-step asks: the
// contact is at its pose at 0.75 (y = 0.075), and the side is the one a point
// was on of its pose at 0.5 (y = 0.05). A point at 0.06 is above the triangle
// at 0.5 and below it at 0.75: its normal points up, the side it came from. The
// tree's boxes hold the triangle's every pose, so a point near its start pose
// finds it with a radius that its end pose is beyond.
TEST(ObstacleProximity, AQueryForPartOfTheFrameSeesTheObstacleThere) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = test::flat_triangle(0.f, 0.1f, 0.3f);
    o.sync(ctx);
    ObstacleProximity prox;
    prox.update(ctx, o, 0.01f);
    std::vector<Vec3f> pts = {Vec3f(0.2f, 0.06f, 0.2f), Vec3f(0.2f, 0.048f, 0.2f), Vec3f(0.2f, 0.02f, 0.2f)};
    DeviceBuffer<Vec3f> dx(ctx, pts);
    DeviceBuffer<ObstacleContact> out(ctx, pts.size());
    prox.query(ctx, dx.data(), int(pts.size()), 0.03f, out.data(), dx.data(), FrameSpan{0.5f, 0.75f});
    auto h = out.to_host();
    ASSERT_EQ(h[0].tri, 0);
    EXPECT_NEAR(h[0].point.y, 0.075f, 1e-6f);
    EXPECT_NEAR(h[0].distance, 0.015f, 1e-6f);
    EXPECT_NEAR(h[0].normal.y, 1.f, 1e-6f) << "above the pose at 0.5: the side it came from";
    ASSERT_EQ(h[1].tri, 0);
    EXPECT_NEAR(h[1].normal.y, -1.f, 1e-6f) << "below the pose at 0.5";
    EXPECT_NEAR(h[1].velocity.y, 10.f, 1e-3f) << "the frame's velocity";
    EXPECT_EQ(h[2].tri, -1) << "0.055 from the pose at 0.75: beyond the radius";
    // at the frame's start pose (y = 0) the point at 0.02 is within the radius,
    // its end pose 0.08 away is not: found only if the tree holds the start pose
    prox.query(ctx, dx.data(), int(pts.size()), 0.03f, out.data(), dx.data(), FrameSpan{0.f, 0.f});
    h = out.to_host();
    ASSERT_EQ(h[2].tri, 0);
    EXPECT_NEAR(h[2].point.y, 0.f, 1e-6f);
    EXPECT_NEAR(h[2].distance, 0.02f, 1e-6f);
  }
}

TEST(ObstacleProximity, RefitFollowsMovedObstacle) {
  for (const Context& ctx : test::backends()) {
    ObstacleSet o = random_soup(500, 0.05f, 11);
    auto pts = random_points(500, 1.1f, 12);
    check_against_brute(ctx, o, pts, 0.15f);
    ObstacleProximity prox;
    o.sync(ctx);
    prox.update(ctx, o, 0.01f);
    for (auto& x : o.mesh_x) x = x + Vec3f(0.3f, 0, 0);
    o.mesh_version++;
    o.sync(ctx);
    prox.update(ctx, o, 0.01f);  // refit path
    DeviceBuffer<Vec3f> dx(ctx, pts);
    DeviceBuffer<ObstacleContact> out(ctx, pts.size());
    prox.query(ctx, dx.data(), int(pts.size()), 0.15f, out.data());
    auto h = out.to_host();
    for (size_t i = 0; i < pts.size(); ++i) {
      int bt;
      float bd = brute_distance(o, pts[i], 0.15f, &bt);
      ASSERT_EQ(h[i].tri < 0, bt < 0) << i;
      if (bt >= 0) ASSERT_NEAR(h[i].distance, bd, 1e-5f);
    }
  }
}

TEST(ObstacleProximity, SharedMeshMatchesBruteForce) {
  CB_REQUIRE_SHARED("data/meshes/pbd/bunny_10k.obj");
  TriMesh m = read_obj(test::shared_path("data/meshes/pbd/bunny_10k.obj"));
  ObstacleSet o;
  o.mesh_x = m.positions;
  o.mesh_x_prev = m.positions;
  o.mesh_tris = m.tris;
  o.mesh_version = 1;
  Aabb b = bounds(m);
  std::mt19937 rng(2);
  std::vector<Vec3f> pts(400);
  for (auto& p : pts) {
    std::uniform_real_distribution<float> u(0.f, 1.f);
    Vec3f e = b.extent();
    p = b.lo - e * 0.1f + Vec3f(u(rng) * e.x, u(rng) * e.y, u(rng) * e.z) * 1.2f;
  }
  float radius = 0.1f * length(b.extent());
  for (const Context& ctx : test::backends()) check_against_brute(ctx, o, pts, radius);
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// A contact carries how sharply the mesh bends away from the query's side
// (mesh_curvature.h): about 1 / R for a point outside a ball, 0 inside it.
TEST(ObstacleProximity, AContactOnABallCarriesItsCurvatureOnTheOutsideOnly) {
  const float r = 0.1f;
  const ObstacleSpec ball = test::mesh_ball(Vec3f{0, 0, 0}, r, 24, 48);
  ObstacleSet o;
  o.mesh_x = ball.mesh.positions;
  o.mesh_x_prev = o.mesh_x;
  o.mesh_tris = ball.mesh.tris;
  MeshRange range;
  range.num_vertices = uint32_t(o.mesh_x.size());
  range.num_tris = uint32_t(o.mesh_tris.size());
  o.meshes = {range};
  o.mesh_version = 1;
  const Vec3f dir = normalize(Vec3f{0.3f, 0.2f, 0.5f});
  const std::vector<Vec3f> pts = {dir * (r + 0.002f), dir * (r - 0.002f)};
  for (const Context& ctx : test::backends()) {
    o.sync(ctx);
    ObstacleProximity prox;
    prox.update(ctx, o, 1.f / 60.f);
    DeviceBuffer<Vec3f> x(ctx, pts);
    DeviceBuffer<ObstacleContact> out;
    out.resize(ctx, pts.size());
    prox.query(ctx, x.data(), int(pts.size()), 0.01f, out.data());
    const std::vector<ObstacleContact> c = out.to_host();
    ASSERT_GE(c[0].tri, 0);
    ASSERT_GE(c[1].tri, 0);
    EXPECT_GT(c[0].curvature, 0.8f / r) << "outside: the ball turns away";
    EXPECT_LT(c[0].curvature, 1.6f / r);
    EXPECT_LT(c[1].curvature, 1e-3f / r) << "inside: it turns towards the point";
  }
}

}  // namespace
}  // namespace cb
