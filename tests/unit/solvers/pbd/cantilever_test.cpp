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

// Tabulated H/W (elastica) and the tolerance: 10% (issue 5). The strip's free
// long edges let it curl across its width: the isometric energy on an equilateral
// grid is a plate with Poisson ratio -1/3 (constraints_test), so the narrow strip
// bends synclastically (measured k_yy / k_xx ~ +1/3 at Gamma = 1) with rod
// stiffness (1 - nu^2) D = 8/9 D; pbd_cantilever sets D = 9/8 B accordingly.
// Measured (20 segments, 4 rows, equilateral): H/W 0.1289 (+3.4%) at Gamma = 1,
// 0.8847 (-0.0%) at 8, 1.8139 (-2.7%) at 20; with D = B instead (cylinder
// calibration only) +15%, +9%, +6%. At large deflection the strip is partly held
// flat across its width (curvature is high near the clamp), so it is then a
// little stiffer than the narrow-strip limit.
struct Case {
  float gamma;
  double h_over_w;
  double tol;
};

TEST(PbdCantilever, TipDropMatchesTheElasticaTable) {
  const Case cases[] = {{1.f, 0.1247, 0.10}, {8.f, 0.8849, 0.10}, {20.f, 1.8643, 0.10}};
  for (const Context& ctx : test::backends())
    for (const Case& c : cases) {
      double r = cantilever(ctx, c.gamma);
      std::printf("Gamma %g: H/W %.4f (table %.4f)\n", double(c.gamma), r, c.h_over_w);
      EXPECT_NEAR(r / c.h_over_w, 1.0, c.tol) << "Gamma " << c.gamma << ": H/W " << r << ", table " << c.h_over_w;
    }
}

}  // namespace
}  // namespace cb
