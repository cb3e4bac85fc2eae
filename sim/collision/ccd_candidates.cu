// CCD candidate pairs from swept triangle boxes; see ccd_candidates.h.
#include "sim/collision/ccd_candidates.h"

#include "sim/collision/box_pairs.h"

namespace cb {
namespace {

struct SweptArgs {
  const Vec3f* x0;
  const Vec3f* x1;
  float margin;
  CB_HD CB_INLINE Aabb vertex_box(int v) const {
    Aabb b;
    b.grow(x0[v]);
    b.grow(x1[v]);
    b.lo -= Vec3f(margin, margin, margin);
    b.hi += Vec3f(margin, margin, margin);
    return b;
  }
  CB_HD CB_INLINE Aabb edge_box(Int2 e) const {
    Aabb b = vertex_box(e.a);
    b.grow(vertex_box(e.b));
    return b;
  }
};

CB_HD CB_INLINE bool in_tri(int v, Int3 t) { return v == t.a || v == t.b || v == t.c; }

// Emits the pairs of triangle pair (i, j) and their counts; null outputs count only.
CB_HD inline void emit_pairs(const CcdMesh& m, const SweptArgs& s, const Aabb* tri_box, int i, int j, Int2* vf,
                             Int2* ee, uint32_t* nvf, uint32_t* nee) {
  uint32_t cv = 0, ce = 0;
  for (int side = 0; side < 2; ++side) {
    int ti = side == 0 ? i : j, tj = side == 0 ? j : i;
    Int3 a = m.tris[ti], b = m.tris[tj];
    for (int k = 0; k < 3; ++k) {
      int v = a[k];
      if (m.vert_owner[v] != ti || in_tri(v, b)) continue;
      if (!overlaps(s.vertex_box(v), tri_box[tj])) continue;
      if (vf) vf[cv] = Int2{v, tj};
      ++cv;
    }
  }
  Int3 ei = m.tri_edges[i], ej = m.tri_edges[j];
  for (int k = 0; k < 3; ++k) {
    int e1 = ei[k];
    if (m.edge_owner[e1] != i) continue;
    Int2 E1 = m.edges[e1];
    Aabb b1 = s.edge_box(E1);
    for (int l = 0; l < 3; ++l) {
      int e2 = ej[l];
      if (m.edge_owner[e2] != j) continue;
      Int2 E2 = m.edges[e2];
      if (E1.a == E2.a || E1.a == E2.b || E1.b == E2.a || E1.b == E2.b) continue;
      if (!overlaps(b1, s.edge_box(E2))) continue;
      if (ee) ee[ce] = Int2{e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1};
      ++ce;
    }
  }
  *nvf = cv;
  *nee = ce;
}

void swept_tri_boxes(const Context& ctx, const SweptArgs& s, const Int3* tris, int n, Aabb* boxes) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Int3 t = tris[i];
    Aabb b = s.vertex_box(t.a);
    b.grow(s.vertex_box(t.b));
    b.grow(s.vertex_box(t.c));
    boxes[i] = b;
  });
}

void emit_all(const Context& ctx, const CcdMesh& m, const SweptArgs& s, const Aabb* tri_box, const Int2* pairs,
              int np, CcdCandidates& out) {
  DeviceBuffer<uint32_t> cvf(ctx, size_t(np)), cee(ctx, size_t(np));
  uint32_t* a = cvf.data();
  uint32_t* b = cee.data();
  parallel_for(ctx, np, [=] CB_HD(int k) {
    emit_pairs(m, s, tri_box, pairs[k].a, pairs[k].b, nullptr, nullptr, a + k, b + k);
  });
  size_t nvf = exclusive_scan(ctx, a, a, size_t(np));
  size_t nee = exclusive_scan(ctx, b, b, size_t(np));
  out.vf.resize(ctx, nvf);
  out.ee.resize(ctx, nee);
  Int2* vf = out.vf.data();
  Int2* ee = out.ee.data();
  parallel_for(ctx, np, [=] CB_HD(int k) {
    uint32_t dummy_v, dummy_e;
    emit_pairs(m, s, tri_box, pairs[k].a, pairs[k].b, vf + a[k], ee + b[k], &dummy_v, &dummy_e);
  });
}

}  // namespace

void make_feature_owners(size_t nverts, const std::vector<Int3>& tris, const Topology& topo,
                         std::vector<int32_t>* vert_owner, std::vector<int32_t>* edge_owner) {
  vert_owner->assign(nverts, -1);
  for (size_t t = tris.size(); t-- > 0;) {
    // walking backwards leaves each vertex with its first triangle
    (*vert_owner)[size_t(tris[t].a)] = int32_t(t);
    (*vert_owner)[size_t(tris[t].b)] = int32_t(t);
    (*vert_owner)[size_t(tris[t].c)] = int32_t(t);
  }
  edge_owner->resize(topo.edges.size());
  for (size_t e = 0; e < topo.edges.size(); ++e) {
    Int2 et = topo.edge_tris[e];
    (*edge_owner)[e] = et.a >= 0 ? et.a : et.b;
  }
}

void CcdTopology::upload(const Context& ctx, size_t nverts, const std::vector<Int3>& tris, const Topology& topo) {
  std::vector<int32_t> vo, eo;
  make_feature_owners(nverts, tris, topo, &vo, &eo);
  tris_.upload(ctx, tris);
  tri_edges_.upload(ctx, topo.tri_edges);
  edges_.upload(ctx, topo.edges);
  vert_owner_.upload(ctx, vo);
  edge_owner_.upload(ctx, eo);
  nverts_ = int(nverts);
}

CcdMesh CcdTopology::view() const {
  CcdMesh m;
  m.tris = tris_.data();
  m.edges = edges_.data();
  m.tri_edges = tri_edges_.data();
  m.vert_owner = vert_owner_.data();
  m.edge_owner = edge_owner_.data();
  m.ntris = int(tris_.size());
  m.nedges = int(edges_.size());
  m.nverts = nverts_;
  return m;
}

void find_ccd_candidates(const Context& ctx, const Vec3f* x0, const Vec3f* x1, const CcdMesh& mesh, float margin,
                         float cell_size, CcdCandidates& out) {
  SweptArgs s{x0, x1, margin};
  DeviceBuffer<Aabb> boxes(ctx, size_t(mesh.ntris));
  swept_tri_boxes(ctx, s, mesh.tris, mesh.ntris, boxes.data());
  find_box_pairs(ctx, boxes.data(), mesh.ntris, cell_size, [] CB_HD(int, int) { return true; }, out.tri_pairs);
  emit_all(ctx, mesh, s, boxes.data(), out.tri_pairs.data(), int(out.tri_pairs.size()), out);
}

}  // namespace cb
