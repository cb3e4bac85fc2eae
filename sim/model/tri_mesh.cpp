#include "sim/model/tri_mesh.h"

namespace cb {

Aabb bounds(const TriMesh& m) {
  Aabb b;
  for (const Vec3f& p : m.positions) b.grow(p);
  return b;
}

void transform_mesh(TriMesh& m, const Transform& T, float scale) {
  for (Vec3f& p : m.positions) p = T.apply(p * scale);
}

}  // namespace cb
