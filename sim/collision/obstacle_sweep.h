// Continuous contact of moving points with triangle-mesh obstacles: for each
// point moving in a straight line over part of a frame, the first obstacle
// triangle it touches, by the exact vertex–face CCD of ccd.h with the triangle
// moving linearly from its pose at the frame's start (ObstacleSet::mesh_x_prev)
// to its pose at the end (mesh_x).
//
// Why: a closest-point query (obstacle_proximity.h) sees a surface only within
// its radius of where a point ends. A point that crosses a surface and ends
// beyond that radius is lost: Verlet's reach is max(2 x thickness, sphere
// radius), 8-10 mm, and a sheet falling 3 m onto a mesh floor moves 30 mm a
// sub-step there, so it went through (RESULTS.md, forty-fourth session).
//
// Which points are swept: only those for which a surface point crossed in the
// interval may be farther than `reach` from x1 at the pose the caller's
// closest-point query looks at (the fraction q >= t1 of the frame: 1 for
// ObstacleProximity::query's default, t1 for FrameSpan{t0, t1}), that is
// |x1 - x0| + the obstacle's largest displacement from t0 to q. For the others
// that query finds the point, or a closer one; they get no hit. So a cloth at
// rest or moving slowly near a still mesh costs one length test per point.
//
// Cost of a swept point: one box query of the LBVH (whose boxes hold each
// triangle's every pose over the frame) and one CCD per triangle found.
#pragma once

#include <cstdint>

#include "sim/collision/lbvh.h"
#include "sim/collision/mesh_curvature.h"
#include "sim/core/backend.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// The obstacle soup and its tree as kernels read them (backend memory; ObstacleProximity::mesh_view()).
struct ObstacleMeshView {
  LbvhView bvh;                   ///< over boxes holding each triangle's poses at the frame's start and end
  const Vec3f* x = nullptr;       ///< (nverts) m, end of the frame
  const Vec3f* x_prev = nullptr;  ///< (nverts) m, start of the frame
  const Int3* tris = nullptr;     ///< (ntris)
  int ntris = 0;
  float max_disp = 0;             ///< m, the largest |x - x_prev|
  const TriangleBend* curvature = nullptr;  ///< (ntris) at the frame's end (mesh_curvature.h)

  /// m, vertex v at the fraction s of the frame (linear from x_prev to x; x
  /// itself at s >= 1, so that a query of the whole frame reads it unrounded).
  CB_HD Vec3f at(int v, float s) const { return s >= 1.f ? x[v] : x_prev[v] + (x[v] - x_prev[v]) * s; }
};

/// A point's first touch of an obstacle along its path.
struct SweepHit {
  int32_t tri = -1;  ///< obstacle triangle, -1 = none (or the point was not swept)
  float toi = 1.f;   ///< fraction of the interval at the touch (a lower bound, ccd.h)
  Vec3f point;       ///< m, the touched material point of the triangle at the interval's end
  Vec3f normal;      ///< unit face normal at the interval's end, to the side the point started on
  float curvature = 0;  ///< 1/m, how sharply the obstacle bends away from the point's side there (mesh_curvature.h)
};

/// For each of the n points moving from x0 to x1 (backend memory) over the part
/// [t0, t1] of the frame (fractions of it, 0 <= t0 < t1 <= 1), its first touch
/// of an obstacle triangle; out: (n) backend memory. Points whose crossings a
/// closest-point query of radius `reach` m at the pose of the fraction
/// `query_pose` (t1 <= query_pose <= 1) would find get no hit (see the top).
void sweep_points(const Context& ctx, const ObstacleMeshView& mesh, const Vec3f* x0, const Vec3f* x1, int n, float t0,
                  float t1, float reach, float query_pose, SweepHit* out);

}  // namespace cb
