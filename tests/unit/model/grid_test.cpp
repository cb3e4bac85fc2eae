// Grid generators: counts, spacing, equilateral triangles (Zheng 2021 Figs. 14-17).
#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/model/grid.h"

namespace cb {
namespace {

float edge(const TriMesh& m, int a, int b) { return length(m.positions[size_t(b)] - m.positions[size_t(a)]); }

TEST(Grid, QuadLayoutCountsAndSize) {
  GridSpec g;
  g.nx = 7;
  g.ny = 5;
  g.width = 3.f;
  g.height = 2.f;
  TriMesh m = make_grid(g);
  EXPECT_EQ(m.positions.size(), 35u);
  EXPECT_EQ(m.tris.size(), 6u * 4u * 2u);
  Aabb b = bounds(m);
  EXPECT_NEAR(b.extent().x, 3.f, 1e-6f);
  EXPECT_NEAR(b.extent().y, 2.f, 1e-6f);
  EXPECT_NEAR(b.center().x, 0.f, 1e-6f);
  // every triangle is counter-clockwise seen from +z (normal +z)
  for (const Int3& t : m.tris)
    EXPECT_GT(cross(m.positions[t.b] - m.positions[t.a], m.positions[t.c] - m.positions[t.a]).z, 0.f);
}

TEST(Grid, EquilateralLayoutHasEquilateralTriangles) {
  GridSpec g;
  g.layout = GridLayout::Equilateral;
  g.nx = 6;
  g.ny = 5;
  g.width = 1.f;
  TriMesh m = make_grid(g);
  const float s = grid_spacing(g);
  ASSERT_EQ(m.tris.size(), 5u * 4u * 2u);
  for (const Int3& t : m.tris) {
    EXPECT_NEAR(edge(m, t.a, t.b), s, 1e-5f);
    EXPECT_NEAR(edge(m, t.b, t.c), s, 1e-5f);
    EXPECT_NEAR(edge(m, t.c, t.a), s, 1e-5f);
    EXPECT_GT(cross(m.positions[t.b] - m.positions[t.a], m.positions[t.c] - m.positions[t.a]).z, 0.f);
  }
}

TEST(Grid, InvalidSpecsAreRefused) {
  GridSpec g;
  g.nx = 1;
  EXPECT_THROW(make_grid(g), Error);
  g.nx = 4;
  g.width = -1.f;
  EXPECT_NE(g.validate(), "");
  g.width = 1.f;
  g.nx = g.ny = 20000;
  EXPECT_NE(g.validate().find("limit"), std::string::npos);
}

}  // namespace
}  // namespace cb
