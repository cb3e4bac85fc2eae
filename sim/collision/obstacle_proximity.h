// Closest points on triangle-mesh obstacles: for each cloth vertex, the nearest
// obstacle triangle within a search radius. Used by every solver for mesh
// obstacles (analytic shapes use shape_distance in sim/scene/shape.h).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/core/backend.h"
#include "sim/core/hd.h"
#include "sim/collision/obstacle_sweep.h"
#include "sim/core/math.h"
#include "sim/scene/obstacle_set.h"

namespace cb {

/// A part of the frame, as fractions of it: the obstacle's pose at a fraction s
/// is linear between its start (s = 0, ObstacleSet::mesh_x_prev) and its end
/// (s = 1, mesh_x).
struct FrameSpan {
  float start = 0.f;
  float end = 1.f;
};

struct ObstacleContact {
  int32_t tri = -1;       ///< obstacle triangle id (into ObstacleSet::mesh_tris), -1 = none within the radius
  Vec3f point;            ///< m, closest point on the triangle (at the query span's end; by default the frame's)
  Vec3f normal;           ///< unit: the triangle's face normal (there), oriented to the side the
                          ///< query's `from` point is on of the plane through `point`'s material point at
                          ///< the span's start (the side it came from, also where the obstacle
                          ///< sweeps past it), or without `from` to the query point's side of the
                          ///< triangle's plane (+n on the plane). See obstacle_proximity.cu.
  float distance = 0;     ///< m, unsigned distance from the query point to `point`
  Vec3f velocity;         ///< m/s, velocity of the obstacle surface at `point` over the frame
  float friction = 0.3f;  ///< Coulomb coefficient of that obstacle
  float curvature = 0;    ///< 1/m, how sharply the obstacle bends away from `normal`'s side there (mesh_curvature.h)
};

class ObstacleProximity {
 public:
  ObstacleProximity();
  ~ObstacleProximity();
  ObstacleProximity(const ObstacleProximity&) = delete;
  ObstacleProximity& operator=(const ObstacleProximity&) = delete;

  /// Builds or refits the acceleration structure over obstacles.mesh_x (cheap when
  /// obstacles.mesh_version has not changed). No-op when there are no mesh obstacles.
  void update(const Context& ctx, const ObstacleSet& obstacles, float dt);
  /// For each of the n points x (backend memory), the closest obstacle triangle
  /// within `radius` m at the pose of span.end; writes out[i] (backend memory, n
  /// entries). from: (n) where each point was at span.start (may be x itself):
  /// orients the normal to the side it came from; null: to the side x is on.
  /// A solver's sub-step k of n asks {k/n, (k+1)/n}; the default is the frame.
  void query(const Context& ctx, const Vec3f* x, int n, float radius, ObstacleContact* out,
             const Vec3f* from = nullptr, FrameSpan span = {}) const;
  /// m: the largest displacement of an obstacle vertex over the frame of the last
  /// update (mesh_x_prev -> mesh_x), what a query must reach beyond a point's
  /// distance to find a surface that swept past it.
  float max_displacement() const;
  /// The soup and tree of the last update, for sweep_points (obstacle_sweep.h).
  ObstacleMeshView mesh_view() const;
  size_t device_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cb
