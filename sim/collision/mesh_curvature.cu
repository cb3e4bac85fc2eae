// Discrete curvature of a triangle mesh across its edges (see mesh_curvature.h).
#include "sim/collision/mesh_curvature.h"

#include <cmath>
#include <map>
#include <utility>

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

std::vector<Int3> triangle_neighbours(const std::vector<Int3>& tris) {
  // edge (lo, hi) -> the first triangle and its edge slot; -2 marks a third
  std::map<std::pair<int32_t, int32_t>, std::pair<int32_t, int>> first;
  std::vector<Int3> out(tris.size(), Int3{-1, -1, -1});
  auto set = [&out](int32_t t, int slot, int32_t v) {
    Int3& o = out[size_t(t)];
    (slot == 0 ? o.a : slot == 1 ? o.b : o.c) = v;
  };
  for (size_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      const int32_t u = tris[t][k], v = tris[t][(k + 1) % 3];
      const auto key = std::make_pair(std::min(u, v), std::max(u, v));
      auto it = first.find(key);
      if (it == first.end()) {
        first.emplace(key, std::make_pair(int32_t(t), k));
      } else if (it->second.first >= 0 && out[size_t(it->second.first)][it->second.second] == -1) {
        set(it->second.first, it->second.second, int32_t(t));
        set(int32_t(t), k, it->second.first);
      } else if (it->second.first >= 0) {  // a third triangle on the edge: no neighbour across it
        const int32_t other = out[size_t(it->second.first)][it->second.second];
        for (int j = 0; j < 3; ++j)
          if (other >= 0 && out[size_t(other)][j] == it->second.first) set(other, j, -1);
        set(it->second.first, it->second.second, -1);
        it->second.first = -2;
      }
    }
  return out;
}

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
