// Untangling a cloth that starts crossed: intersection contour minimisation
// (Volino & Magnenat-Thalmann 2006, "Resolving surface collisions through
// intersection contour minimization").
//
// Two surfaces that pass through each other meet along intersection contours.
// Their length L is zero exactly when nothing crosses, and it is a function of
// the vertex positions, so moving the vertices down its gradient shrinks the
// contours until they vanish: a flap poked through a sheet is pulled back along
// the way that closes the loop, without knowing which side either started on
// (a Verlet or PBD state carries no such history).
//
// The contour, discretely: every crossed triangle pair (s, t) meets in a
// segment whose two ends are points where an edge of one triangle passes
// through the other. Such a point, keyed by (edge, triangle), is shared by the
// segments of the triangles on both sides of the edge, so the segments chain
// into polylines (closed loops, or open ones that end where a boundary edge
// crosses, or where the next triangle shares a vertex with the other one: the
// exact count skips such adjacent pairs). L = sum over crossed pairs of |Q1 - Q2|, and its gradient at a point
// P is g = sum over P's segments of the unit vector from the other end to P (zero
// on a straight run: a contour shrinks where it bends, like a curve-shortening
// flow).
//
// A point P = a + s (b - a) of edge (a, b) in the plane of triangle t (unit
// normal n) moves, when the edge's surface moves by d against t's, by
// d - (n.d)/(n.E) E (E = b - a: P slides along the edge). So the gradient of L
// with respect to that relative motion is G = g - ((g.E)/(n.E)) n. Each
// iteration moves the edge's vertices along -G (weights 1 - s and s) and the
// triangle's along +G (its barycentric weights of P), each point's direction
// normalised and the directions averaged per vertex (over a weight of at least
// one), times a step `step` (or the vertex's own `max_move`, where smaller):
// no vertex moves more than the step. Obstacle and
// pinned vertices do not move (their side's share of the motion is lost).
// The exact crossing test (tri_tri.h) counts the crossed pairs after each
// iteration; the positions with the fewest are kept. The descent runs on the
// cloth and obstacle triangles near the crossed ones (`reach`), so its cost
// follows the tangle, and its answer is checked on the whole.
//
// A crossed pair whose segment has no two ends in double precision (triangles
// that touch, which the exact test counts as crossed) has no gradient; its two
// triangles move off each other's plane instead, each to its centroid's side.
//
// On a straight contour g is zero but at its ends, so an open contour (a sheet
// through a plate from edge to edge) shrinks only from its ends, if at all;
// such a state stays crossed.
//
// A crumple at the mesh's scale (a free side of the sheet rolled over itself
// within two or three cells, as Verlet's grab can hand over) has a second way
// down L: the descent flattens the crossed cells into slivers, and a sliver
// crossing a triangle meets it in a segment of length zero. L reaches zero
// with pairs still crossed and no gradient left. So a descent stuck for
// `patience` iterations starts again from its best state smoothed (umbrella
// smoothing of the crossed triangles' vertices and two rings around them,
// which opens the roll back into cells the contour can pull apart), at most
// `smooth_tries` times, before it goes on with smaller steps. The smoothing
// ignores the contours and may cross other pairs for a while: the count after
// each iteration decides what is kept, as for any step.
//
// Host code: it runs when I-Cloth starts from a crossed state (taken over from
// another solver, or the scene's own start), at the start of each frame until
// one starts clean (IClothSolver::untangle_crossed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/math.h"

namespace cb::icloth {

/// The cloth and the obstacle meshes, host memory.
struct ContourInput {
  const std::vector<Int3>* cloth_tris = nullptr;      ///< (ntris) ids into x
  const std::vector<uint32_t>* tri_piece = nullptr;   ///< (ntris) cloth piece; null = one piece
  const std::vector<float>* inv_mass = nullptr;       ///< (nverts) 1/kg, 0 = pinned (does not move)
  const std::vector<Vec3f>* obs_x = nullptr;          ///< (nobsverts) m, may be null without obstacles
  const std::vector<Int3>* obs_tris = nullptr;        ///< (nobstris) ids into obs_x, may be null
  /// (nverts) m, the most each vertex moves in one iteration (below the step
  /// where its edges are short); null = the step for every vertex
  const std::vector<float>* max_move = nullptr;
};

struct ContourSettings {
  int max_iterations = 600;
  float step = 2e-3f;  ///< m, the largest move of a vertex in one iteration
  /// iterations without a new fewest count of crossed pairs before the descent
  /// starts again from the fewest with a quarter of the step (three times)
  int patience = 60;
  /// m: the descent runs on the triangles within this distance of the crossed
  /// ones' box (cloth vertices beyond it held), so that its cost follows the
  /// tangle's size, not the cloth's; the answer is checked on the whole cloth
  float reach = 0.05f;
  /// most triangles counted over all iterations (the region's triangles times
  /// the iterations): 2M lets the 3k-triangle sheet run all 600 iterations and
  /// a tangle over a whole 20k-triangle cloth about 100 (1-2 s on 2 cores)
  size_t max_work = 2000000;
  /// a descent without a new fewest count for `patience` iterations is
  /// started again, at the full step, from its best state smoothed (the
  /// crossed triangles' vertices and `smooth_rings` rings around them,
  /// `smooth_iterations` umbrella iterations), at most this many times (0 =
  /// never); then the smaller steps follow
  int smooth_tries = 8;
  int smooth_rings = 2;
  int smooth_iterations = 10;
};

struct ContourResult {
  size_t start_pairs = 0, end_pairs = 0;  ///< crossed triangle pairs before and after
  double start_length = 0, end_length = 0; ///< m, the contours' length before and after
  int iterations = 0;                      ///< iterations run (the kept positions may be earlier ones)
  int smoothings = 0;                      ///< times the descent was started again from a smoothed state
};

/// The contours' length (m) and its gradient per relative motion, as above:
/// `grad` (nverts) receives, per cloth vertex, the average direction (unit
/// steps, weighted) that shortens the contours; zero where no contour passes.
/// Returns L; `pairs` receives the crossed pairs counted.
double contour_descent(const ContourInput& in, const std::vector<Vec3f>& x, std::vector<Vec3f>& grad,
                       size_t* pairs = nullptr);

/// Moves x (nverts, m) down the contours' length until no pair crosses or the
/// iterations or the patience at the smallest step run out; x ends at the
/// iterate with the fewest crossed pairs (the shortest contour among equals).
/// The count of crossed pairs is not monotone along the descent (a contour
/// that shrinks may first cross a neighbour), so no step is refused for it.
ContourResult untangle_contours(const ContourInput& in, const ContourSettings& s, std::vector<Vec3f>& x);

}  // namespace cb::icloth
