// Parameters of the Verlet mass-spring solver (Zheng 2021; Wojciechowski & Galaj 2016).
#pragma once

#include <string>

#include "sim/solvers/param_table.h"

namespace cb {

/// Where the self-collision detector finds sphere pairs.
enum class SphereStore {
  HashGrid = 0,   ///< sorted hash grid (memory ~ particles, works anywhere in space)
  DenseGrid = 1,  ///< the thesis's dense grid over the cloth's bounding box, one centre per cell
  AllPairs = 2,   ///< the naive all-pairs marble test (Wojciechowski & Galaj 2016, Listing 2)
};

/// How the strain limit shares a stretched spring's excess between its ends.
enum class StrainSplit {
  Mass = 0,   ///< by inverse mass (a position-based projection: momentum kept)
  Equal = 1,  ///< half to each free end (Provot 1995)
};

struct VerletParams {
  /// Sub-steps per frame; 0 = the scene's value.
  int substeps = 0;
  /// Multipliers of the material stiffnesses (see springs.h for the mapping).
  float stretch_scale = 1.f, shear_scale = 1.f, bend_scale = 1.f;
  /// Fraction of the explicit stability limit the summed spring stiffness at a
  /// vertex may reach (springs above it are softened; 1 = at the limit).
  float stability = 0.25f;
  /// Spring damping as a fraction of each spring's critical damping.
  float spring_damping = 0.1f;
  /// 1/s, velocity damping added to the material's.
  float damping = 1.0f;
  /// Strain limiting (Provot 1995) on structural and shear springs: largest
  /// stretch (0.1 = 10 %) and Jacobi iterations per sub-step (0 = off).
  float max_stretch = 0.1f;
  int strain_iterations = 8;
  /// Split by inverse mass, or equally (Provot 1995). On a graded mesh the
  /// light vertices took nearly all of each correction by mass: ../shared's
  /// skirt (2.6 mm edges at the waist, 27 mm at the hem, masses 100:1) had
  /// edges below its waistband stretched 3 to 5-fold at 8 sub-steps and
  /// slid off the hips at 4; split equally, 0.31 and held at 8 (RESULTS.md,
  /// forty-third session). Mass stays the default: the shipped sheets, nearly
  /// uniform, were recorded with it.
  StrainSplit strain_split = StrainSplit::Mass;
  /// Rings (mean structural rest lengths of path) spanned by the strain limit's
  /// long constraints (strain_rows.h), which carry a correction that far in one
  /// pass; 0 = springs only. A fine cloth over an obstacle held its stretch
  /// without them: a 6 mm tablecloth over a sphere at strain 3.7, with reach 8
  /// 0.57 (RESULTS.md, forty-second session).
  int strain_reach = 8;
  /// The obstacles push the cloth out after every strain pass, not only after
  /// the last: the strain limit then converges against them. A fine tablecloth
  /// over a box held edges 3-fold stretched over the box's corners without it,
  /// 1.5 with it (RESULTS.md, forty-second session). Mesh obstacles too since
  /// the forty-third (each vertex against the plane of its closest triangle at
  /// the prediction): the kick skirt's waistband was widened over the hips by
  /// the push-out after the passes in every sub-step.
  bool obstacles_in_passes = true;
  /// Continuous collision against mesh obstacles (obstacle_sweep.h): a vertex
  /// that may have moved farther than the closest-point query's reach relative
  /// to a mesh is stopped where its path first touches it. Without it a sheet
  /// falling 3 m onto a mesh floor went through it (RESULTS.md, forty-fourth
  /// session).
  bool mesh_ccd = true;
  /// Each vertex is held from an obstacle at its thickness plus the sagitta of
  /// its longest edge over the obstacle's curvature at the contact (a mesh's,
  /// a sphere's or capsule's; sim/model/edge_clearance.h), so that its edges
  /// clear a convex body too;
  /// false: at the thickness alone, where ../shared's dress on the kicking
  /// mannequin had the body's edges through its 27 mm hem triangles in 31-76
  /// of 150 frames (RESULTS.md, forty-fifth session).
  bool edge_clearance = true;
  /// Every closed boundary loop (a waistband, a cuff, a hem) gets one
  /// constraint on its length in every strain pass (hoops.h): the passes alone
  /// take back ~1e-4 of an evenly stretched loop's stretch a pass. Without it
  /// ../shared's skirt on the kicking mannequin was pushed over the hips at
  /// 18 % stretch and fell (RESULTS.md, forty-third session).
  bool hoops = true;
  /// Long-range attachments (Kim et al. 2012): no vertex gets farther from its
  /// nearest pin than (1 + max_stretch) x the rest-shape path length between them.
  bool long_range = true;
  /// The mouse grab is projected before the strain limit and its vertices are
  /// held there (as pins are) through the strain passes, so the cloth around
  /// the grab follows it. False: projected after them (the order of the first
  /// versions), where a corner pulled 0.3 m stretched its edges 14-fold into a
  /// spike (RESULTS.md, thirty-eighth session); the tangled-start tests keep
  /// that order for the violent swings they hand over.
  bool grab_holds = true;
  /// Virtual spheres: radius = radius_scale x half the rest length.
  float radius_scale = 1.f;
  SphereStore store = SphereStore::HashGrid;
  /// Hash grid: cells of side 2r/sqrt(3) with a 5x5x5 neighbourhood (the thesis)
  /// when true, else cells of side 2r with 3x3x3 (same contacts, fewer lookups).
  bool thesis_cells = false;
  /// Jacobi iterations of the sphere response per sub-step.
  int collision_iterations = 4;
  /// Fraction of the approaching relative normal velocity removed at contacts.
  float contact_damping = 0.5f;
  /// Contacts kept per sphere (the closest ones).
  int max_contacts = 16;

  ParamTable to_table() const;
  /// Reads a table made by to_table (possibly edited); returns "" or why not.
  std::string from_table(const ParamTable& t);
  /// "" when valid, else the first problem.
  std::string validate() const;
};

}  // namespace cb
