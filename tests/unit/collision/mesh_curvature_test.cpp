// How sharply an obstacle mesh bends away at each triangle (mesh_curvature.h):
// neighbours across edges, a ball's curvature outside and inside, a flat mesh,
// and the two sides of a fold.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/collision/mesh_curvature.h"
#include "sim/core/buffer.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::vector<TriangleBend> bends(const Context& ctx, const std::vector<Vec3f>& x, const std::vector<Int3>& tris) {
  DeviceBuffer<Vec3f> dx(ctx, x);
  DeviceBuffer<Int3> dt(ctx, tris), dn(ctx, triangle_neighbours(tris));
  DeviceBuffer<TriangleBend> out;
  out.resize(ctx, tris.size());
  triangle_curvature(ctx, dx.data(), dt.data(), dn.data(), int(tris.size()), out.data());
  return out.to_host();
}

TEST(TriangleNeighbours, FindsTheTriangleAcrossEachEdgeAndNoneAtABoundaryOrAFin) {
  // two triangles on the edge (0, 1); a third on (1, 2) alone
  const std::vector<Int3> pair = {{0, 1, 2}, {1, 0, 3}};
  const std::vector<Int3> n = triangle_neighbours(pair);
  EXPECT_EQ(n[0].a, 1);  // edge (0, 1)
  EXPECT_EQ(n[0].b, -1);
  EXPECT_EQ(n[0].c, -1);
  EXPECT_EQ(n[1].a, 0);
  // a fin: three triangles on the edge (0, 1) have no neighbour across it
  const std::vector<Int3> fin = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
  for (const Int3& t : triangle_neighbours(fin)) EXPECT_EQ(t.a, -1);
}

TEST(TriangleCurvature, ABallBendsAwayAtAboutOneOverItsRadiusOutsideAndNotInside) {
  const float r = 0.1f;
  const ObstacleSpec ball = test::mesh_ball(Vec3f{0, 0, 0}, r, 24, 48);
  for (const Context& ctx : test::backends()) {
    const std::vector<TriangleBend> b = bends(ctx, ball.mesh.positions, ball.mesh.tris);
    for (size_t t = 0; t < b.size(); ++t) {
      // (a quad's two triangles lie in one plane: rounding puts either behind the other)
      EXPECT_LT(b[t].back, 1e-3f / r) << "seen from inside the ball every neighbour turns towards it, triangle " << t;
      const Int3 tri = ball.mesh.tris[t];
      const Vec3f c = (ball.mesh.positions[size_t(tri.a)] + ball.mesh.positions[size_t(tri.b)] +
                       ball.mesh.positions[size_t(tri.c)]) * (1.f / 3.f);
      if (std::fabs(c.y) > 0.9f * r) continue;  // the poles' thin fans bend at other rates
      EXPECT_GT(b[t].front, 0.8f / r) << "triangle " << t;
      EXPECT_LT(b[t].front, 1.6f / r) << "triangle " << t;
    }
  }
}

TEST(TriangleCurvature, AFlatMeshDoesNotBend) {
  const TriMesh plate = test::box_mesh(Vec3f{0, 0, 0}, Vec3f{1, 1, 1});  // faces of two coplanar triangles
  const std::vector<Int3> top = {plate.tris[0], plate.tris[1]};
  for (const Context& ctx : test::backends())
    for (const TriangleBend& b : bends(ctx, plate.positions, top)) {
      EXPECT_EQ(b.front, 0.f);
      EXPECT_EQ(b.back, 0.f);
    }
}

// Two unit right triangles folded along the x axis by 90 degrees: seen from
// the side the first one's normal points to, the second turns away (a ridge)
// at (pi / 2) / (the centroids' distance); from the other side it is a crease.
TEST(TriangleCurvature, AFoldIsARidgeFromOneSideAndACreaseFromTheOther) {
  const std::vector<Vec3f> x = {{0, 0, 0}, {1, 0, 0}, {0, 0, -1}, {0, -1, 0}};
  const std::vector<Int3> tris = {{0, 1, 2}, {1, 0, 3}};  // normals +y and +z: the fold's outside faces +y, +z
  const float d = length(Vec3f{1.f / 3.f, 0, -1.f / 3.f} - Vec3f{1.f / 3.f, -1.f / 3.f, 0});
  for (const Context& ctx : test::backends()) {
    const std::vector<TriangleBend> b = bends(ctx, x, tris);
    EXPECT_NEAR(b[0].front, 1.5707963f / d, 1e-4f);
    EXPECT_EQ(b[0].back, 0.f);
    EXPECT_NEAR(b[1].front, 1.5707963f / d, 1e-4f);
    EXPECT_EQ(b[1].back, 0.f);
  }
  // the same fold wound the other way: now the ridge is behind both faces
  const std::vector<Int3> flipped = {{0, 2, 1}, {1, 3, 0}};
  for (const Context& ctx : test::backends()) {
    const std::vector<TriangleBend> b = bends(ctx, x, flipped);
    EXPECT_EQ(b[0].front, 0.f);
    EXPECT_NEAR(b[0].back, 1.5707963f / d, 1e-4f);
  }
}

}  // namespace
}  // namespace cb
