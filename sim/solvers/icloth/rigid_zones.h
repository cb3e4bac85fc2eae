// How one rigid impact zone moves: the fallback of the collision handler
// (collision_handler.h) when the zone solver does not clear a step. Host code,
// double precision; called on host copies of the positions.
//
// Provot 1997; Bridson, Fedkiw, Anderson 2002 (Sec. 7.4): the zone's free
// vertices move as one rigid body with the zone's mass-weighted mean translation
// and angular momentum. A zone holding fixed vertices (obstacle or pinned) has
// infinite mass and moves with them instead:
//   - by the rigid motion that fits theirs best (rigid_fit.h) when one does, to
//     within kRigidFitTolerance thicknesses (a still obstacle: no motion; a
//     turning thigh: its turn), and the zone carries no vertex (below);
//   - otherwise each vertex by the rigid motion fitted to the fixed points near
//     it (weights falling off beyond kLocalFitLength, a moving-least-squares
//     fit): a zone across a hip and a kicking thigh follows each part where it
//     lies on it, where one motion for the zone left it behind one of them;
//   - a vertex the caller marks as `carried` (in the fallback: one still in a
//     cloth-obstacle impact after kCarryAfterRounds rounds) moves with the
//     obstacle triangle nearest to it, exactly: its closest point keeps its
//     barycentric coordinates and its offset turns with the triangle. Not for
//     the whole zone: at a closing crease many vertices share one nearest point
//     and the zone would collapse onto itself. A zone with such a vertex moves
//     by the local fits even where one motion misses its fixed points by less
//     than the tolerance: on the dress a cloth edge against a mannequin edge
//     that stretched by 0.3 mm kept one impact through 15 rounds under the one
//     fit (RESULTS.md, sixteenth session).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/math.h"
#include "sim/solvers/icloth/impacts.h"

namespace cb::icloth {

struct CollisionInput;

/// Rigid rounds after which the cloth vertices still in cloth-obstacle impacts
/// are carried by the obstacle (mark_against_obstacle). Over twelve dress
/// trajectories: frames with crossings 82 -> 9 (RESULTS.md, fifteenth session).
constexpr int kCarryAfterRounds = 5;

/// Sets x1 (nverts) of the zone's free vertices `verts` to their end positions.
/// `ids` are the zone's impacts in `imps` (they name its fixed vertices:
/// combined ids, cloth vertices < nverts, then obstacle vertices). `carried`
/// (nverts, or null: none) marks the vertices the obstacle carries.
void move_rigid_zone(const std::vector<int>& verts, const std::vector<int>& ids, const std::vector<Impact>& imps,
                     const CollisionInput& in, size_t nverts, std::vector<Vec3f>& x1,
                     const std::vector<uint8_t>* carried = nullptr);

/// Marks (carried[v] = 1, nverts) the cloth vertices of the impacts against an obstacle.
void mark_against_obstacle(const std::vector<Impact>& imps, size_t nverts, std::vector<uint8_t>& carried);

}  // namespace cb::icloth
