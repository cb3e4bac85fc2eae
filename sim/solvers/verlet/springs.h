// Springs of the Verlet mass-spring cloth (Zheng 2021, Sec. 3, Figs. 14-17),
// stored per vertex (compressed rows) so that each thread gathers the forces on
// its own vertex and writes only that vertex.
//
// Neighbourhoods:
//  - generated quad grids: 12 per vertex — structural (i+-1, j), (i, j+-1);
//    shear (i+-1, j+-1); bend (i+-2, j), (i, j+-2).
//  - generated equilateral grids: 18 — structural: the 6 lattice neighbours at
//    one spacing d; shear: the 6 at sqrt(3) d; bend: the 6 at 2 d.
//  - meshes from files: structural = mesh edges; bend = the two opposite vertices
//    of each bending pair (triangles sharing an edge).
// Rest lengths are the rest-shape distances.
//
// Stiffness from the cloth Material (documented mapping, scaled by the params):
//  - structural: k = stretch_stiffness (N/m). On a square lattice axis springs of
//    stiffness k give a membrane modulus C11 = k; on the equilateral lattice
//    C11 = 2k/sqrt(3), so k = sqrt(3)/2 x stretch_stiffness there.
//  - shear: k = shear_stiffness (N/m): diagonal springs k_d on a square lattice
//    give the shear modulus G = k_d.
//  - bend: k = bend_stiffness / L^2 (N m / m^2 = N/m), L the spring's rest length
//    (springs resist bending only at second order; this is a heuristic).
// Stability: one damped oscillator under symplectic Euler (position Verlet) is
// stable for b + 2a <= 4 with b = h^2 k/m, a = h c/m (trace/determinant of the
// step matrix); with Gershgorin bounds on M^-1 K and M^-1 C this becomes, per
// vertex, h^2 w_i sum_j k_ij + 2 h w_i sum_j c_ij <= 2. Springs (k by f, c by
// sqrt(f)) are softened so that every vertex stays below `stability` of that
// limit at the current sub-step h, and the count of softened springs is reported. Strain limiting keeps soft cloth from
// over-stretching.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/model/cloth_model.h"
#include "sim/solvers/verlet/params.h"

namespace cb {

enum SpringKind : uint8_t { kStructural = 0, kShear = 1, kBend = 2 };

/// Per-vertex spring lists (host). Spring s of vertex i connects i to nbr[s] for
/// s in [offsets[i], offsets[i+1]); every spring appears in both endpoints' lists.
struct SpringLists {
  std::vector<uint32_t> offsets;  ///< (nverts + 1)
  std::vector<uint32_t> nbr;      ///< (nnz) neighbour vertex id, increasing within a row
  std::vector<float> rest;        ///< (nnz) m, rest length
  std::vector<uint8_t> kind;      ///< (nnz) SpringKind
  size_t rows() const { return offsets.empty() ? 0 : offsets.size() - 1; }
};

/// Lattice springs for grid pieces, topology springs for the others.
SpringLists build_springs(const ClothModel& model);

/// Per-spring stiffness k (N/m) and damping c (N s/m) for sub-step h (s):
/// material mapping x scales, damping a fraction of critical (c = spring_damping
/// x 2 sqrt(k m_reduced)), both softened to the stability limit.
/// Returns the number of softened springs (each counted in both rows).
size_t spring_coefficients(const ClothModel& model, const SpringLists& s, const VerletParams& p, float h,
                           std::vector<float>* k, std::vector<float>* c);

/// For each vertex, the nearest pinned vertex along the spring graph (rest
/// lengths as edge weights; multi-source Dijkstra) and that path length (m);
/// anchor -1 where no pin is reachable, pinned vertices anchor themselves.
void nearest_pins(const SpringLists& s, const std::vector<uint8_t>& pinned, std::vector<int32_t>* anchor,
                  std::vector<float>* geodesic);

/// Mean rest length (m) of the structural springs (virtual sphere diameter at radius_scale 1).
float mean_structural_length(const SpringLists& s);

}  // namespace cb
