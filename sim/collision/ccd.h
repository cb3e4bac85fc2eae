// Continuous collision detection for vertex–face and edge–edge pairs under linear
// motion on t in [0, 1] (touching counts), conservative: it never answers "no
// collision" when there is one; near-degenerate queries may answer "collision"
// (a false positive) instead of refining for long.
//
// Method: inclusion-based root finding in the spirit of Wang et al., "A Large
// Scale Benchmark and an Inclusion-Based Algorithm for Continuous Collision
// Detection", ACM TOG 40(5) 2021. The pair collides iff
//   VF: F(t,u,v) = p(t) - [(1-u-v) a(t) + u b(t) + v c(t)] = 0,  u, v >= 0, u + v <= 1
//   EE: F(t,u,v) = [(1-u) a0(t) + u a1(t)] - [(1-v) b0(t) + v b1(t)] = 0, u, v in [0, 1]
// for some t in [0, 1]. F is multilinear in (t, u, v), so over a box of the domain
// each coordinate of F ranges exactly between its extreme corner values. Each box
// is (1) discarded when the box of those ranges, widened by a floating-point error
// bound E per coordinate, lies farther than the minimum separation d from zero
// (Euclidean distance: |F| >= that distance on the whole box); (2) accepted as a collision
// when the range of F is narrower than the tolerance in every coordinate; or (3)
// split in half along the parameter that moves F most. Boxes are visited depth
// first, earlier times first. Before that, with no minimum separation, a query
// whose four points are never coplanar on [0, 1] is rejected at once: touching
// (VF or EE) needs coplanarity, and the signed volume is a cubic in t whose
// Bernstein coefficients bound it (the first stage of Tang et al., "Fast and Exact
// Continuous Collision Detection with Bernstein Sign Classification", 2014),
// compared against a forward error bound.
//
// Error bound: corners are evaluated in double from the input doubles with a fixed
// sequence of at most ~10 operations on quantities bounded by 6 M (M = largest
// |coordinate| of the 8 input points on that axis); a forward error analysis gives
// |computed - exact| <= 56 u M (u = 2^-53). We use E = 128 u M, so discarding a box
// is rigorous and there are no false negatives (up to the bound on E, for inputs
// that are finite doubles).
//
// Time of impact: after the first hit the search goes on through the boxes that
// start earlier, so toi is the start of the earliest accepted box: a lower bound
// of the earliest collision time, within the tolerance of it.
//
// Bounded work: after `max_boxes` boxes (or on a full stack) the query answers
// "collision" with `capped` set and toi = the smallest start time of every box not
// yet discarded (still a lower bound).
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

struct CcdOptions {
  double tolerance = 1e-6;    ///< m: a box whose image of F is narrower than this in every axis is a hit
  double min_distance = 0.0;  ///< m: report pairs closer than this (Euclidean; cloth thickness); 0 = touching
  int max_boxes = 1000;       ///< work cap per query; beyond it the answer is a conservative hit
};

struct CcdResult {
  bool hit = false;    ///< a collision (or a conservative hit when capped)
  bool capped = false; ///< the work cap answered
  double toi = 1.0;    ///< lower bound of the earliest collision time in [0, 1] (1 when no hit)
  int boxes = 0;       ///< boxes examined (a cost measure)
};

