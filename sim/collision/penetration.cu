#include "sim/collision/penetration.h"

#include "sim/collision/box_pairs.h"
#include "sim/collision/boxes.h"
#include "sim/collision/tri_tri.h"
#include "sim/core/buffer.h"
#include "sim/core/union_find.h"

namespace cb {
namespace {

// boxes of the combined soup: cloth triangles first, then obstacle triangles
void combined_boxes(const Context& ctx, const TriSet& c, const TriSet& o, Aabb* boxes) {
  const Vec3f* cx = c.x;
  const Int3* ct = c.tris;
  const Vec3f* ox = o.x;
  const Int3* ot = o.tris;
  int nc = c.ntris;
  parallel_for(ctx, c.ntris + o.ntris, [=] CB_HD(int i) {
    const Vec3f* x = i < nc ? cx : ox;
    boxes[i] = triangle_box(x, i < nc ? ct[i] : ot[i - nc]);
  });
}

CB_HD CB_INLINE bool share_vertex(Int3 a, Int3 b) {
  return a.a == b.a || a.a == b.b || a.a == b.c || a.b == b.a || a.b == b.b || a.b == b.c || a.c == b.a ||
         a.c == b.b || a.c == b.c;
}

// 0 = no intersection, 1 within a cloth, 2 between cloths, 3 cloth-obstacle
void classify_pairs(const Context& ctx, const TriSet& c, const TriSet& o, const Int2* pairs, int n, uint32_t* cls) {
  const Vec3f* cx = c.x;
  const Int3* ct = c.tris;
  const Vec3f* ox = o.x;
  const Int3* ot = o.tris;
  const uint32_t* group = c.tri_group;
  int nc = c.ntris;
  parallel_for(ctx, n, [=] CB_HD(int k) {
    Int2 p = pairs[k];  // p.a < p.b, so p.a is always a cloth triangle
    Int3 ta = ct[p.a];
    bool obstacle = p.b >= nc;
    Int3 tb = obstacle ? ot[p.b - nc] : ct[p.b];
    const Vec3f* xb = obstacle ? ox : cx;
    Vec3f A[3] = {cx[ta.a], cx[ta.b], cx[ta.c]};
    Vec3f B[3] = {xb[tb.a], xb[tb.b], xb[tb.c]};
    if (!triangles_intersect(A, B)) {
      cls[k] = 0;
    } else if (obstacle) {
      cls[k] = 3;
    } else {
      cls[k] = (group && group[p.a] != group[p.b]) ? 2u : 1u;
    }
  });
}

// Broad-phase pairs worth an exact test (i < j): a cloth triangle with an
// obstacle triangle, or two cloth triangles that share no vertex.
struct ClothPairKeep {
  int nc;
  const Int3* ct;
  CB_HD bool operator()(int i, int j) const { return i < nc && (j >= nc || !share_vertex(ct[i], ct[j])); }
};

}  // namespace

IntersectionCounts count_intersections(const Context& ctx, const TriSet& cloth, const TriSet& obstacle,
                                       std::vector<Int2>* pairs) {
  IntersectionCounts out;
  int n = cloth.ntris + obstacle.ntris;
  if (pairs) pairs->clear();
  if (cloth.ntris == 0) return out;
  DeviceBuffer<Aabb> boxes(ctx, size_t(n));
  combined_boxes(ctx, cloth, obstacle, boxes.data());
  const Int3* ct = cloth.tris;
  int nc = cloth.ntris;
  DeviceBuffer<Int2> cand;
  // broad phase: skip obstacle-obstacle pairs and cloth triangles sharing a vertex
  // (obstacle triangles that cannot meet the cloth stay out of the hash)
  find_box_pairs_with_first(ctx, boxes.data(), n, nc, ClothPairKeep{nc, ct}, cand);
  out.candidates = cand.size();
  if (cand.empty()) return out;
  DeviceBuffer<uint32_t> cls(ctx, cand.size());
  classify_pairs(ctx, cloth, obstacle, cand.data(), int(cand.size()), cls.data());
  auto h = cls.to_host();
  std::vector<Int2> hp;
  if (pairs) hp = cand.to_host();
  for (size_t k = 0; k < h.size(); ++k) {
    if (h[k] == 0) continue;
    if (h[k] == 1) ++out.within_cloth;
    if (h[k] == 2) ++out.between_cloths;
    if (h[k] == 3) ++out.cloth_obstacle;
    if (pairs) pairs->push_back(hp[k]);
  }
  return out;
}

std::vector<uint32_t> triangle_components(size_t nverts, const std::vector<Int3>& tris) {
  // union-find over vertices, then one label per triangle
  UnionFind sets(nverts);
  for (const Int3& t : tris) {
    sets.unite(t.a, t.b);
    sets.unite(t.b, t.c);
  }
  std::vector<uint32_t> label(nverts, ~0u), out(tris.size());
  uint32_t next = 0;
  for (size_t i = 0; i < tris.size(); ++i) {
    const size_t r = size_t(sets.find(tris[i].a));
    if (label[r] == ~0u) label[r] = next++;
    out[i] = label[r];
  }
  return out;
}

}  // namespace cb
