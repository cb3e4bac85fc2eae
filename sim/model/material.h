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
  /// parts of the rest shape closer than the collision distance are the cloth's
  /// own (a body mesh's arm against its side, a garment's tight pleat): I-Cloth's
  /// repulsion lets them keep that gap (repels below 0.9 x it) instead of pushing
  /// them apart. On for a dropped OBJ (scene_from_obj); "rest_limit" in a scene.
  bool rest_limit = false;
  /// "" when valid, else the first problem ("density must be > 0 (kg/m^2), got -1").
  std::string validate() const;
};

}  // namespace cb
