// Ray primitives (host and device): ray–triangle intersection (Möller and
// Trumbore, "Fast, Minimum Storage Ray/Triangle Intersection", JGT 1997; both
// faces) and the ray–box slab test (Kay and Kajiya 1986).
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

struct RayHit {
  float t = -1.f;   ///< distance along the (unit) direction, m; < 0 = no hit
  float u = 0, v = 0;  ///< barycentrics of the hit: (1-u-v) a + u b + v c
};

/// Intersection of o + t d (t in [tmin, tmax]) with triangle (a, b, c), either face;
/// rays parallel to the plane miss. Edges are closed with a tolerance of
/// `edge_tol` in barycentric units: a ray through the edge shared by two triangles
/// hits both (Moeller-Trumbore alone is not watertight, and whether it hits
/// either then depends on rounding, which differs between the host and the
/// device's fused multiply-adds). The barycentrics returned are clamped.
constexpr float kRayEdgeTol = 1e-5f;
CB_HD inline RayHit ray_triangle(Vec3f o, Vec3f d, Vec3f a, Vec3f b, Vec3f c, float tmin, float tmax,
                                 float edge_tol = kRayEdgeTol) {
  RayHit h;
  Vec3f e1 = b - a, e2 = c - a;
  Vec3f p = cross(d, e2);
  float det = dot(e1, p);
  float scale = length2(e1) * length2(e2);
  if (!(det * det > 1e-14f * scale * length2(d))) return h;  // parallel (relative test)
  float inv = 1.f / det;
  Vec3f s = o - a;
  float u = dot(s, p) * inv;
  if (u < -edge_tol || u > 1.f + edge_tol) return h;
  Vec3f q = cross(s, e1);
  float v = dot(d, q) * inv;
  if (v < -edge_tol || u + v > 1.f + edge_tol) return h;
  float t = dot(e2, q) * inv;
  if (t < tmin || t > tmax) return h;
  h.t = t;
  h.u = fminf(fmaxf(u, 0.f), 1.f);
  h.v = fminf(fmaxf(v, 0.f), 1.f - h.u);
  return h;
}

/// Entry distance of o + t d into box b within [tmin, tmax], or -1 when it misses.
/// inv_d = 1 / d per component (infinite components are fine).
CB_HD CB_INLINE float ray_box(Vec3f o, Vec3f inv_d, const Aabb& b, float tmin, float tmax) {
  float t0 = (b.lo.x - o.x) * inv_d.x, t1 = (b.hi.x - o.x) * inv_d.x;
  tmin = fmaxf(tmin, fminf(t0, t1));
  tmax = fminf(tmax, fmaxf(t0, t1));
  t0 = (b.lo.y - o.y) * inv_d.y;
  t1 = (b.hi.y - o.y) * inv_d.y;
  tmin = fmaxf(tmin, fminf(t0, t1));
  tmax = fminf(tmax, fmaxf(t0, t1));
  t0 = (b.lo.z - o.z) * inv_d.z;
  t1 = (b.hi.z - o.z) * inv_d.z;
  tmin = fmaxf(tmin, fminf(t0, t1));
  tmax = fminf(tmax, fmaxf(t0, t1));
  return tmin <= tmax ? tmin : -1.f;
}

}  // namespace cb
