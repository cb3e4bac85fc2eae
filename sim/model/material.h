// Cloth material: what a scene file sets per cloth. Solvers read what they use.
#pragma once

#include <string>

namespace cb {

struct Material {
  float density = 0.2f;           ///< areal density, kg/m^2
  float stretch_stiffness = 5e3f; ///< N/m, in-plane stretch (membrane Young's modulus x thickness)
  float shear_stiffness = 5e2f;   ///< N/m, in-plane shear
  float bend_stiffness = 1e-5f;   ///< N m, bending stiffness B per unit width
  float damping = 0.01f;          ///< 1/s, mass-proportional velocity damping
  float thickness = 0.004f;       ///< m, collision thickness
  float friction = 0.3f;          ///< Coulomb coefficient against obstacles and itself
  /// "" when valid, else the first problem ("density must be > 0 (kg/m^2), got -1").
  std::string validate() const;
};

}  // namespace cb
