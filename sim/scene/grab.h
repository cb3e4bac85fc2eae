// The mouse-grab constraint: one surface point of the cloth (a triangle and
// barycentric weights) pulled towards a target. Every solver honours it.
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

struct Grab {
  bool active = false;
  Int3 verts{-1, -1, -1};     ///< the grabbed triangle's vertices
  Vec3f bary{1.f / 3, 1.f / 3, 1.f / 3};  ///< barycentric weights of the grabbed point
  Vec3f target{0, 0, 0};      ///< m, where the user holds the point
  float stiffness = 1.0f;     ///< in (0, 1]: fraction of the gap closed per solver iteration
};

/// Position-based projection of the grab (Mueller et al. 2007 attachment): moves
/// the three vertices so that the barycentric point moves `stiffness` of the way to
/// the target, each by w_i * bary_i / sum_j(w_j bary_j^2). Pinned vertices (w = 0)
/// do not move. x: (nverts) m, w: (nverts) inverse masses.
CB_HD inline void project_grab(const Grab& g, Vec3f* x, const float* w) {
  if (!g.active) return;
  Vec3f p = x[g.verts.a] * g.bary.x + x[g.verts.b] * g.bary.y + x[g.verts.c] * g.bary.z;
  Vec3f gap = (g.target - p) * g.stiffness;
  float wa = w[g.verts.a], wb = w[g.verts.b], wc = w[g.verts.c];
  float denom = wa * g.bary.x * g.bary.x + wb * g.bary.y * g.bary.y + wc * g.bary.z * g.bary.z;
  if (denom <= 0) return;
  x[g.verts.a] += gap * (wa * g.bary.x / denom);
  x[g.verts.b] += gap * (wb * g.bary.y / denom);
  x[g.verts.c] += gap * (wc * g.bary.z / denom);
}

}  // namespace cb
