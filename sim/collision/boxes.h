// Bounding boxes of triangles, shared by the broad phases, the BVH users and the
// penetration counter.
#pragma once

#include "sim/core/backend.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// Box of triangle t of the vertex array x (m).
CB_HD CB_INLINE Aabb triangle_box(const Vec3f* x, Int3 t) {
  Aabb b;
  b.grow(x[t.a]);
  b.grow(x[t.b]);
  b.grow(x[t.c]);
  return b;
}

/// boxes[i] = triangle_box(x, tris[i]) for i < n (backend memory).
void triangle_boxes(const Context& ctx, const Vec3f* x, const Int3* tris, int n, Aabb* boxes);

}  // namespace cb
