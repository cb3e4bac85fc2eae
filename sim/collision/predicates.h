// Exact orientation predicates for single-precision points (host and device).
//
// orient3d(a, b, c, d) = sign det[a - d; b - d; c - d]  (positive when d lies below
// the plane of a, b, c seen counter-clockwise from above; Shewchuk's convention),
// orient2d(a, b, c) = sign det[a - c; b - c] (positive when counter-clockwise).
//
// A double-precision filter with Shewchuk's forward error bound ("Adaptive
// Precision Floating-Point Arithmetic and Fast Robust Geometric Predicates", 1997,
// errboundA of orient2d / orient3d) answers almost every call; the rest are
// decided exactly. Exact stage: for float inputs every product of two coordinates
// is exact in double and a product of three is exact as two doubles (TwoProduct
// with fma), so the determinant expanded in raw coordinates (24 triple products for
// orient3d, 6 double products for orient2d) is summed exactly with Shewchuk's
// GROW-EXPANSION; the sign of a nonoverlapping expansion is the sign of its
// largest nonzero component. Exact as long as no product underflows (coordinates
// above ~1e-25 in magnitude, or zero). Before the expansion, orient3d looks for a
// zero it can prove cheaply (two_columns_dependent): the filter never decides an
// exact zero, and the coplanar pairs of a flat sheet are all zeros (200k flat
// triangles' penetration count: 840-1,060 ms with the expansion, ~80 ms with the
// shortcut; RESULTS.md, twenty-first session).
#pragma once

