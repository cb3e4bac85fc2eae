// Exact triangle–triangle intersection test for single-precision triangles
// (host and device), built only on the exact orient3d / orient2d predicates.
//
// Two closed triangles P and Q that are not coplanar intersect iff an edge of one
// meets the other (their intersection is a segment of the planes' common line
// whose end points lie on edges of P or Q). A segment meets a triangle iff its end
// points are not strictly on one side of the triangle's plane and the line through
// it passes inside the closed triangle (the three orient3d(segment, edge) signs
// agree, zeros allowed); a segment lying in the triangle's plane is tested in 2D.
// Coplanar triangles are projected on the coordinate plane most aligned with
// their plane (an exact projection: coordinates are dropped, not computed) and
// tested in 2D: an edge pair crosses, or a vertex of one lies in the other.
// Touching counts as intersecting. Degenerate (zero-area) triangles never intersect.
#pragma once

#include "sim/collision/predicates.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {
namespace tritri_detail {

struct P2 {
  float x, y;
};

// drops the axis along which the normal of (a, b, c) is largest; -1 for a degenerate triangle
CB_HD CB_INLINE int drop_axis(Vec3f a, Vec3f b, Vec3f c) {
  Vec3d n = cross(Vec3d(b) - Vec3d(a), Vec3d(c) - Vec3d(a));
  double nx = std::fabs(n.x), ny = std::fabs(n.y), nz = std::fabs(n.z);
  if (nx == 0 && ny == 0 && nz == 0) return -1;
  return nx >= ny ? (nx >= nz ? 0 : 2) : (ny >= nz ? 1 : 2);
}

CB_HD CB_INLINE P2 project(Vec3f p, int axis) {
  if (axis == 0) return P2{p.y, p.z};
  if (axis == 1) return P2{p.z, p.x};
  return P2{p.x, p.y};
}

CB_HD CB_INLINE int o2(P2 a, P2 b, P2 c) { return orient2d(a.x, a.y, b.x, b.y, c.x, c.y); }

// c on the closed segment [a, b], given that a, b, c are collinear
CB_HD CB_INLINE bool on_segment(P2 a, P2 b, P2 c) {
  bool x_ok = (a.x <= c.x && c.x <= b.x) || (b.x <= c.x && c.x <= a.x);
  bool y_ok = (a.y <= c.y && c.y <= b.y) || (b.y <= c.y && c.y <= a.y);
  return x_ok && y_ok;
}

CB_HD CB_INLINE bool segments_2d(P2 a, P2 b, P2 c, P2 d) {
  int d1 = o2(a, b, c), d2 = o2(a, b, d), d3 = o2(c, d, a), d4 = o2(c, d, b);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  if (d1 == 0 && on_segment(a, b, c)) return true;
  if (d2 == 0 && on_segment(a, b, d)) return true;
  if (d3 == 0 && on_segment(c, d, a)) return true;
  if (d4 == 0 && on_segment(c, d, b)) return true;
  return false;
}

// p inside the closed 2D triangle t (non-degenerate in 2D)
CB_HD CB_INLINE bool point_in_tri_2d(P2 p, const P2* t) {
  int s0 = o2(t[0], t[1], p), s1 = o2(t[1], t[2], p), s2 = o2(t[2], t[0], p);
  return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
}

// closed segment [a, b] against closed triangle t, all in t's plane
CB_HD inline bool coplanar_segment_triangle(Vec3f a, Vec3f b, const Vec3f* t) {
  int axis = drop_axis(t[0], t[1], t[2]);
  if (axis < 0) return false;
  P2 tt[3] = {project(t[0], axis), project(t[1], axis), project(t[2], axis)};
  P2 pa = project(a, axis), pb = project(b, axis);
  if (point_in_tri_2d(pa, tt)) return true;
  for (int e = 0; e < 3; ++e)
    if (segments_2d(pa, pb, tt[e], tt[(e + 1) % 3])) return true;
  return false;
}

// closed segment [a, b] against closed triangle t; oa, ob = orient3d(t, a), orient3d(t, b)
CB_HD inline bool segment_triangle(Vec3f a, Vec3f b, const Vec3f* t, int oa, int ob) {
  if ((oa > 0 && ob > 0) || (oa < 0 && ob < 0)) return false;
  if (oa == 0 && ob == 0) return coplanar_segment_triangle(a, b, t);
  if (a == b) return false;  // a point segment off the plane (oa == ob == 0 handled above)
  int s0 = orient3d(a, b, t[0], t[1]), s1 = orient3d(a, b, t[1], t[2]), s2 = orient3d(a, b, t[2], t[0]);
  return (s0 >= 0 && s1 >= 0 && s2 >= 0) || (s0 <= 0 && s1 <= 0 && s2 <= 0);
}

CB_HD inline bool coplanar_triangles(const Vec3f* p, const Vec3f* q) {
  int axis = drop_axis(p[0], p[1], p[2]);
  if (axis < 0 || drop_axis(q[0], q[1], q[2]) < 0) return false;
  P2 pp[3], qq[3];
  for (int i = 0; i < 3; ++i) {
    pp[i] = project(p[i], axis);
    qq[i] = project(q[i], axis);
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (segments_2d(pp[i], pp[(i + 1) % 3], qq[j], qq[(j + 1) % 3])) return true;
  return point_in_tri_2d(pp[0], qq) || point_in_tri_2d(qq[0], pp);
}

}  // namespace tritri_detail

/// True when the closed triangles p and q intersect (exact for float coordinates).
CB_HD inline bool triangles_intersect(const Vec3f p[3], const Vec3f q[3]) {
  using namespace tritri_detail;
  if (drop_axis(p[0], p[1], p[2]) < 0 || drop_axis(q[0], q[1], q[2]) < 0) return false;
  int oq[3], op[3];
  for (int i = 0; i < 3; ++i) oq[i] = orient3d(p[0], p[1], p[2], q[i]);
  if ((oq[0] > 0 && oq[1] > 0 && oq[2] > 0) || (oq[0] < 0 && oq[1] < 0 && oq[2] < 0)) return false;
  for (int i = 0; i < 3; ++i) op[i] = orient3d(q[0], q[1], q[2], p[i]);
  if ((op[0] > 0 && op[1] > 0 && op[2] > 0) || (op[0] < 0 && op[1] < 0 && op[2] < 0)) return false;
  if (oq[0] == 0 && oq[1] == 0 && oq[2] == 0) return coplanar_triangles(p, q);
  for (int i = 0; i < 3; ++i) {
    int j = (i + 1) % 3;
    if (segment_triangle(p[i], p[j], q, op[i], op[j])) return true;
    if (segment_triangle(q[i], q[j], p, oq[i], oq[j])) return true;
  }
  return false;
}

}  // namespace cb
