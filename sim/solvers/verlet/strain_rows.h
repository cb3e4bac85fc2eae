// The constraints of the Verlet solver's strain limit (Provot 1995), per vertex
// in compressed rows: the structural and shear springs, plus long constraints
// that carry a correction many rings in one Jacobi pass.
//
// A Jacobi pass moves a correction one ring. Where cloth lies on an obstacle,
// the tension of its hanging parts must cross the contact region (67 rings over
// a 0.4 m table top at 6 mm edges); each side's pull was held only by the
// friction of the few contact vertices near it, which slid, and the stretch
// ratcheted inward (RESULTS.md, forty-second session: a tablecloth over a sphere
// at strain 3.7). A long constraint joins vertex i to a vertex j about `reach`
// rings away, with rest length P_ij, the shortest path from i to j along the
// springs in the rest shape: |x_i - x_j| <= (1 + s) P_ij. Every configuration
// whose springs are within (1 + s) of their rest length satisfies it (the path
// is at most (1 + s) P_ij long), so it never holds back a fold, a drape or a
// crumple the springs allow; it only shortens what the springs cannot.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/math.h"
#include "sim/solvers/verlet/springs.h"

namespace cb {

struct StrainRows {
  std::vector<uint32_t> offsets;  ///< (nverts + 1)
  std::vector<uint32_t> nbr;      ///< (nnz) the other vertex
  std::vector<float> rest;        ///< (nnz) m, rest length (springs) or rest path length (long constraints)
  std::vector<uint32_t> long_begin;  ///< (nverts) where each row's long constraints begin (after its springs)
  size_t num_long = 0;            ///< long constraints, each counted in both rows
};

/// Long constraints per vertex and reach (at most; fewer where the cloth ends).
constexpr int kLongConstraintsPerVertex = 6;

/// The structural and shear springs of `s` in row order, then, with reach > 0,
/// up to kLongConstraintsPerVertex long constraints per vertex to vertices at a
/// path length in [0.75, 1] x reach x mean_length (Dijkstra over the structural
/// and shear springs from each vertex, stopped there), spread in direction in
/// the rest shape (their directions' pairwise cosines below 0.7). Each long
/// constraint is listed in both of its vertices' rows. rest: (nverts) m.
StrainRows build_strain_rows(const SpringLists& s, const std::vector<Vec3f>& rest, float mean_length, int reach);

}  // namespace cb
