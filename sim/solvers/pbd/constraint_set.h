// The pbd solver's constraints, built once per model on the host and uploaded:
// stretch/shear edges and isometric-bending hinges in colour order (so one colour
// is a contiguous range), per-constraint compliance factors, per-vertex data, and
// the vertex -> constraint adjacency that the Jacobi mode gathers through.
//
// Compliance factors (multiply the user's compliance; see params.h):
//   structural edge e: l_e^2 / (3 A_e), A_e = a third of the adjacent triangle
//     areas. For an equilateral spring lattice this gives exactly a membrane of
//     2D Young's modulus Y (Poisson 1/3); for a quad grid the axis-aligned edges
//     give uniaxial modulus Y along the grid axes.
//   shear edge (a diagonal of a quad-grid cell): 1/2, i.e. spring stiffness 2 G,
//     which gives the lattice shear modulus G.
//   hinge h: (A0 + A1) / 3 * kappa_cal with kappa_cal = 3: a cylinder of curvature
//     kappa bent along a grid axis stores 1/2 B kappa^2 per unit area (checked by
//     the unit test; bending along a quad-grid diagonal is ~1.5x stiffer).
// Cloths after the first scale their factors by (first material stiffness / own).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/cloth_model.h"

namespace cb::pbd {

/// Isometric-bending weights of one hinge (a, b, c, d).
struct BendCoef {
  float k[4];
};

/// Host arrays (built by build_constraint_set).
struct HostConstraintSet {
  std::vector<Int2> edges;              ///< (nedges) colour order
  std::vector<float> edge_rest;         ///< (nedges) m
  std::vector<float> edge_factor;       ///< (nedges) dimensionless: alpha_e = factor * stretch (or shear) compliance
  std::vector<uint8_t> edge_shear;      ///< (nedges) 1 = shear edge (uses shear_compliance)
  std::vector<float> edge_theta;        ///< (nedges) Jacobi scale 1 / max vertex degree
  std::vector<uint32_t> edge_color_start;  ///< (ncolors + 1)
  std::vector<Int4> bends;              ///< (nbends) colour order
  std::vector<BendCoef> bend_coef;      ///< (nbends)
  std::vector<float> bend_factor;       ///< (nbends) m^2 (alpha_h = factor * bend_compliance)
  std::vector<float> bend_rest_norm;    ///< (nbends) |v| at rest, 0 for (nearly) flat hinges
  std::vector<float> bend_theta;        ///< (nbends) Jacobi scale
  std::vector<uint32_t> bend_color_start;  ///< (ncolors + 1)
  std::vector<uint32_t> vert_edge_off;  ///< (nverts + 1) CSR rows
  std::vector<int32_t> vert_edge;       ///< signed: +(e+1) vertex is edge end b, -(e+1) end a
  std::vector<uint32_t> vert_bend_off;  ///< (nverts + 1)
  std::vector<uint32_t> vert_bend;      ///< bend * 4 + slot
  std::vector<float> vert_area;         ///< (nverts) m^2, a third of the adjacent triangle areas
  std::vector<float> vert_damping;      ///< (nverts) 1/s, the material's
  std::vector<float> vert_thickness;    ///< (nverts) m, the material's collision thickness
};

/// Builds the constraint set of `model` (colourings from the model).
HostConstraintSet build_constraint_set(const ClothModel& model);

/// The same arrays in backend memory.
struct DeviceConstraintSet {
  DeviceBuffer<Int2> edges;
  DeviceBuffer<float> edge_rest, edge_factor, edge_theta;
  DeviceBuffer<uint8_t> edge_shear;
  DeviceBuffer<Int4> bends;
  DeviceBuffer<BendCoef> bend_coef;
  DeviceBuffer<float> bend_factor, bend_rest_norm, bend_theta;
  DeviceBuffer<uint32_t> vert_edge_off, vert_bend_off, vert_bend;
  DeviceBuffer<int32_t> vert_edge;
  DeviceBuffer<float> vert_area, vert_damping, vert_thickness;
  std::vector<uint32_t> edge_color_start, bend_color_start;  ///< host copies (launch ranges)

  void upload(const Context& ctx, const HostConstraintSet& h);
  size_t bytes() const;
};

}  // namespace cb::pbd
