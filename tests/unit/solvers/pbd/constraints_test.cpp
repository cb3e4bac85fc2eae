// XPBD primitives of the pbd solver: the distance constraint, the isometric
// bending stencil and its calibration against the bending stiffness B, and the
// colour-ordered constraint set.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "sim/model/cloth_model.h"
#include "sim/solvers/pbd/constraint_set.h"
#include "sim/solvers/pbd/constraints.h"

namespace cb {
namespace {

TEST(PbdConstraints, SingleDistanceConstraintConvergesToRestLength) {
  Vec3f a{0, 0, 0}, b{1.7f, 0.4f, -0.3f};
  const float wa = 2.f, wb = 0.5f, rest = 0.8f;
  float lambda = 0;
  for (int it = 0; it < 5; ++it) {
    float dl;
    Vec3f c = pbd::distance_step(a, b, wa, wb, rest, 0.f, lambda, &dl);
    lambda += dl;
    a -= c * wa;
    b += c * wb;
  }
  EXPECT_NEAR(length(b - a), rest, 1e-6f);
  // the mass-weighted centre does not move (momentum conserved)
  Vec3f com = (a * (1 / wa) + b * (1 / wb)) / (1 / wa + 1 / wb);
  Vec3f com0 = (Vec3f{0, 0, 0} * (1 / wa) + Vec3f{1.7f, 0.4f, -0.3f} * (1 / wb)) / (1 / wa + 1 / wb);
  EXPECT_NEAR(length(com - com0), 0.f, 1e-6f);
}

TEST(PbdConstraints, CompliantDistanceReachesXpbdEquilibrium) {
  // one free particle below a pinned one, pulled by a force f: XPBD with compliance
  // alpha converges to the spring equilibrium |x| = rest + alpha f (Macklin 2016)
  const float rest = 1.f, alpha = 0.01f, h = 0.01f, m = 0.5f, f = 3.f;
  Vec3f pin{0, 0, 0}, x{0, -rest, 0};
  Vec3f v{};
  for (int step = 0; step < 4000; ++step) {
    Vec3f x0 = x;
    v = v * 0.98f + Vec3f{0, -f / m, 0} * h;  // damped so that it comes to rest
    x += v * h;
    float lambda = 0, dl;
    for (int it = 0; it < 20; ++it) {
      Vec3f c = pbd::distance_step(pin, x, 0.f, 1.f / m, rest, alpha / (h * h), lambda, &dl);
      lambda += dl;
      x += c * (1.f / m);
    }
    v = (x - x0) / h;
  }
  EXPECT_NEAR(length(x - pin), rest + alpha * f, 1e-3f * alpha * f + 1e-5f);
}

TEST(PbdConstraints, FlatHingeHasZeroCurvatureVector) {
  // any flat hinge, also skewed and rotated out of the xy plane
  Vec3f a{0, 0, 0}, b{1, 0.2f, 0}, c{0.3f, 0.9f, 0}, d{0.8f, -0.7f, 0};
  Mat3f r = rotation(normalize(Vec3f{1, 2, 3}), 0.7f);
  a = r * a; b = r * b; c = r * c; d = r * d;
  float k[4];
  pbd::isometric_stencil(a, b, c, d, k);
  EXPECT_NEAR(k[0] + k[1] + k[2] + k[3], 0.f, 1e-5f);
  Vec3f v = a * k[0] + b * k[1] + c * k[2] + d * k[3];
  EXPECT_LT(length(v), 1e-5f);
  // folding the hinge makes it non-zero
  Vec3f n = normalize(cross(b - a, c - a));
  Vec3f vf = a * k[0] + b * k[1] + (c + n * 0.1f) * k[2] + d * k[3];
  EXPECT_GT(length(vf), 0.05f);
}

// 1/2 sum_h |v_h|^2 / (A0 + A1) of a grid bent into a cylinder of curvature kappa,
// divided by 1/2 kappa^2 times the area of the hinge regions: 1 when the
// compliance alpha_h = (A0 + A1) / B makes a cylinder store 1/2 B kappa^2 per area
double cylinder_energy_ratio(GridLayout layout, bool along_x) {
  GridSpec g;
  g.layout = layout;
  g.nx = 61;
  g.ny = 61;
  ClothInput in;
  in.name = "g";
  in.mesh = make_grid(g);
  ClothModel m = build_cloth_model({in});
  const float kappa = 2.f, r = 1.f / kappa;
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) {
    float u = along_x ? p.x : p.y, o = along_x ? p.y : p.x;
    Vec3f q{r * std::sin(u / r), o, r * (1 - std::cos(u / r))};
    p = along_x ? q : Vec3f{q.y, q.x, q.z};
  }
  pbd::HostConstraintSet cs = pbd::build_constraint_set(m);
  double e = 0, area = 0;
  for (size_t h = 0; h < cs.bends.size(); ++h) {
    const Int4 b = cs.bends[h];
    const float* k = cs.bend_coef[h].k;
    Vec3f v = x[b.a] * k[0] + x[b.b] * k[1] + x[b.c] * k[2] + x[b.d] * k[3];
    e += 0.5 * dot(v, v) / cs.bend_factor[h];  // bend_factor = A0 + A1 (one material)
    area += cs.bend_factor[h] / 3;
  }
  return e / (0.5 * kappa * kappa * area);
}

TEST(PbdConstraints, IsometricBendingStoresHalfBKappaSquaredOnACylinder) {
  EXPECT_NEAR(cylinder_energy_ratio(GridLayout::Quad, true), 1.0, 0.03);
  EXPECT_NEAR(cylinder_energy_ratio(GridLayout::Quad, false), 1.0, 0.03);
  EXPECT_NEAR(cylinder_energy_ratio(GridLayout::Equilateral, true), 1.0, 0.03);
  EXPECT_NEAR(cylinder_energy_ratio(GridLayout::Equilateral, false), 1.0, 0.03);
}

// Hinge energy 1/2 sum_h |v_h|^2 / (A0 + A1) of a flat equilateral grid displaced
// by the small quadratic height z = 1/2 (k1 x^2 + k2 y^2) (v_h is linear in x, so
// the energy is exactly quadratic in (k1, k2)).
double quadratic_patch_energy(float k1, float k2) {
  GridSpec g;
  g.layout = GridLayout::Equilateral;
  g.nx = 41;
  g.ny = 41;
  ClothInput in;
  in.name = "g";
  in.mesh = make_grid(g);
  ClothModel m = build_cloth_model({in});
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) p.z = 0.5f * (k1 * p.x * p.x + k2 * p.y * p.y);
  pbd::HostConstraintSet cs = pbd::build_constraint_set(m);
  double e = 0;
  for (size_t h = 0; h < cs.bends.size(); ++h) {
    const Int4 b = cs.bends[h];
    const float* k = cs.bend_coef[h].k;
    Vec3f v = x[b.a] * k[0] + x[b.b] * k[1] + x[b.c] * k[2] + x[b.d] * k[3];
    e += 0.5 * dot(v, v) / cs.bend_factor[h];
  }
  return e;
}