namespace ccd_detail {

struct Box {
  double t0, t1, u0, u1, v0, v1;
};

constexpr int kStack = 64;

// positions of the four points at time t
struct Frame {
  Vec3d x[4];
};

CB_HD CB_INLINE Frame frame_at(const Vec3d* x0, const Vec3d* d, double t) {
  Frame f;
  for (int i = 0; i < 4; ++i) f.x[i] = x0[i] + d[i] * t;
  return f;
}

// F at (frame, u, v): VF uses x = {p, a, b, c}, EE x = {a0, a1, b0, b1}
template <bool kEdgeEdge>
CB_HD CB_INLINE Vec3d eval_f(const Frame& f, double u, double v) {
  if (kEdgeEdge) return (f.x[0] + (f.x[1] - f.x[0]) * u) - (f.x[2] + (f.x[3] - f.x[2]) * v);
  return (f.x[0] - f.x[1]) - (f.x[2] - f.x[1]) * u - (f.x[3] - f.x[1]) * v;
}

CB_HD CB_INLINE double max3(Vec3d a) {
  double m = a.x > a.y ? a.x : a.y;
  return m > a.z ? m : a.z;
}
CB_HD CB_INLINE Vec3d vabs(Vec3d a) { return Vec3d(a.x < 0 ? -a.x : a.x, a.y < 0 ? -a.y : a.y, a.z < 0 ? -a.z : a.z); }

// Squared distance from zero to the box [lo - err, hi + err] (per-coordinate gaps).
CB_HD CB_INLINE double box_gap2(Vec3d lo, Vec3d hi, Vec3d err) {
  double g2 = 0;
  const double l[3] = {lo.x - err.x, lo.y - err.y, lo.z - err.z}, h[3] = {hi.x + err.x, hi.y + err.y, hi.z + err.z};
  for (int i = 0; i < 3; ++i) {
    const double g = l[i] > 0 ? l[i] : (h[i] < 0 ? -h[i] : 0.0);
    g2 += g * g;
  }
  return g2;
}

// Examines one box: 0 = discarded, 1 = accepted, 2 + axis = split along axis (0 t, 1 u, 2 v).
template <bool kEdgeEdge>
CB_HD inline int classify_box(const Vec3d* x0, const Vec3d* d, const Box& b, Vec3d err, double sep, double tol) {
  Frame f0 = frame_at(x0, d, b.t0), f1 = frame_at(x0, d, b.t1);
  Vec3d c[8];  // corner index: bit0 t, bit1 u, bit2 v
  for (int k = 0; k < 8; ++k) {
    const Frame& f = (k & 1) ? f1 : f0;
    c[k] = eval_f<kEdgeEdge>(f, (k & 2) ? b.u1 : b.u0, (k & 4) ? b.v1 : b.v0);
  }
  Vec3d lo = c[0], hi = c[0];
  for (int k = 1; k < 8; ++k) {
    lo = cmin(lo, c[k]);
    hi = cmax(hi, c[k]);
  }
  if (box_gap2(lo, hi, err) > sep * sep) return 0;
  if (max3(hi - lo) <= tol) return 1;
  // split the parameter along which F changes most
  double w[3] = {0, 0, 0};
  for (int k = 0; k < 8; ++k) {
    for (int axis = 0; axis < 3; ++axis) {
      if (k & (1 << axis)) continue;
      double m = max3(vabs(c[k | (1 << axis)] - c[k]));
      if (m > w[axis]) w[axis] = m;
    }
  }
  int axis = w[0] >= w[1] ? (w[0] >= w[2] ? 0 : 2) : (w[1] >= w[2] ? 1 : 2);
  return 2 + axis;
}

// Splits b along axis into lo and hi halves; false when the box cannot be split further.
CB_HD CB_INLINE bool split_box(const Box& b, int axis, Box* lo, Box* hi) {
  *lo = b;
  *hi = b;
  double a = axis == 0 ? b.t0 : (axis == 1 ? b.u0 : b.v0);
  double e = axis == 0 ? b.t1 : (axis == 1 ? b.u1 : b.v1);
  double m = 0.5 * (a + e);
  if (!(m > a && m < e)) return false;
  if (axis == 0) { lo->t1 = m; hi->t0 = m; }
  if (axis == 1) { lo->u1 = m; hi->u0 = m; }
  if (axis == 2) { lo->v1 = m; hi->v0 = m; }
  return true;
}

CB_HD CB_INLINE double det3d(Vec3d a, Vec3d b, Vec3d c) { return dot(a, cross(b, c)); }

// Coplanarity filter: false when the four points are never coplanar for t in [0, 1]
// (the cubic det[x1-x0, x2-x0, x3-x0](t) has Bernstein coefficients of one strict sign).
CB_HD inline bool may_be_coplanar(const Vec3d* x0, const Vec3d* x1) {
  Vec3d A0 = x0[1] - x0[0], B0 = x0[2] - x0[0], C0 = x0[3] - x0[0];
  Vec3d A1 = x1[1] - x1[0], B1 = x1[2] - x1[0], C1 = x1[3] - x1[0];
  double b0 = det3d(A0, B0, C0), b3 = det3d(A1, B1, C1);
  double b1 = (det3d(A1, B0, C0) + det3d(A0, B1, C0) + det3d(A0, B0, C1)) / 3.0;
  double b2 = (det3d(A1, B1, C0) + det3d(A1, B0, C1) + det3d(A0, B1, C1)) / 3.0;
  double ma = max3(cmax(vabs(A0), vabs(A1))), mb = max3(cmax(vabs(B0), vabs(B1)));
  double mc = max3(cmax(vabs(C0), vabs(C1)));
  // each coefficient is within ~60 u ma mb mc of its exact value (rounded differences,
  // six triple products, sums); 512 u leaves a wide margin
  double e = 512.0 * 1.1102230246251565e-16 * ma * mb * mc;
  if (b0 > e && b1 > e && b2 > e && b3 > e) return false;
  if (b0 < -e && b1 < -e && b2 < -e && b3 < -e) return false;
  return true;
}

template <bool kEdgeEdge>
CB_HD inline CcdResult solve(const Vec3d* x0, const Vec3d* x1, const CcdOptions& opt) {
  // touching needs the four points coplanar at some t (not so with a separation distance)
  if (opt.min_distance == 0.0 && !may_be_coplanar(x0, x1)) return CcdResult{};
  Vec3d d[4], m;
  for (int i = 0; i < 4; ++i) {
    d[i] = x1[i] - x0[i];
    m = cmax(m, cmax(vabs(x0[i]), vabs(x1[i])));
  }
  const double kErr = 128.0 * 1.1102230246251565e-16;  // 128 u
  const Vec3d err = m * kErr;
  CcdResult r;
  Box stack[kStack];
  int top = 0;
  stack[top++] = Box{0, 1, 0, 1, 0, 1};
  while (top > 0) {
    Box b = stack[--top];
    if (r.hit && b.t0 >= r.toi) continue;            // cannot hold an earlier collision
    if (!kEdgeEdge && b.u0 + b.v0 > 1.0) continue;  // outside the triangle u + v <= 1
    if (++r.boxes > opt.max_boxes) {
      // out of budget: every box not yet discarded may hold a collision
      r.hit = r.capped = true;
      r.toi = b.t0 < r.toi ? b.t0 : r.toi;
      for (int k = 0; k < top; ++k) r.toi = stack[k].t0 < r.toi ? stack[k].t0 : r.toi;
      return r;
    }
    int cls = classify_box<kEdgeEdge>(x0, d, b, err, opt.min_distance, opt.tolerance);
    Box lo, hi;
    if (cls >= 2 && (top + 2 > kStack || !split_box(b, cls - 2, &lo, &hi))) cls = 1;
    if (cls == 0) continue;
    if (cls >= 2) {
      stack[top++] = hi;  // later / upper half below, so the lower half is examined first
      stack[top++] = lo;
      continue;
    }
    // a hit; keep searching the boxes that start earlier for an earlier one
    r.hit = true;
    r.toi = b.t0 < r.toi ? b.t0 : r.toi;
  }
  return r;
}

}  // namespace ccd_detail

/// Vertex–face CCD. x0 = {p, a, b, c} at t = 0, x1 the same at t = 1 (m).
CB_HD inline CcdResult ccd_vertex_face(const Vec3d x0[4], const Vec3d x1[4], const CcdOptions& opt = CcdOptions{}) {
  return ccd_detail::solve<false>(x0, x1, opt);
}

/// Edge–edge CCD. x0 = {a0, a1, b0, b1} at t = 0 (edge a = a0a1, edge b = b0b1), x1 at t = 1 (m).
CB_HD inline CcdResult ccd_edge_edge(const Vec3d x0[4], const Vec3d x1[4], const CcdOptions& opt = CcdOptions{}) {
  return ccd_detail::solve<true>(x0, x1, opt);
}

}  // namespace cb