#include <cmath>

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {
namespace pred_detail {

CB_HD CB_INLINE void two_sum(double a, double b, double* s, double* e) {
  double x = a + b;
  double bv = x - a;
  double av = x - bv;
  *s = x;
  *e = (a - av) + (b - bv);
}

// adds b to the expansion e[0..n) (increasing magnitude); the result has n + 1 components
CB_HD CB_INLINE int grow_expansion(double* e, int n, double b) {
  double q = b;
  for (int i = 0; i < n; ++i) {
    double s, h;
    two_sum(q, e[i], &s, &h);
    e[i] = h;
    q = s;
  }
  e[n] = q;
  return n + 1;
}

CB_HD CB_INLINE int expansion_sign(const double* e, int n) {
  for (int i = n - 1; i >= 0; --i)
    if (e[i] != 0.0) return e[i] > 0.0 ? 1 : -1;
  return 0;
}

// adds s * x * y * z exactly (two components) to the expansion
CB_HD CB_INLINE int add_triple(double* e, int n, double s, float x, float y, float z) {
  double xy = double(x) * double(y);  // exact: 24 + 24 bits
  double p = xy * double(z);
  double err = std::fma(xy, double(z), -p);
  n = grow_expansion(e, n, s * err);
  return grow_expansion(e, n, s * p);
}

// det3(u, v, w) = u . (v x w) over raw coordinates, accumulated with sign s
CB_HD CB_INLINE int add_det3(double* e, int n, double s, Vec3f u, Vec3f v, Vec3f w) {
  n = add_triple(e, n, s, u.x, v.y, w.z);
  n = add_triple(e, n, -s, u.x, v.z, w.y);
  n = add_triple(e, n, s, u.y, v.z, w.x);
  n = add_triple(e, n, -s, u.y, v.x, w.z);
  n = add_triple(e, n, s, u.z, v.x, w.y);
  return add_triple(e, n, -s, u.z, v.y, w.x);
}

CB_HD inline int orient3d_exact(Vec3f a, Vec3f b, Vec3f c, Vec3f d) {
  // det[a-d; b-d; c-d] = det(a,b,c) - det(d,b,c) - det(a,d,c) - det(a,b,d)  (trilinearity)
  double e[48];
  int n = 0;
  n = add_det3(e, n, 1.0, a, b, c);
  n = add_det3(e, n, -1.0, d, b, c);
  n = add_det3(e, n, -1.0, a, d, c);
  n = add_det3(e, n, -1.0, a, b, d);
  return expansion_sign(e, n);
}

CB_HD inline int orient2d_exact(float ax, float ay, float bx, float by, float cx, float cy) {
  // (ax-cx)(by-cy) - (ay-cy)(bx-cx) = ax by - ax cy - cx by - ay bx + ay cx + cy bx
  double e[6];
  int n = 0;
  n = grow_expansion(e, n, double(ax) * double(by));
  n = grow_expansion(e, n, -double(ax) * double(cy));
  n = grow_expansion(e, n, -double(cx) * double(by));
  n = grow_expansion(e, n, -double(ay) * double(bx));
  n = grow_expansion(e, n, double(ay) * double(cx));
  n = grow_expansion(e, n, double(cy) * double(bx));
  return expansion_sign(e, n);
}

// u0 v1 == u1 v0 exactly: equal rounded products with equal fma remainders
CB_HD CB_INLINE bool same_product(double u0, double v1, double u1, double v0) {
  const double p = u0 * v1, q = u1 * v0;
  return p == q && std::fma(u0, v1, -p) == std::fma(u1, v0, -q);
}

// Exactly zero-determinant cases the filter cannot decide, found without the
// expansion: two columns of M = [a - d; b - d; c - d] that are linearly dependent
// (the 3 x 2 block's three 2 x 2 minors all exactly zero), so det M = 0. Covers
// four points that share a coordinate (a zero column: a sheet in an axis plane)
// and four points on two lines parallel to an axis (two rows of a flat grid in any
// plane that holds that axis). False when a difference is not exact in double.
CB_HD inline bool two_columns_dependent(Vec3f a, Vec3f b, Vec3f c, Vec3f d) {
  const Vec3f r[3] = {a, b, c};
  double m[3][3];
  for (int i = 0; i < 3; ++i) {
    const float ri[3] = {r[i].x, r[i].y, r[i].z}, di[3] = {d.x, d.y, d.z};
    for (int k = 0; k < 3; ++k) {
      double e;
      two_sum(double(ri[k]), -double(di[k]), &m[i][k], &e);
      if (e != 0.0) return false;
    }
  }
  for (int j = 0; j < 3; ++j) {
    const int k = (j + 1) % 3;
    if (same_product(m[0][j], m[1][k], m[0][k], m[1][j]) && same_product(m[0][j], m[2][k], m[0][k], m[2][j]) &&
        same_product(m[1][j], m[2][k], m[1][k], m[2][j]))
      return true;
  }
  return false;
}

}  // namespace pred_detail

/// Sign (+1, 0, -1) of det[a - d; b - d; c - d]; exact for float inputs.
CB_HD inline int orient3d(Vec3f a, Vec3f b, Vec3f c, Vec3f d) {
  double adx = double(a.x) - d.x, bdx = double(b.x) - d.x, cdx = double(c.x) - d.x;
  double ady = double(a.y) - d.y, bdy = double(b.y) - d.y, cdy = double(c.y) - d.y;
  double adz = double(a.z) - d.z, bdz = double(b.z) - d.z, cdz = double(c.z) - d.z;
  double bc = bdx * cdy - cdx * bdy, ca = cdx * ady - adx * cdy, ab = adx * bdy - bdx * ady;
  double det = adz * bc + bdz * ca + cdz * ab;
  double perm = (std::fabs(bdx * cdy) + std::fabs(cdx * bdy)) * std::fabs(adz) +
                (std::fabs(cdx * ady) + std::fabs(adx * cdy)) * std::fabs(bdz) +
                (std::fabs(adx * bdy) + std::fabs(bdx * ady)) * std::fabs(cdz);
  const double eps = 1.1102230246251565e-16;  // 2^-53
  double bound = (7.0 + 56.0 * eps) * eps * perm;
  if (det > bound) return 1;
  if (-det > bound) return -1;
  if (pred_detail::two_columns_dependent(a, b, c, d)) return 0;
  return pred_detail::orient3d_exact(a, b, c, d);
}

/// Sign of det[a - c; b - c] of 2D points; exact for float inputs.
CB_HD inline int orient2d(float ax, float ay, float bx, float by, float cx, float cy) {
  double l = (double(ax) - cx) * (double(by) - cy), r = (double(ay) - cy) * (double(bx) - cx);
  double det = l - r;
  const double eps = 1.1102230246251565e-16;
  double bound = (3.0 + 16.0 * eps) * eps * (std::fabs(l) + std::fabs(r));
  if (det > bound) return 1;
  if (-det > bound) return -1;
  return pred_detail::orient2d_exact(ax, ay, bx, by, cx, cy);
}

}  // namespace cb
