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
  auto keep_soup = [=] CB_HD(int i, int j) {  // i < j, soup ids
    if (i >= nc) return false;  // both obstacle triangles
    if (j < nc && !self_collision) return false;
    if (td && !td[i] && !td[j]) return false;
    Int3 ta = tris[i], tb = tris[j];
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q)
        if (ta[p] == tb[q]) return false;
    return true;
  };
  if (s.ntris - nc <= nc) return find_box_pairs(ctx, boxes, s.ntris, 0.f, keep_soup, out);
  // An obstacle with more triangles than the cloth (a body under a garment): the
  // obstacle triangles whose box misses the box around all cloth boxes cannot be
  // in a pair and are left out of the hash, which they would otherwise fill with
  // obstacle-obstacle neighbours that keep_soup rejects.
  Aabb cloth_bounds;
  float mean_extent = 0.f;
  if (nc > 0) box_pairs_detail::box_stats(ctx, boxes, nc, &cloth_bounds, &mean_extent);
  DeviceBuffer<uint32_t> flags(ctx, size_t(s.ntris)), idx(ctx, size_t(s.ntris));
  uint32_t* f = flags.data();
  parallel_for(ctx, s.ntris, [=] CB_HD(int i) { f[i] = i < nc || overlaps(boxes[i], cloth_bounds) ? 1u : 0u; });
  const int m = int(compact_indices(ctx, flags.data(), idx.data(), size_t(s.ntris)));  // increasing: cloth first
  DeviceBuffer<Aabb> sub(ctx, size_t(m));
  const uint32_t* id = idx.data();
  Aabb* sb = sub.data();
  parallel_for(ctx, m, [=] CB_HD(int k) { sb[k] = boxes[id[k]]; });
  auto keep = [=] CB_HD(int a, int b) { return keep_soup(int(id[a]), int(id[b])); };  // ids increase with a, b
  const size_t np = find_box_pairs(ctx, sub.data(), m, 0.f, keep, out);
  Int2* o = out.data();
  parallel_for(ctx, int(np), [=] CB_HD(int k) { o[k] = Int2{int(id[o[k].a]), int(id[o[k].b])}; });
  return np;
}

}  // namespace cb::icloth