// A plate stores D/2 (k1^2 + k2^2 + 2 nu k1 k2) per area. Each cotangent hinge of
// an equilateral mesh measures k_n - k_t / 3 (normal minus a third of the
// tangential curvature of its edge), so for non-isometric bending the isometric
// energy is a plate with nu = -1/3: a bowl costs 4/3, a saddle 8/3 of a cylinder.
// A narrow free-edged strip therefore bends with (1 - nu^2) D = 8/9 D (cantilever_test).
TEST(PbdConstraints, IsometricBendingIsAPlateWithPoissonMinusAThirdOnEquilateralGrids) {
  const double cyl = quadratic_patch_energy(1.f, 0.f);
  EXPECT_NEAR(quadratic_patch_energy(0.f, 1.f) / cyl, 1.0, 0.02);
  EXPECT_NEAR(quadratic_patch_energy(1.f, 1.f) / cyl, 4.0 / 3.0, 0.02);
  EXPECT_NEAR(quadratic_patch_energy(1.f, -1.f) / cyl, 8.0 / 3.0, 0.03);
}

ClothModel grid_model(GridLayout layout, int n) {
  GridSpec g;
  g.layout = layout;
  g.nx = n;
  g.ny = n + 3;
  ClothInput in;
  in.name = "g";
  in.mesh = make_grid(g);
  in.grid.layout = layout;
  in.grid.nx = g.nx;
  in.grid.ny = g.ny;
  return build_cloth_model({in});
}

TEST(PbdConstraints, ColouringsNeverShareAVertexWithinAColour) {
  for (GridLayout layout : {GridLayout::Quad, GridLayout::Equilateral}) {
    ClothModel m = grid_model(layout, 17);
    std::vector<int32_t> ev, bv;
    for (const Int2& e : m.topo.edges) ev.insert(ev.end(), {e.a, e.b});
    for (const Int4& b : m.topo.bends) bv.insert(bv.end(), {b.a, b.b, b.c, b.d});
    EXPECT_TRUE(coloring_is_valid(m.edge_coloring, ev, 2, m.num_vertices()));
    EXPECT_TRUE(coloring_is_valid(m.bend_coloring, bv, 4, m.num_vertices()));
    // the solver's colour-ordered arrays: each colour range touches each vertex once
    pbd::HostConstraintSet cs = pbd::build_constraint_set(m);
    ASSERT_EQ(cs.edges.size(), m.num_edges());
    for (size_t c = 0; c + 1 < cs.edge_color_start.size(); ++c) {
      std::set<int32_t> seen;
      for (uint32_t k = cs.edge_color_start[c]; k < cs.edge_color_start[c + 1]; ++k) {
        EXPECT_TRUE(seen.insert(cs.edges[k].a).second);
        EXPECT_TRUE(seen.insert(cs.edges[k].b).second);
      }
    }
    for (size_t c = 0; c + 1 < cs.bend_color_start.size(); ++c) {
      std::set<int32_t> seen;
      for (uint32_t k = cs.bend_color_start[c]; k < cs.bend_color_start[c + 1]; ++k)
        for (int32_t v : {cs.bends[k].a, cs.bends[k].b, cs.bends[k].c, cs.bends[k].d}) EXPECT_TRUE(seen.insert(v).second);
    }
  }
}

TEST(PbdConstraints, QuadGridDiagonalsAreShearEdges) {
  ClothModel m = grid_model(GridLayout::Quad, 5);
  pbd::HostConstraintSet cs = pbd::build_constraint_set(m);
  int shear = 0;
  for (size_t e = 0; e < cs.edges.size(); ++e) {
    Vec3f d = m.rest[cs.edges[e].b] - m.rest[cs.edges[e].a];
    bool diagonal = std::fabs(d.x) > 1e-6f && std::fabs(d.y) > 1e-6f;
    EXPECT_EQ(cs.edge_shear[e] != 0, diagonal);
    shear += cs.edge_shear[e];
  }
  EXPECT_EQ(shear, 4 * 7);  // one diagonal per cell
}

}  // namespace
}  // namespace cb
