// Discrete curvature of a triangle mesh across its edges (see mesh_curvature.h).
#include "sim/collision/mesh_curvature.h"

#include <cmath>

#include "sim/core/parallel.h"

namespace cb {
namespace {

// The unit normal (times 0 for no area) and centroid of triangle t.
struct Face {
  Vec3f n, c;
  bool ok = false;
};

CB_HD inline Face face_of(const Vec3f* x, Int3 t) {
  const Vec3f a = x[t.a], b = x[t.b], c = x[t.c];
  const Vec3f n = cross(b - a, c - a);
  const float len = length(n);
  Face f;
  f.c = (a + b + c) * (1.f / 3.f);
  f.ok = len > 0.f;
  f.n = f.ok ? n * (1.f / len) : Vec3f{0, 0, 0};
  return f;
}

// 1/m: the angle between two faces' normals (below 90 degrees) over their
// centroids' distance.
CB_HD inline float bend_between(const Face& f, const Face& g) {
  if (!f.ok || !g.ok) return 0.f;
  const float d = length(g.c - f.c);
  if (!(d > 0.f)) return 0.f;
  const float angle = atan2f(length(cross(f.n, g.n)), fabsf(dot(f.n, g.n)));
  return angle / d;
}

}  // namespace

void triangle_curvature(const Context& ctx, const Vec3f* x, const Int3* tris, const Int3* nbrs, int n,
                        TriangleBend* out) {
  parallel_for(ctx, n, [=] CB_HD(int t) {
    const Face f = face_of(x, tris[t]);
    const Int3 nb = nbrs[t];
    TriangleBend b;
    for (int e = 0; e < 3; ++e) {
      const int32_t u = nb[e];
      if (u < 0) continue;
      const Face g = face_of(x, tris[u]);
      const float k = bend_between(f, g);
      // the neighbour behind the plane seen from the front: it turns away from the front
      if (dot(g.c - f.c, f.n) < 0.f)
        b.front = fmaxf(b.front, k);
      else
        b.back = fmaxf(b.back, k);
    }
    out[t] = b;
  });
}

}  // namespace cb
