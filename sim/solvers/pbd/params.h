// Parameters of the `pbd` solver (XPBD with coloured Gauss-Seidel or Jacobi).
//
// Compliances (inverse stiffnesses) are given for the FIRST cloth of the model;
// other cloths keep their material's stiffness ratio to it. Their defaults come
// from the Material (see defaults_from_material):
//   stretch_compliance = 1 / stretch_stiffness  (m/N; membrane modulus Y, N/m)
//   shear_compliance   = 1 / shear_stiffness    (m/N; quad-grid diagonals only)
//   bend_compliance    = 1 / bend_stiffness     (1/(N m); B per unit width)
// Per constraint (see constraint_set.h):
//   edge  e: alpha_e = compliance * l_e^2 / A_e, A_e = a third of the adjacent
//            triangle areas, so a uniform dilation eps stores 1/2 Y eps^2 per area;
//   hinge h: alpha_h = bend_compliance * (A0 + A1), the isometric-bending energy
//            calibrated so a cylinder of curvature kappa stores 1/2 B kappa^2 per area.
#pragma once

#include <string>

#include "sim/model/material.h"
#include "sim/solvers/param_table.h"

namespace cb {

enum class PbdMode { GaussSeidel = 0, Jacobi = 1 };

/// How a constraint's projection shares its correction between its vertices.
enum class PbdSplit {
  Mass = 0,   ///< by inverse mass (XPBD: momentum kept)
  Equal = 1,  ///< as if every free vertex had the cloth's mean mass
};

struct PbdParams {
  int iterations = 3;    ///< constraint iterations per substep
  int substeps = 20;     ///< substeps per frame (Macklin 2019: many small steps); 0 = the Simulation panel's value
  PbdMode mode = PbdMode::GaussSeidel;
  /// By inverse mass, or equally. On a graded mesh the light vertices take
  /// nearly all of each correction by mass and the Gauss-Seidel passes do not
  /// carry the load across the grading: ../shared's skirt (2.6 mm edges at the
  /// waist, 27 mm at the hem, masses 100:1) had its waist edges stretched 4 to
  /// 6-fold on the kicking mannequin (RESULTS.md, thirty-second and
  /// forty-fifth sessions). Mass stays the default (physics: the projection
  /// keeps momentum); the garment scenes ask for equal (solver.params_of).
  PbdSplit split = PbdSplit::Mass;
  float jacobi_omega = 1.5f;
  float sor = 1.f;            ///< Gauss-Seidel over-relaxation of each step, in (0, 2); above ~1.5 stiff cloth may diverge  ///< Jacobi relaxation (averaged corrections times omega), in (0, 2]
  float stretch_compliance = 2e-4f;  ///< m/N, 1 / membrane stretch stiffness
  float shear_compliance = 2e-3f;    ///< m/N, 1 / shear stiffness (quad-grid diagonal edges)
  float bend_compliance = 1e5f;      ///< 1/(N m), 1 / bending stiffness B
  bool bending = true;               ///< bending constraints on/off
  /// Every closed boundary loop (a waistband, a hem) may be at most this much
  /// longer than at rest as a whole (sim/model/hoops.h), projected after each
  /// iteration's membrane; negative = off. The Gauss-Seidel membrane carries a
  /// loop's load slowly: ../shared's skirt on the kicking mannequin had its
  /// waistband 17 % long and sat at the hips' widest (0.81 m; with 1 %:
  /// 0.89 m, I-Cloth 0.90; RESULTS.md, forty-third session). 1 % is above
  /// what a converged membrane of a woven fabric reaches under a garment's
  /// weight; raise it for stretchy knits.
  float hoop_stretch = 0.01f;
  /// Each vertex is held from an obstacle at its thickness plus the sagitta of
  /// its longest edge over the obstacle's curvature at the contact (a mesh's,
  /// a sphere's or capsule's; sim/model/edge_clearance.h), so that its edges
  /// clear a convex body too;
  /// false: at the thickness alone, where ../shared's dress on the kicking
  /// mannequin had the body's edges through its 27 mm hem triangles in 66 of
  /// 150 frames (RESULTS.md, forty-fifth session).
  bool edge_clearance = true;
  bool self_collision = true;        ///< particle-particle self-collision (also needs the scene switch)
  float self_radius = 0.f;           ///< m, self-collision particle radius; 0 = max(thickness / 2, 0.3 mean edge length)
  bool measure_residual = false;     ///< report the constraint residual in the stats (costs a reduction)
  /// Most passes of the takeover settle (PbdSolver::settle): on its first step the
  /// solver projects the state it was handed onto its constraints without turning
  /// the correction into velocity, until a pass moves no vertex faster than
  /// kSettleSpeed; 0 = off (the correction then becomes velocity in the first
  /// substeps, as plain XPBD would do)
  int settle_passes = 2000;
  /// Most frames of the takeover ease (sim/model/takeover_ease.h): from the first
  /// substep of a state taken over at time > 0, after the settle, a substep may end
  /// with no more kinetic energy than it started with plus gravity's gain over it
  /// (the velocities are scaled down to that), until a frame needs no cap or after
  /// this many frames; 0 = off
  int ease_frames = 30;

  /// "" when valid, else the first problem.
  std::string validate() const;
  ParamTable to_table() const;
  /// Reads a table made by to_table (then validate()). Unknown names are ignored.
  static PbdParams from_table(const ParamTable& t);
  /// Defaults whose compliances come from the material `m` (1 / stiffness).
  static PbdParams defaults_from_material(const Material& m);
};

}  // namespace cb
