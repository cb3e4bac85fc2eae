#include "sim/model/tri_mesh.h"

#include <algorithm>

namespace cb {

Aabb bounds(const TriMesh& m) {
  Aabb b;
  for (const Vec3f& p : m.positions) b.grow(p);
  return b;
}

void transform_points(std::vector<Vec3f>& x, const Transform& T, float scale) {
  for (Vec3f& p : x) p = T.apply(p * scale);
}

float short_edge(const std::vector<Vec3f>& x, const std::vector<Int3>& tris) {
  std::vector<float> shortest;
  shortest.reserve(tris.size());
  for (const Int3& t : tris) {
    const Vec3f a = x[size_t(t.a)], b = x[size_t(t.b)], c = x[size_t(t.c)];
    shortest.push_back(std::min(length(b - a), std::min(length(c - b), length(a - c))));
  }
  if (shortest.empty()) return 0.f;
  auto p1 = shortest.begin() + std::ptrdiff_t(shortest.size() / 100);
  std::nth_element(shortest.begin(), p1, shortest.end());
  return *p1;
}

}  // namespace cb
