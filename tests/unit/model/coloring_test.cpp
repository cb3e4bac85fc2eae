// Greedy colouring: no two elements of one colour share a vertex.
#include <gtest/gtest.h>

#include "sim/model/cloth_model.h"
#include "sim/model/coloring.h"

namespace cb {
namespace {

ClothModel grid_model(GridLayout layout, int n) {
  GridSpec g;
  g.layout = layout;
  g.nx = g.ny = n;
  return build_cloth_model({{"grid", make_grid(g), Material{}, GridInfo{}}});
}

std::vector<int32_t> flat(const std::vector<Int2>& e) {
  std::vector<int32_t> v;
  for (const Int2& x : e) v.insert(v.end(), {x.a, x.b});
  return v;
}

TEST(Coloring, EdgesAndBendPairsAreValidlyColoured) {
  for (GridLayout layout : {GridLayout::Quad, GridLayout::Equilateral}) {
    ClothModel m = grid_model(layout, 24);
    EXPECT_TRUE(coloring_is_valid(m.edge_coloring, flat(m.topo.edges), 2, m.num_vertices()));
    std::vector<int32_t> bv;
    for (const Int4& b : m.topo.bends) bv.insert(bv.end(), {b.a, b.b, b.c, b.d});
    EXPECT_TRUE(coloring_is_valid(m.bend_coloring, bv, 4, m.num_vertices()));
    // greedy on a grid: edges need at least max valence colours, and not many more
    EXPECT_GE(m.edge_coloring.num_colors(), 6);
    EXPECT_LE(m.edge_coloring.num_colors(), 16);
  }
}

TEST(Coloring, ValidatorCatchesAConflict) {
  Coloring c;
  c.order = {0, 1};
  c.color_start = {0, 2};  // both edges in colour 0, sharing vertex 1
  EXPECT_FALSE(coloring_is_valid(c, {0, 1, 1, 2}, 2, 3));
}

TEST(ClothModel, MassIsDensityTimesAreaAndPiecesConcatenate) {
  GridSpec g;
  g.nx = g.ny = 11;
  g.width = g.height = 2.f;
  Material a, b;
  a.density = 0.25f;
  b.density = 1.f;
  ClothModel m = build_cloth_model({{"a", make_grid(g), a, {}}, {"b", make_grid(g), b, {}}});
  ASSERT_EQ(m.pieces.size(), 2u);
  EXPECT_EQ(m.pieces[1].first_vertex, 121u);
  double ma = 0, mb = 0;
  for (size_t v = 0; v < m.num_vertices(); ++v) (v < 121 ? ma : mb) += m.mass[v];
  EXPECT_NEAR(ma, 0.25 * 4.0, 1e-5);
  EXPECT_NEAR(mb, 1.0 * 4.0, 1e-5);
  // the second piece's triangles refer to its own vertices
  for (uint32_t t = m.pieces[1].first_tri; t < m.num_tris(); ++t) EXPECT_GE(m.tris[t].a, 121);
  EXPECT_NEAR(m.rest_edge_length[0], 0.2f, 1e-6f);
}

}  // namespace
}  // namespace cb
