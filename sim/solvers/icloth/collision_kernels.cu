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

namespace {

// The triangle pairs CCD tests (i < j): not two obstacle triangles, cloth-cloth
// only with self-collision, at least one in T_d when td is given, and no shared
// vertex.
struct CandidateKeep {
  int nc;
  bool self_collision;
  const uint8_t* td;
  const Int3* tris;
  CB_HD bool operator()(int i, int j) const {
    if (i >= nc) return false;  // both obstacle triangles
    if (j < nc && !self_collision) return false;
    if (td && !td[i] && !td[j]) return false;
    const Int3 ta = tris[i], tb = tris[j];
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        if (ta[p] == tb[q]) return false;
    return true;
  }
};

}  // namespace

size_t candidate_pairs(const Context& ctx, const SweptSoup& s, const Aabb* boxes, const uint8_t* td,
                       bool self_collision, DeviceBuffer<Int2>& out) {
  // a body larger than its garment: its triangles that cannot meet the cloth stay out of the hash
  return find_box_pairs_with_first(ctx, boxes, s.ntris, s.ncloth, CandidateKeep{s.ncloth, self_collision, td, s.tris},
                                   out);
}

}  // namespace cb::icloth
