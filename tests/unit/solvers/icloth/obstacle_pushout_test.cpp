// Cloth inside a mesh obstacle pushed out to its surface (obstacle_pushout.h),
// the first part of the untangle of a start crossed with a body. The solver's
// use on a skirt through the kicking mannequin's hips: scenes_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/collision/ray_detector.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "sim/scene/obstacle_set.h"
#include "sim/solvers/icloth/obstacle_pushout.h"
#include "support/test_support.h"

namespace cb {
namespace {

// A 1 m sheet (21 x 21 cells, normal +z) at z = 0.05 through the box
// [-0.2, 0.2]^2 x [-0.3, 0.1]: its 8 x 8 vertices inside are 5 cm under the
// top face and 35 cm over the bottom one. Each free one flagged near moves
// straight up to e above the top face (the shallower exit); one inside is
// pinned and one is not flagged: both stay, as does every vertex outside.
TEST(ObstaclePushOut, ASheetThroughABoxIsPushedOutOfItsTop) {
  GridSpec g;
  g.nx = g.ny = 21;
  g.width = g.height = 1.f;
  const TriMesh m = make_grid(g);
  std::vector<Vec3f> x0;
  for (const Vec3f& p : m.positions) x0.push_back(p + Vec3f(0.025f, 0.025f, 0.05f));  // lattice off the walls
  ObstacleSet o;  // one closed box, outward
  const TriMesh box = test::box_mesh(Vec3f(-0.2f, -0.2f, -0.3f), Vec3f(0.2f, 0.2f, 0.1f));
  o.mesh_x = o.mesh_x_prev = box.positions;
  o.mesh_tris = box.tris;
  const auto inside = [](Vec3f p) { return std::fabs(p.x) < 0.2f && std::fabs(p.y) < 0.2f; };
  std::vector<float> inv_mass(x0.size(), 1.f);
  std::vector<uint8_t> near(x0.size(), 1);
  size_t pinned = 0, unflagged = 0, free_inside = 0;
  for (size_t v = 0; v < x0.size(); ++v) {
    if (!inside(x0[v])) continue;
    if (pinned == 0) pinned = v, inv_mass[v] = 0.f;
    else if (unflagged == 0) unflagged = v, near[v] = 0;
    else ++free_inside;
  }
  ASSERT_EQ(free_inside, 62u);
  icloth::PushOutSettings s;
  s.half_thickness = 0.002f;
  s.ray_length = 0.5f;
  s.rim_rounds = 0;  // the pushes alone (the rim: scenes_test.cpp's pedestal)
  const Csr ring1 = build_topology(x0.size(), m.tris).ring1;
  for (const Context& ctx : test::backends()) {
    o.sync(ctx);
    DeviceBuffer<Vec3f> x(ctx, x0);
    const icloth::PushOutResult r = icloth::push_out_of_obstacles(ctx, m.tris, vertex_triangles(x0.size(), m.tris),
                                                                  ring1, o, inv_mass, near, s, x);
    EXPECT_EQ(r.moved, free_inside) << backend_name(ctx.backend);
    EXPECT_EQ(r.passes, 1) << "the second pass finds none inside";
    const std::vector<Vec3f> y = x.to_host();
    for (size_t v = 0; v < y.size(); ++v) {
      if (inside(x0[v]) && v != pinned && v != unflagged) {
        EXPECT_NEAR(y[v].z, 0.1f + s.half_thickness, 1e-5f) << "vertex " << v;
        EXPECT_NEAR(y[v].x, x0[v].x, 1e-6f) << "straight up: the exit point is over the vertex";
        EXPECT_NEAR(y[v].y, x0[v].y, 1e-6f);
      } else {
        EXPECT_EQ(y[v], x0[v]) << "vertex " << v << (v == pinned ? " (pinned)" : v == unflagged ? " (not near)" : "");
      }
    }
  }
}

}  // namespace
}  // namespace cb
