// Pushing tangled triangle pairs apart at the start of a tangled step.
//
// A step that starts with intersecting triangle pairs (collision_handler.h,
// "Tangled starts") lets the CCD ignore those pairs' features, so they may
// move through each other; but nothing else moves them: the contacts and the
// zones keep every vertex on the side it starts on, and a crossing once made
// stays (the dress: a mannequin vertex poking 1.8 mm through the skirt, a skirt
// vertex 1.1 mm through another layer, crossed to the end of the run).
//
// For each such pair that still intersects at the step's end positions x1,
// this moves cloth vertices of x1 by the least of these displacements, each of
// which leaves the two triangles on opposite sides of a plane:
//   - the lone vertex of triangle P (the one alone on its side of Q's plane)
//     back through Q's plane, to `thickness` beyond it: |d| + thickness along
//     Q's normal (d: its signed distance, m);
//   - the same with P and Q swapped; where the lone vertex belongs to an
//     obstacle (or is pinned), the cloth triangle moves instead, all three
//     vertices by the same distance the other way.
// A triangle that touches the other's plane with a vertex (d = 0) or lies in
// it has no lone vertex on that side, and a crossing deeper than a few
// thicknesses is no poke; such pairs are left as they are. Pairs are visited in
// order, each on the positions the ones before left, for a few sweeps. The
// collision handler then runs its zone rounds on the pushed positions (the CCD
// checks the whole motion x0 -> x1, pushes included) and keeps them only where
// those clear the step (CollisionHandler::pushed_rounds); the solver pushes only
// tangles of its own making (solver.cpp, seen_clean_start).
// (A local, shallow-first rule in the spirit of the intersection-contour
// minimisation of Volino & Magnenat-Thalmann 2006: it removes pokes of a vertex
// or an edge through a triangle, the crossings a step leaves behind; it does
// not untangle a long intersection curve in one step.)
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/math.h"

namespace cb::icloth {

/// The step's triangle soup at its end: cloth vertices [0, ncloth_verts) of
/// x1, then the obstacle's vertices.
struct TangleSoup {
  const std::vector<Int3>* tris = nullptr;      ///< soup triangles (cloth, then obstacle; ids into the soup)
  size_t ncloth_verts = 0;
  const std::vector<Vec3f>* obs_x1 = nullptr;   ///< (soup vertices - ncloth_verts) m, may be null without obstacles
  const std::vector<float>* inv_mass = nullptr; ///< (ncloth_verts) 0 = pinned
  const std::vector<float>* thickness = nullptr;///< (ncloth_verts) m
};

struct UntangleStats {
  size_t pushed = 0;     ///< pair pushes applied (over all sweeps)
  size_t left = 0;       ///< pairs still intersecting at x1 after the last sweep
};

/// Moves cloth vertices of x1 (ncloth_verts) apart along the tangled soup
/// triangle pairs `pairs` (ids into soup.tris), as described above.
UntangleStats push_tangles_apart(const std::vector<Int2>& pairs, const TangleSoup& soup, std::vector<Vec3f>& x1);

}  // namespace cb::icloth
