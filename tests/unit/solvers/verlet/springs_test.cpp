// Spring neighbourhoods (Zheng 2021): 12 on the quad lattice, 18 on the
// equilateral lattice, topology-derived on meshes; stiffness mapping and the
// stability softening.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "sim/model/cloth_model.h"
#include "sim/model/grid.h"
#include "sim/solvers/verlet/springs.h"

namespace cb {
namespace {

ClothModel grid_model(GridLayout layout, int nx, int ny, bool with_grid_info) {
  GridSpec g;
  g.layout = layout;
  g.nx = nx, g.ny = ny, g.width = 1.f, g.height = 1.f;
  ClothInput in;
  in.mesh = make_grid(g);
  if (with_grid_info) in.grid = {layout, nx, ny, grid_spacing(g)};
  return build_cloth_model({in});
}

// Counts of (kind, rest length / spacing) in vertex v's row.
void expect_row(const SpringLists& s, uint32_t v, float d, int nstruct, float lshear, int nshear, float lbend,
                int nbend) {
  int c[3] = {0, 0, 0};
  for (uint32_t e = s.offsets[v]; e < s.offsets[v + 1]; ++e) {
    c[s.kind[e]]++;
    float want = s.kind[e] == kStructural ? 1.f : (s.kind[e] == kShear ? lshear : lbend);
    EXPECT_NEAR(s.rest[e] / d, want, 1e-4f) << "kind " << int(s.kind[e]);
  }
  EXPECT_EQ(c[kStructural], nstruct);
  EXPECT_EQ(c[kShear], nshear);
  EXPECT_EQ(c[kBend], nbend);
}

TEST(VerletSprings, QuadLatticeHasTwelveNeighbours) {
  ClothModel m = grid_model(GridLayout::Quad, 9, 9, true);
  SpringLists s = build_springs(m);
  const uint32_t centre = 4 * 9 + 4;
  EXPECT_EQ(s.offsets[centre + 1] - s.offsets[centre], 12u);
  expect_row(s, centre, 1.f / 8.f, 4, std::sqrt(2.f), 4, 2.f, 4);
  expect_row(s, 0, 1.f / 8.f, 2, std::sqrt(2.f), 1, 2.f, 2);  // corner
  // symmetric: j in row i <=> i in row j
  for (uint32_t i = 0; i + 1 < s.offsets.size(); ++i)
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      uint32_t j = s.nbr[e];
      bool back = false;
      for (uint32_t f = s.offsets[j]; f < s.offsets[j + 1]; ++f) back |= s.nbr[f] == i;
      ASSERT_TRUE(back);
    }
}

TEST(VerletSprings, EquilateralLatticeHasEighteenNeighbours) {
  ClothModel m = grid_model(GridLayout::Equilateral, 10, 10, true);
  SpringLists s = build_springs(m);
  const float d = 1.f / 9.f;
  for (uint32_t v : {uint32_t(4 * 10 + 4), uint32_t(5 * 10 + 4)}) {  // even and odd row
    EXPECT_EQ(s.offsets[v + 1] - s.offsets[v], 18u);
    expect_row(s, v, d, 6, std::sqrt(3.f), 6, 2.f, 6);
  }
}

TEST(VerletSprings, MeshesUseEdgesAndBendingPairs) {
  ClothModel m = grid_model(GridLayout::Quad, 6, 5, false);  // no lattice info: topology
  SpringLists s = build_springs(m);
  std::set<std::pair<uint32_t, uint32_t>> edges, bends;
  for (const Int2& e : m.topo.edges) edges.insert({uint32_t(e.a), uint32_t(e.b)});
  for (const Int4& b : m.topo.bends) {
    std::pair<uint32_t, uint32_t> p{uint32_t(std::min(b.c, b.d)), uint32_t(std::max(b.c, b.d))};
    if (!edges.count(p)) bends.insert(p);  // a bending pair that is also an edge stays structural
  }
  size_t nstruct = 0, nbend = 0;
  for (size_t i = 0; i + 1 < s.offsets.size(); ++i)
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) {
      std::pair<uint32_t, uint32_t> p{std::min(uint32_t(i), s.nbr[e]), std::max(uint32_t(i), s.nbr[e])};
      if (s.kind[e] == kStructural) {
        nstruct++;
        EXPECT_TRUE(edges.count(p));
      } else {
        nbend++;
        EXPECT_TRUE(bends.count(p));
      }
    }
  EXPECT_EQ(nstruct, 2 * edges.size());
  EXPECT_EQ(nbend, 2 * bends.size());
}

TEST(VerletSprings, StiffnessFollowsTheMaterialAndIsSoftenedToTheStableLimit) {
  ClothModel m = grid_model(GridLayout::Quad, 9, 9, true);
  SpringLists s = build_springs(m);
  VerletParams p;
  std::vector<float> k, c;
  // a tiny sub-step: nothing softened, k = the material mapping
  EXPECT_EQ(spring_coefficients(m, s, p, 1e-7f, &k, &c), 0u);
  const Material& mat = m.materials[0];
  for (size_t e = 0; e < k.size(); ++e) {
    float want = s.kind[e] == kStructural ? mat.stretch_stiffness
                 : s.kind[e] == kShear    ? mat.shear_stiffness
                                          : mat.bend_stiffness / (s.rest[e] * s.rest[e]);
    ASSERT_NEAR(k[e], want, 1e-3f * want);
  }
  // a frame-sized sub-step: softened so that h^2 w sum(k) + 2 h w sum(c) <= 2 stability
  const float h = 1.f / 240;
  EXPECT_GT(spring_coefficients(m, s, p, h, &k, &c), 0u);
  for (size_t i = 0; i + 1 < s.offsets.size(); ++i) {
    double sk = 0, sc = 0;
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) sk += k[e], sc += c[e];
    EXPECT_LE((h * h * sk + 2.0 * h * sc) / m.mass[i], 2.0 * p.stability * 1.0001);
  }
}

}  // namespace
}  // namespace cb
