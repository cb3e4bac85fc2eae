// Analytic obstacle shapes and their signed distance, for kernels on both
// backends. A Shape is a plain struct in world space at one instant.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

enum class ShapeKind : int32_t { Plane = 0, Sphere = 1, Box = 2, Capsule = 3 };

struct Shape {
  ShapeKind kind = ShapeKind::Plane;
  Transform pose;          ///< local -> world. Plane: normal = local +y through the origin.
  Vec3f half_extents;      ///< m, Box
  float radius = 0.5f;     ///< m, Sphere and Capsule
  float half_length = 0;   ///< m, Capsule: segment from -h to +h along local y
  float friction = 0.3f;   ///< Coulomb coefficient
};

/// 1/m: how sharply the shape's surface bends away from the outside at its most
/// curved, for the clearance that keeps a cloth's edges outside it
/// (sim/model/edge_clearance.h): 1 / radius for a sphere and a capsule (across
/// its axis), 0 for a plane and a box (whose faces are flat; its edges are not
/// cleared).
CB_HD inline float shape_curvature(const Shape& s) {
  const bool round = s.kind == ShapeKind::Sphere || s.kind == ShapeKind::Capsule;
  return round && s.radius > 0.f ? 1.f / s.radius : 0.f;
}

/// Signed distance from p to the shape's surface (m, negative inside) and the
/// outward unit normal at the closest surface point.
CB_HD inline float shape_distance(const Shape& s, Vec3f p_world, Vec3f* n_world) {
  Vec3f p = s.pose.apply_inverse(p_world);
  Vec3f n_local{0, 1, 0};
  float d = 0;
  switch (s.kind) {
    case ShapeKind::Plane:
      d = p.y;
      break;
    case ShapeKind::Sphere: {
      float l = length(p);
      n_local = l > 0 ? p / l : Vec3f{0, 1, 0};
      d = l - s.radius;
      break;
    }
    case ShapeKind::Capsule: {
      Vec3f c{0, clampf(p.y, -s.half_length, s.half_length), 0};
      Vec3f r = p - c;
      float l = length(r);
      n_local = l > 0 ? r / l : Vec3f{1, 0, 0};
      d = l - s.radius;
      break;
    }
    case ShapeKind::Box: {
      Vec3f q{std::fabs(p.x) - s.half_extents.x, std::fabs(p.y) - s.half_extents.y, std::fabs(p.z) - s.half_extents.z};
      Vec3f qo = cmax(q, Vec3f{0, 0, 0});
      float outside = length(qo);
      if (outside > 0) {  // outside: normal along the clamped offset
        Vec3f sgn{p.x < 0 ? -1.f : 1.f, p.y < 0 ? -1.f : 1.f, p.z < 0 ? -1.f : 1.f};
        n_local = Vec3f{qo.x * sgn.x, qo.y * sgn.y, qo.z * sgn.z} / outside;
        d = outside;
      } else {  // inside: the nearest face
        int axis = q.x > q.y ? (q.x > q.z ? 0 : 2) : (q.y > q.z ? 1 : 2);
        n_local = Vec3f{0, 0, 0};
        n_local[axis] = p[axis] < 0 ? -1.f : 1.f;
        d = q[axis];
      }
      break;
    }
  }
  if (n_world) *n_world = s.pose.R * n_local;
  return d;
}

/// Velocity (m/s) of the shape's material point that is at p now, given the pose
/// `prev` one time step `dt` (s) earlier: (p - prev(current^-1(p))) / dt.
CB_HD inline Vec3f shape_point_velocity(const Shape& now, const Shape& prev, Vec3f p, float dt) {
  Vec3f local = now.pose.apply_inverse(p);
  return (p - prev.pose.apply(local)) / dt;
}

}  // namespace cb
