// The bending model against the heavy cantilever (Romero et al. 2021; table in
// ../shared/data/README.md): a strip clamped at one end (two pinned columns)
// sagging under its own weight, Gamma = rho_A g L^3 / B, tip drop H over reach W.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "support/test_support.h"
#include "unit/solvers/pbd/pbd_scenes.h"

namespace cb {
namespace {

// H/W at rest: clamp = mean of column 1, tip = mean of the last column
double tip_drop_ratio(const World& w, int nx, int rows) {
  std::vector<Vec3f> x = w.positions();
  Vec3f clamp{}, tip{};
  for (int j = 0; j < rows; ++j) {
    clamp += x[size_t(j * nx + 1)] / float(rows);
    tip += x[size_t(j * nx + nx - 1)] / float(rows);
  }
  return (clamp.y - tip.y) / (tip.x - clamp.x);
}

double cantilever(const Context& ctx, float gamma) {
  const int segments = 20, rows = 4;
  auto w_ptr = test::pbd_world(ctx, test::pbd_cantilever(gamma, segments, rows));
World& w = *w_ptr;
  EXPECT_EQ(w.set_solver_param("substeps", "32"), "");
  EXPECT_EQ(w.set_solver_param("iterations", "40"), "");
  for (int f = 0; f < 180; ++f) w.step();
  EXPECT_FALSE(w.stats().has_nan);
  return tip_drop_ratio(w, segments + 2, rows);
}

// Tabulated H/W (elastica) and the tolerance this discretisation meets. The
// isometric hinge energy is exact for uniform curvature (see constraints_test),
// but under the cantilever's non-uniform curvature the discrete strip is softer
// than the elastica. Measured (20 segments, 4 rows, equilateral): H/W 0.143
// (+15%) at Gamma = 1, 0.965 (+9%) at 8, 1.978 (+6%) at 20. The Gamma = 1 excess
// is the model's, not the solver's: a direct linear solve of the same discrete
// energy (z displacements, small deflection) gives +15% for this strip too, so
// that case is held to 20% and the two large-deflection cases to the 10% target.
struct Case {
  float gamma;
  double h_over_w;
  double tol;
};

TEST(PbdCantilever, TipDropMatchesTheElasticaTable) {
  const Case cases[] = {{1.f, 0.1247, 0.20}, {8.f, 0.8849, 0.10}, {20.f, 1.8643, 0.10}};
  for (const Context& ctx : test::backends())
    for (const Case& c : cases) {
      double r = cantilever(ctx, c.gamma);
      std::printf("Gamma %g: H/W %.4f (table %.4f)\n", double(c.gamma), r, c.h_over_w);
      EXPECT_NEAR(r / c.h_over_w, 1.0, c.tol) << "Gamma " << c.gamma << ": H/W " << r << ", table " << c.h_over_w;
      EXPECT_GT(r, c.h_over_w);  // the discrete model errs on the soft side
    }
}

}  // namespace
}  // namespace cb
