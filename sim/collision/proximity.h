// Closest-point primitives (host and device): point–triangle and segment–segment.
//
// Point–triangle: the point is projected on the triangle's plane; when the
// projection lies inside (all barycentrics >= 0) it is the answer, otherwise the
// closest point lies on the boundary and is the nearest of the three
// point–segment answers (Ericson, "Real-Time Collision Detection", 2005, §5.1.5,
// reorganised so that degenerate triangles — zero area, or collapsed to a point —
// fall through to the edge tests instead of dividing by a zero area).
// Segment–segment: Ericson §5.1.9, with explicit branches for points and for
// parallel segments (one minimiser of the flat valley is returned).
//
// Templated on the scalar (float or double); all functions are CB_HD.
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

template <class T>
struct PointTriResult {
  Vec3T<T> point;  ///< closest point on the triangle
  T w[3];          ///< barycentrics of `point` (w[0] a + w[1] b + w[2] c, sum 1, all >= 0)
  T dist2;         ///< squared distance from the query point to `point`
};

template <class T>
struct SegSegResult {
  T s, t;          ///< parameters in [0, 1]: p1 + s (q1 - p1), p2 + t (q2 - p2)
  Vec3T<T> c1, c2; ///< the closest points on each segment
  T dist2;         ///< squared distance between c1 and c2
};

template <class T>
CB_HD CB_INLINE T clamp01(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);
}

/// Parameter u in [0, 1] of the point of segment [a, b] closest to p (0 for a point segment).
template <class T>
CB_HD CB_INLINE T closest_param_on_segment(Vec3T<T> p, Vec3T<T> a, Vec3T<T> b) {
  Vec3T<T> d = b - a;
  T dd = dot(d, d);
  if (!(dd > T(0))) return T(0);
  return clamp01(dot(p - a, d) / dd);
}

/// Closest point on triangle (a, b, c) to p, with barycentrics. Robust for
/// degenerate triangles (they are treated as their edges).
template <class T>
CB_HD inline PointTriResult<T> closest_point_triangle(Vec3T<T> p, Vec3T<T> a, Vec3T<T> b, Vec3T<T> c) {
  PointTriResult<T> r;
  Vec3T<T> ab = b - a, ac = c - a;
  Vec3T<T> n = cross(ab, ac);
  T nn = dot(n, n);
  T scale = dot(ab, ab) + dot(ac, ac);
  // relative area threshold: below it the triangle is a sliver, handled by its edges
  const T eps = sizeof(T) == 4 ? T(1e-10) : T(1e-24);
  if (nn > eps * scale * scale) {
    Vec3T<T> q = p - n * (dot(p - a, n) / nn);
    T wa = dot(cross(c - b, q - b), n) / nn;
    T wb = dot(cross(a - c, q - c), n) / nn;
    T wc = T(1) - wa - wb;
    if (wa >= T(0) && wb >= T(0) && wc >= T(0)) {
      r.point = q;
      r.w[0] = wa; r.w[1] = wb; r.w[2] = wc;
      Vec3T<T> d = p - q;
      r.dist2 = dot(d, d);
      return r;
    }
  }
  // boundary: nearest of the three edges
  const Vec3T<T> v[3] = {a, b, c};
  r.dist2 = T(-1);
  for (int e = 0; e < 3; ++e) {
    int i = e, j = (e + 1) % 3;
    T u = closest_param_on_segment(p, v[i], v[j]);
    Vec3T<T> q = v[i] + (v[j] - v[i]) * u;
    Vec3T<T> d = p - q;
    T d2 = dot(d, d);
    if (r.dist2 < T(0) || d2 < r.dist2) {
      r.dist2 = d2;
      r.point = q;
      r.w[0] = r.w[1] = r.w[2] = T(0);
      r.w[i] = T(1) - u;
      r.w[j] = u;
    }
  }
  return r;
}

/// Closest points between segments [p1, q1] and [p2, q2]. Robust for point
/// segments and parallel segments.
template <class T>
CB_HD inline SegSegResult<T> closest_points_segments(Vec3T<T> p1, Vec3T<T> q1, Vec3T<T> p2, Vec3T<T> q2) {
  Vec3T<T> d1 = q1 - p1, d2 = q2 - p2, r = p1 - p2;
  T a = dot(d1, d1), e = dot(d2, d2), f = dot(d2, r);
  T s = 0, t = 0;
  if (!(a > T(0)) && !(e > T(0))) {
    s = t = T(0);
  } else if (!(a > T(0))) {
    t = clamp01(f / e);
  } else {
    T c = dot(d1, r);
    if (!(e > T(0))) {
      s = clamp01(-c / a);
    } else {
      T b = dot(d1, d2);
      T denom = a * e - b * b;  // >= 0, ~0 for parallel segments
      const T eps = sizeof(T) == 4 ? T(1e-6) : T(1e-14);
      s = denom > eps * a * e ? clamp01((b * f - c * e) / denom) : T(0);
      t = (b * s + f) / e;
      if (t < T(0)) {
        t = T(0);
        s = clamp01(-c / a);
      } else if (t > T(1)) {
        t = T(1);
        s = clamp01((b - c) / a);
      }
    }
  }
  SegSegResult<T> res;
  res.s = s;
  res.t = t;
  res.c1 = p1 + d1 * s;
  res.c2 = p2 + d2 * t;
  Vec3T<T> d = res.c1 - res.c2;
  res.dist2 = dot(d, d);
  return res;
}

/// Squared distance from p to box b (0 inside).
CB_HD CB_INLINE float box_distance2(const Aabb& b, Vec3f p) {
  float dx = p.x < b.lo.x ? b.lo.x - p.x : (p.x > b.hi.x ? p.x - b.hi.x : 0.f);
  float dy = p.y < b.lo.y ? b.lo.y - p.y : (p.y > b.hi.y ? p.y - b.hi.y : 0.f);
  float dz = p.z < b.lo.z ? b.lo.z - p.z : (p.z > b.hi.z ? p.z - b.hi.z : 0.f);
  return dx * dx + dy * dy + dz * dz;
}

}  // namespace cb
