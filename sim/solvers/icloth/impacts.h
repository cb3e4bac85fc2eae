// Impacts of the I-Cloth penetration handling: a vertex-face or edge-edge pair
// that the CCD found colliding during the step, turned into the linear
// non-penetration constraint of Tang et al. 2018, Eq. 1-3:
//   c(x) = n . sum_k w_k x_k - d >= 0,
// with the weights and the normal taken at the time of impact and the normal
// oriented by the side the features were on at the start of the step.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/collision/proximity.h"
#include "sim/core/math.h"

namespace cb::icloth {

struct Impact {
  int32_t v[4];   ///< combined vertex ids (cloth first, then obstacle vertices)
  float w[4];     ///< VF: (1, -b0, -b1, -b2); EE: (1-s, s, -(1-t), -t)
  Vec3f n;        ///< unit normal
  float d = 0;    ///< m, separation to restore
  float toi = 1;  ///< time of impact in [0, 1] (a lower bound, from the CCD)
};

/// True when one of the impact's features is an obstacle's (a combined id at or
/// past nverts; a feature is all cloth or all obstacle).
inline bool against_obstacle(const Impact& im, size_t nverts) {
  for (int k = 0; k < 4; ++k)
    if (size_t(im.v[k]) >= nverts) return true;
  return false;
}

/// Impact of vertex-face (p | a b c) or edge-edge (a0 a1 | b0 b1) features x0/x1
/// (start/end, {p,a,b,c} or {a0,a1,b0,b1}) at time toi in [0, 1].
inline Impact make_impact(bool edge_edge, const int32_t v[4], const Vec3d x0[4], const Vec3d x1[4], double toi,
                          float d) {
  Vec3d xt[4];
  for (int k = 0; k < 4; ++k) xt[k] = x0[k] + (x1[k] - x0[k]) * toi;
  Impact im;
  for (int k = 0; k < 4; ++k) im.v[k] = v[k];
  Vec3d n, fallback;
  double w[4];
  if (!edge_edge) {
    PointTriResult<double> r = closest_point_triangle(xt[0], xt[1], xt[2], xt[3]);
    w[0] = 1;
    w[1] = -r.w[0];
    w[2] = -r.w[1];
    w[3] = -r.w[2];
    n = xt[0] - r.point;
    fallback = cross(xt[2] - xt[1], xt[3] - xt[1]);
  } else {
    SegSegResult<double> r = closest_points_segments(xt[0], xt[1], xt[2], xt[3]);
    w[0] = 1 - r.s;
    w[1] = r.s;
    w[2] = -(1 - r.t);
    w[3] = -r.t;
    n = r.c1 - r.c2;
    fallback = cross(xt[1] - xt[0], xt[3] - xt[2]);
  }
  if (length(n) < 1e-9) n = fallback;
  if (length(n) < 1e-18) n = Vec3d{0, 0, 1};
  n = normalize(n);
  // orient by the start of the step: the weighted difference at t = 0 is positive
  Vec3d s0{};
  for (int k = 0; k < 4; ++k) s0 += x0[k] * w[k];
  if (dot(n, s0) < 0) n = -n;
  for (int k = 0; k < 4; ++k) im.w[k] = float(w[k]);
  im.n = Vec3f(n);
  im.d = d;
  im.toi = float(toi);
  return im;
}

}  // namespace cb::icloth
