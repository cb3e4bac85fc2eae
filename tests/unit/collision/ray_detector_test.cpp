// Ray-traced detector (Lehericey et al. 2015): the paper's cases — a sheet
// partly inside a box, two sheets pressed together, a sheet pushed through
// another in one step — with the expected classes and normals, on every backend.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/collision/ray_detector.h"
#include "sim/model/grid.h"
#include "support/test_support.h"

namespace cb {
namespace {

// a cloth of one or more square sheets in planes z = const, normal +z
struct Cloth {
  std::vector<Vec3f> x;
  std::vector<Int3> tris;
  void add_sheet(int n, float size, Vec3f centre) {
    GridSpec s;
    s.nx = s.ny = n;
    s.width = s.height = size;
    TriMesh g = make_grid(s);
    int base = int(x.size());
    for (const Vec3f& p : g.positions) x.push_back(p + centre);
    for (const Int3& t : g.tris) tris.push_back(Int3{t.a + base, t.b + base, t.c + base});
  }
};

// closed box, outward counter-clockwise triangles
void add_box(ObstacleSet& o, Vec3f lo, Vec3f hi) {
  const int b = int(o.mesh_x.size());
  const TriMesh m = test::box_mesh(lo, hi);
  o.mesh_x.insert(o.mesh_x.end(), m.positions.begin(), m.positions.end());
  for (const Int3& t : m.tris) o.mesh_tris.push_back(Int3{b + t.a, b + t.b, b + t.c});
  o.mesh_x_prev = o.mesh_x;
  o.mesh_version++;
}

std::vector<RayContact> detect(const Context& ctx, const Cloth& c, const std::vector<Vec3f>& x_prev,
                               ObstacleSet& obs, const RayDetectorParams& p) {
  obs.sync(ctx);
  RayTracedDetector det;
  det.set_cloth(ctx, c.x.size(), c.tris, vertex_triangles(c.x.size(), c.tris));
  DeviceBuffer<Vec3f> x(ctx, c.x), xp(ctx, x_prev);
  det.detect(ctx, x.data(), xp.data(), obs, p);
  return det.contacts().to_host();
}

TEST(RayDetector, BoxMeshIsOutward) {
  ObstacleSet o;
  add_box(o, Vec3f(-1, -1, -1), Vec3f(1, 1, 1));
  double vol = 0;
  for (const Int3& t : o.mesh_tris)
    vol += dot(Vec3d(o.mesh_x[size_t(t.a)]), cross(Vec3d(o.mesh_x[size_t(t.b)]), Vec3d(o.mesh_x[size_t(t.c)]))) / 6.0;
  EXPECT_NEAR(vol, 8.0, 1e-9);
}

TEST(RayDetector, SheetPartlyInsideBox) {
  // box [-0.2, 0.2] x [-0.2, 0.2] x [-0.3, 0.1]; the sheet at z = 0.05 spans x, y in [-0.5, 0.5]
  Cloth c;
  c.add_sheet(21, 1.f, Vec3f(0.025f, 0.025f, 0.05f));  // lattice off the box walls
  ObstacleSet o;
  add_box(o, Vec3f(-0.2f, -0.2f, -0.3f), Vec3f(0.2f, 0.2f, 0.1f));
  RayDetectorParams p;
  p.thickness = 0.002f;
  p.max_distance = 0.5f;
  for (const Context& ctx : test::backends()) {
    auto r = detect(ctx, c, c.x, o, p);
    size_t nv = c.x.size();
    int inside = 0, outside_hits = 0;
    for (size_t v = 0; v < nv; ++v) {
      Vec3f x = c.x[v];
      bool in = std::fabs(x.x) < 0.2f && std::fabs(x.y) < 0.2f;
      const RayContact& up = r[4 * v + 0];    // ray along +z: exits through the top face
      const RayContact& down = r[4 * v + 2];  // ray along -z: the bottom face, deeper, dropped
      if (in) {
        ++inside;
        ASSERT_EQ(up.cls, kRayCollision) << v;
        EXPECT_EQ(up.kind, kClothObstacle);
        EXPECT_NEAR(up.normal.z, 1.f, 1e-5f);
        EXPECT_NEAR(up.depth, 0.05f + p.thickness, 1e-5f);
        EXPECT_EQ(down.cls, kRayNone) << "the deeper exit must be dropped";
      } else if (std::fabs(x.x) > 0.21f || std::fabs(x.y) > 0.21f) {
        outside_hits += up.cls != kRayNone || down.cls != kRayNone;
      }
      EXPECT_EQ(r[4 * v + 1].cls, kRayNone);  // one flat sheet: no cloth-cloth hits
      EXPECT_EQ(r[4 * v + 3].cls, kRayNone);
    }
    EXPECT_EQ(inside, 64);  // 8 x 8 lattice points inside
    EXPECT_EQ(outside_hits, 0);
    // volumetric -> cloth: the 4 top corners of the box look into the box through the sheet
    int corner_hits = 0;
    for (size_t j = 0; j < o.mesh_x.size(); ++j) {
      const RayContact& k = r[4 * nv + j];
      if (k.cls != kRayCollision) continue;
      ++corner_hits;
      EXPECT_NEAR(o.mesh_x[j].z, 0.1f, 1e-6f);
      EXPECT_GT(k.normal.z, 0.3f);  // outward corner normal, upwards
      EXPECT_GT(dot(k.normal, o.mesh_x[j] - Vec3f(0, 0, -0.1f)), 0.f);
      EXPECT_EQ(k.kind, kObstacleCloth);
      EXPECT_GE(k.tri, 0);
    }
    EXPECT_EQ(corner_hits, 4);
  }
}

TEST(RayDetector, SheetAboveBoxIsPredictedOrColliding) {
  ObstacleSet o;
  add_box(o, Vec3f(-0.2f, -0.2f, -0.3f), Vec3f(0.2f, 0.2f, 0.1f));
  RayDetectorParams p;
  p.thickness = 0.002f;
  p.prediction = 0.004f;
  for (float gap : {0.001f, 0.003f, 0.008f}) {
    Cloth c;
    c.add_sheet(5, 0.2f, Vec3f(0.01f, 0.01f, 0.1f + gap));
    for (const Context& ctx : test::backends()) {
      auto r = detect(ctx, c, c.x, o, p);
      for (size_t v = 0; v < c.x.size(); ++v) {
        const RayContact& down = r[4 * v + 2];
        int expected = gap < 0.002f ? kRayCollision : (gap < 0.006f ? kRayPrediction : kRayNone);
        ASSERT_EQ(int(down.cls), expected) << gap;
        if (expected == kRayNone) continue;
        EXPECT_NEAR(down.normal.z, 1.f, 1e-6f);
        EXPECT_NEAR(down.depth, 0.002f - gap, 1e-6f);
        EXPECT_NEAR(down.w[0] + down.w[1] + down.w[2], 1.f, 1e-6f);
      }
    }
  }
}

TEST(RayDetector, ObliqueHitsAreReprojectedOnTheNormal) {
  // a ray at 60 degrees from the face normal hits at s = 4 mm: the surface is 2 mm away
  RayContact c;
  Vec3f dir(std::sin(1.0471976f), 0.f, -std::cos(1.0471976f));
  classify_cloth_obstacle(dir, Vec3f(0, 0, 1), 0.004f, 0.0025f, 0.001f, &c);
  EXPECT_EQ(c.cls, kRayCollision);
  EXPECT_NEAR(c.depth, 0.0005f, 1e-6f);
  RayContact k;
  classify_cloth_cloth(dir, Vec3f(0, 0, 1), 0.004f, 0.001f, 0.0015f, 1, 1, true, &k);
  EXPECT_EQ(k.cls, kRayPrediction);  // 2 mm against a contact distance of 1 mm + 1.5 mm margin
}

TEST(RayDetector, TwoSheetsPressedTogether) {
  RayDetectorParams p;
  p.thickness = 0.002f;  // contact distance e + e' = 4 mm
  p.prediction = 0.004f;
  for (float gap : {0.003f, 0.006f, 0.01f}) {
    Cloth c;
    c.add_sheet(11, 0.5f, Vec3f(0, 0, 0));
    c.add_sheet(11, 0.5f, Vec3f(0.013f, 0.011f, gap));  // offset so that rays meet triangle interiors
    ObstacleSet none;
    for (const Context& ctx : test::backends()) {
      auto r = detect(ctx, c, c.x, none, p);
      size_t half = c.x.size() / 2;
      int expected = gap < 0.004f ? kRayCollision : (gap < 0.008f ? kRayPrediction : kRayNone);
      int checked = 0;
      for (size_t v = 0; v < c.x.size(); ++v) {
        bool lower = v < half;
        const RayContact& k = r[4 * v + (lower ? 1 : 3)];  // the ray towards the other sheet
        if (std::fabs(c.x[v].x) > 0.2f || std::fabs(c.x[v].y) > 0.2f) continue;  // away from the borders
        ++checked;
        ASSERT_EQ(int(k.cls), expected) << "gap " << gap << " vertex " << v;
        if (expected == kRayNone) continue;
        EXPECT_EQ(k.kind, kClothCloth);
        EXPECT_NEAR(k.normal.z, lower ? -1.f : 1.f, 1e-5f);  // apart
        EXPECT_NEAR(k.depth, 0.004f - gap, 1e-5f);
        EXPECT_EQ(k.inverted, 0);
        EXPECT_EQ(r[4 * v + (lower ? 3 : 1)].cls, kRayNone);  // nothing on the other side
      }
      EXPECT_GT(checked, 100);
    }
  }
}

TEST(RayDetector, SheetPushedThroughAnotherIsInverted) {
  // sheet B was 10 mm above sheet A and is now 10 mm below it
  Cloth c;
  c.add_sheet(11, 0.5f, Vec3f(0, 0, 0));
  c.add_sheet(11, 0.5f, Vec3f(0.013f, 0.011f, -0.01f));
  std::vector<Vec3f> prev = c.x;
  size_t half = c.x.size() / 2;
  for (size_t v = half; v < prev.size(); ++v) prev[v].z = 0.01f;
  RayDetectorParams p;
  p.thickness = 0.002f;
  ObstacleSet none;
  for (const Context& ctx : test::backends()) {
    auto r = detect(ctx, c, prev, none, p);
    int checked = 0;
    for (size_t v = 0; v < c.x.size(); ++v) {
      if (std::fabs(c.x[v].x) > 0.2f || std::fabs(c.x[v].y) > 0.2f) continue;
      bool lower_now = v >= half;  // B is below now
      const RayContact& k = r[4 * v + (lower_now ? 1 : 3)];
      ++checked;
      ASSERT_EQ(k.cls, kRayCollision) << v;
      EXPECT_EQ(k.inverted, 1);
      // back to where it came from: B up, A down
      EXPECT_NEAR(k.normal.z, lower_now ? 1.f : -1.f, 1e-5f);
      EXPECT_NEAR(k.depth, 0.01f + 0.004f, 1e-5f);
    }
    EXPECT_GT(checked, 100);
  }
}

}  // namespace
}  // namespace cb
