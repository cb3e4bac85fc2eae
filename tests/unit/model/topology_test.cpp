// Topology: Euler characteristic, edges, bending pairs, boundary, rings.
#include <gtest/gtest.h>

#include <algorithm>

#include "sim/model/grid.h"
#include "sim/model/topology.h"

namespace cb {
namespace {

TEST(Topology, GridEulerCharacteristicAndBoundary) {
  GridSpec g;
  g.nx = 6;
  g.ny = 4;
  TriMesh m = make_grid(g);
  Topology t = build_topology(m.positions.size(), m.tris);
  // a disc: V - E + F = 1
  EXPECT_EQ(int(m.positions.size()) - int(t.edges.size()) + int(m.tris.size()), 1);
  EXPECT_EQ(t.boundary_edges.size(), size_t(2 * (g.nx - 1) + 2 * (g.ny - 1)));
  EXPECT_EQ(t.bends.size(), t.edges.size() - t.boundary_edges.size());
  EXPECT_TRUE(t.nonmanifold_edges.empty());
}

TEST(Topology, BendPairsHaveOppositeVerticesOnBothSides) {
  GridSpec g;
  g.nx = 5;
  g.ny = 5;
  TriMesh m = make_grid(g);
  Topology t = build_topology(m.positions.size(), m.tris);
  for (size_t i = 0; i < t.bends.size(); ++i) {
    Int4 b = t.bends[i];
    Int2 e = t.edges[t.bend_edge[i]];
    EXPECT_EQ(std::min(b.a, b.b), e.a);
    EXPECT_EQ(std::max(b.a, b.b), e.b);
    EXPECT_NE(b.c, b.d);
    // the two opposite vertices lie on different sides of the shared edge (flat grid)
    Vec3f ab = m.positions[b.b] - m.positions[b.a];
    float sc = cross(ab, m.positions[b.c] - m.positions[b.a]).z;
    float sd = cross(ab, m.positions[b.d] - m.positions[b.a]).z;
    EXPECT_LT(sc * sd, 0.f);
  }
}

TEST(Topology, RingsOfAnInteriorVertex) {
  GridSpec g;
  g.nx = 7;
  g.ny = 7;
  TriMesh m = make_grid(g);
  Topology t = build_topology(m.positions.size(), m.tris);
  const uint32_t v = 3 * 7 + 3;  // centre
  // valence 6 or 8 with alternating diagonals; 1-ring and 2-ring are disjoint
  EXPECT_GE(t.ring1.degree(v), 4u);
  std::vector<uint32_t> r1(t.ring1.indices.begin() + t.ring1.offsets[v], t.ring1.indices.begin() + t.ring1.offsets[v + 1]);
  for (uint32_t k = t.ring2.offsets[v]; k < t.ring2.offsets[v + 1]; ++k) {
    uint32_t w = t.ring2.indices[k];
    EXPECT_NE(w, v);
    EXPECT_FALSE(std::binary_search(r1.begin(), r1.end(), w));
  }
  EXPECT_GT(t.ring2.degree(v), t.ring1.degree(v));
  EXPECT_EQ(t.vert_tris.degree(v), t.ring1.degree(v));  // interior: as many triangles as neighbours
}

TEST(Topology, NonManifoldEdgeIsFound) {
  std::vector<Int3> tris = {{0, 1, 2}, {1, 0, 3}, {0, 1, 4}};
  Topology t = build_topology(5, tris);
  ASSERT_EQ(t.nonmanifold_edges.size(), 1u);
  EXPECT_EQ(t.edges[t.nonmanifold_edges[0]].a, 0);
  EXPECT_EQ(t.edges[t.nonmanifold_edges[0]].b, 1);
}

}  // namespace
}  // namespace cb
