// Small scenes for the pbd solver tests, built in code.
#pragma once

#include <memory>
#include <string>

#include "sim/model/grid.h"
#include "sim/scene/scene.h"
#include "sim/world.h"

namespace cb::test {

/// A World on `ctx` without the per-frame intersection count (these tests check
/// other things, and it would dominate their run time).
inline std::unique_ptr<World> pbd_world(const Context& ctx, SceneSpec scene) {
  auto w = std::make_unique<World>(ctx, std::move(scene));
  SimSettings s = w->settings();
  s.check_intersections = false;
  w->set_settings(s);
  return w;
}

/// A vertical n x n quad grid, 1 m x 1 m, hanging in the xy plane with its top
/// row (y = 1.5 m) pinned; solver pbd.
inline SceneSpec pbd_hanging_sheet(int n) {
  SceneSpec s;
  s.path = "pbd-hanging-sheet";
  ClothSpec c;
  c.name = "sheet";
  GridSpec g;
  g.nx = n;
  g.ny = n;
  c.mesh = make_grid(g);
  for (Vec3f& p : c.mesh.positions) p = Vec3f{p.x, p.y + 1.f, 0.f};
  c.grid.layout = GridLayout::Quad;
  c.grid.nx = n;
  c.grid.ny = n;
  c.grid.spacing = grid_spacing(g);
  for (int i = 0; i < n; ++i) c.pinned.push_back(uint32_t((n - 1) * n + i));
  s.cloths.push_back(c);
  s.solver = "pbd";
  return s;
}

/// Heavy cantilever: an equilateral-layout strip of `segments` cells of overhang
/// L = 0.2 m beyond its clamp (the first two columns pinned), `rows` rows wide,
/// horizontal at y = 0 with x along the strip, strip bending stiffness B chosen so
/// that Gamma = rho_A g L^3 / B. Vertex (i, j) = j * (segments + 2) + i; column 1 is
/// the clamp. The material's bend_stiffness is the plate rigidity D (a cylinder
/// stores 1/2 D kappa^2 per area); on an equilateral grid the isometric energy is a
/// plate with Poisson ratio -1/3 (constraints_test), and a narrow free-edged strip
/// of a plate bends as a rod of stiffness B = (1 - nu^2) D, so D = 9/8 B.
inline SceneSpec pbd_cantilever(float gamma, int segments, int rows) {
  const float L = 0.2f, dx = L / float(segments), rho = 0.2f, g = 9.81f;
  const int nx = segments + 2;
  SceneSpec s;
  s.path = "pbd-cantilever";
  ClothSpec c;
  c.name = "strip";
  GridSpec gs;
  gs.layout = GridLayout::Equilateral;
  gs.nx = nx;
  gs.ny = rows;
  gs.width = dx * float(nx - 1);
  c.mesh = make_grid(gs);
  const Vec3f first = c.mesh.positions[1];
  for (Vec3f& p : c.mesh.positions) p = Vec3f{p.x - first.x, 0.f, p.y};
  c.grid.layout = GridLayout::Equilateral;
  c.grid.nx = nx;
  c.grid.ny = rows;
  c.grid.spacing = dx;
  for (int j = 0; j < rows; ++j) {
    c.pinned.push_back(uint32_t(j * nx));
    c.pinned.push_back(uint32_t(j * nx + 1));
  }
  c.material.density = rho;
  c.material.stretch_stiffness = 1e5f;
  c.material.shear_stiffness = 1e4f;
  const float nu = -1.f / 3.f;
  c.material.bend_stiffness = rho * g * L * L * L / gamma / (1.f - nu * nu);
  c.material.damping = 4.f;
  s.cloths.push_back(c);
  s.env.gravity = Vec3f{0, -9.81f, 0};
  s.solver = "pbd";
  return s;
}

}  // namespace cb::test
