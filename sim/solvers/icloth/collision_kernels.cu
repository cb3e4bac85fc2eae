// Broad phase of the I-Cloth penetration handling (see collision_kernels.h).
#include "sim/solvers/icloth/collision_kernels.h"

#include "sim/collision/box_pairs.h"

namespace cb::icloth {

void swept_boxes(const Context& ctx, const SweptSoup& s, float margin, Aabb* boxes) {
  parallel_for(ctx, s.ntris, [=] CB_HD(int i) {
    Int3 t = s.tris[i];
    Aabb b;
    for (int k = 0; k < 3; ++k) {
      b.grow(s.x0[t[k]]);
      b.grow(s.x1[t[k]]);
    }
    b.lo -= Vec3f{margin, margin, margin};
    b.hi += Vec3f{margin, margin, margin};
    boxes[i] = b;
  });
}

size_t candidate_pairs(const Context& ctx, const SweptSoup& s, const Aabb* boxes, const uint8_t* td,
                       bool self_collision, DeviceBuffer<Int2>& out) {
  const Int3* tris = s.tris;
  const int nc = s.ncloth;
  auto keep = [=] CB_HD(int i, int j) {
    if (i >= nc) return false;  // i < j: both obstacle triangles
    if (j < nc && !self_collision) return false;
    if (td && !td[i] && !td[j]) return false;
    Int3 a = tris[i], b = tris[j];
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        if (a[p] == b[q]) return false;
    return true;
  };
  return find_box_pairs(ctx, boxes, s.ntris, 0.f, keep, out);
}

}  // namespace cb::icloth
