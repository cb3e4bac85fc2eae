// Every solver through World: a sheet at rest falls as far at 1,000 sub-steps a
// frame as at 20. Each solver once took a sub-step's velocity from its positions,
// v = (x_new - x0) / h, in float: a step h v below half an ulp of x (6e-8 m at
// 1 m) rounded away, so at 1,000 sub-steps of a 1/60 s frame (g h^2 = 3e-9 m)
// a sheet at rest never started to fall, and at 200 it fell 12 % short.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

// mean drop (m) of a free 4 x 4 sheet at y = 1 m over `frames` frames of 1/60 s
// at `substeps` sub-steps a frame (every solver takes the scene's sub-steps:
// pbd's own count is set to 0)
double mean_drop(const Context& ctx, const std::string& solver, int substeps, int frames) {
  SceneSpec s = test::grid_scene(4, 4, 0.3f, 0.3f, 1.f);
  s.solver = solver;
  s.substeps = substeps;
  if (solver == "pbd") s.solver_params["substeps"] = "0";
  if (solver == "icloth") s.solver_params["self_collision"] = "false";
  World w(ctx, s);
  SimSettings set = w.settings();
  set.check_intersections = false;
  w.set_settings(set);
  const std::vector<Vec3f> x0 = w.positions();
  for (int f = 0; f < frames; ++f) w.step();
  const std::vector<Vec3f> x = w.positions();
  double drop = 0;
  for (size_t i = 0; i < x.size(); ++i) drop += double(x0[i].y) - double(x[i].y);
  return drop / double(x.size());
}

TEST(FreeFallSubsteps, ASheetFallsAsFarAtAThousandSubstepsAsAtTwenty) {
  const int frames = 6;
  const double t = frames / 60.0, free_fall = 0.5 * 9.81 * t * t;  // 4.9 cm
  for (const Context& ctx : test::backends())
    for (const char* solver : {"verlet", "pbd", "icloth"}) {
      const double d20 = mean_drop(ctx, solver, 20, frames);
      // each solver's own damping and time discretisation: within a few % of g t^2 / 2
      EXPECT_NEAR(d20, free_fall, 0.05 * free_fall) << solver << " " << backend_name(ctx.backend);
      // the discretisation's share (g t^2 / 2 / N, N = sub-steps in all) is 0.8 %
      // at 20 and below 0.1 % at 200 or 1,000
      for (int substeps : {200, 1000})
        EXPECT_NEAR(mean_drop(ctx, solver, substeps, frames), d20, 0.012 * d20)
            << solver << " at " << substeps << " sub-steps, " << backend_name(ctx.backend);
    }
}

}  // namespace
}  // namespace cb
