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
  const int nc = s.ncloth;
  const Int3* tris = s.tris;
  auto keep = [=] CB_HD(int i, int j) {  // i < j
    if (i >= nc) return false;  // both obstacle triangles
    if (j < nc && !self_collision) return false;
    if (td && !td[i] && !td[j]) return false;
    Int3 ta = tris[i], tb = tris[j];
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        if (ta[p] == tb[q]) return false;
    return true;
  };
  // a body larger than its garment: its triangles that cannot meet the cloth stay out of the hash
  return find_box_pairs_with_first(ctx, boxes, s.ntris, nc, keep, out);
}

}  // namespace cb::icloth
