// CCD candidate pairs from swept triangle boxes; see ccd_candidates.h.
#include "sim/collision/ccd_candidates.h"

#include <array>

#include "sim/collision/box_pairs.h"
#include "sim/core/collect.h"

namespace cb {
namespace {

// A vertex's swept box: its start and end positions, grown by margin (m).
CB_HD CB_INLINE Aabb swept_vertex_box(const Vec3f* x0, const Vec3f* x1, float margin, int v) {
  Aabb b;
  b.grow(x0[v]);
  b.grow(x1[v]);
  b.lo -= Vec3f(margin, margin, margin);
  b.hi += Vec3f(margin, margin, margin);
  return b;
}

// The swept boxes of the step's features, computed once (the emission below
// tests each of them against many neighbours, twice: count, then write).
struct FeatureBoxes {
  const Aabb* vert;  ///< (nverts)
  const Aabb* edge;  ///< (nedges)
  const Aabb* tri;   ///< (ntris)
};

CB_HD CB_INLINE bool in_tri(int v, Int3 t) { return v == t.a || v == t.b || v == t.c; }

// Emits the pairs of triangle pair (i, j) and their counts; null outputs count only.
CB_HD inline void emit_pairs(const CcdMesh& m, const FeatureBoxes& fb, int i, int j, Int2* vf, Int2* ee,
                             uint32_t* nvf, uint32_t* nee) {
  uint32_t cv = 0, ce = 0;
  for (int side = 0; side < 2; ++side) {
    int ti = side == 0 ? i : j, tj = side == 0 ? j : i;
    Int3 a = m.tris[ti], b = m.tris[tj];
    for (int k = 0; k < 3; ++k) {
      int v = a[k];
      if (m.vert_owner[v] != ti || in_tri(v, b)) continue;
      if (!overlaps(fb.vert[v], fb.tri[tj])) continue;
      if (vf) vf[cv] = Int2{v, tj};
      ++cv;
    }
  }
  Int3 ei = m.tri_edges[i], ej = m.tri_edges[j];
  for (int k = 0; k < 3; ++k) {
    int e1 = ei[k];
    if (m.edge_owner[e1] != i) continue;
    Int2 E1 = m.edges[e1];
    const Aabb b1 = fb.edge[e1];
    for (int l = 0; l < 3; ++l) {
      int e2 = ej[l];
      if (m.edge_owner[e2] != j) continue;
      Int2 E2 = m.edges[e2];
      if (E1.a == E2.a || E1.a == E2.b || E1.b == E2.a || E1.b == E2.b) continue;
      if (!overlaps(b1, fb.edge[e2])) continue;
      if (ee) ee[ce] = Int2{e1 < e2 ? e1 : e2, e1 < e2 ? e2 : e1};
      ++ce;
    }
  }
  *nvf = cv;
  *nee = ce;
}

// Swept boxes of every vertex, then of every edge and triangle as the union of
// its vertices' boxes.
void feature_boxes(const Context& ctx, const Vec3f* x0, const Vec3f* x1, float margin, const CcdMesh& m,
                   CcdCandidates& out) {
  out.vert_box.resize(ctx, size_t(m.nverts));
  out.edge_box.resize(ctx, size_t(m.nedges));
  out.tri_box.resize(ctx, size_t(m.ntris));
  Aabb* vb = out.vert_box.data();
  Aabb* eb = out.edge_box.data();
  Aabb* tb = out.tri_box.data();
  parallel_for(ctx, m.nverts, [=] CB_HD(int v) { vb[v] = swept_vertex_box(x0, x1, margin, v); });
  const Int2* edges = m.edges;
  parallel_for(ctx, m.nedges, [=] CB_HD(int e) {
    Aabb b = vb[edges[e].a];
    b.grow(vb[edges[e].b]);
    eb[e] = b;
  });
  const Int3* tris = m.tris;
  parallel_for(ctx, m.ntris, [=] CB_HD(int i) {
    Int3 t = tris[i];
    Aabb b = vb[t.a];
    b.grow(vb[t.b]);
    b.grow(vb[t.c]);
    tb[i] = b;
  });
}

// emit_pairs of each triangle pair k, as functors for the CPU backend
// (parallel.h): the counts, then the pairs at the scanned offsets
struct CountEmitted {
  CcdMesh m;
  FeatureBoxes fb;
  const Int2* pairs;
  uint32_t *nvf, *nee;
  CB_HD void operator()(int k) const { emit_pairs(m, fb, pairs[k].a, pairs[k].b, nullptr, nullptr, nvf + k, nee + k); }
};

struct WriteEmitted {
  CcdMesh m;
  FeatureBoxes fb;
  const Int2* pairs;
  const uint32_t *vf_off, *ee_off;
  Int2 *vf, *ee;
  CB_HD void operator()(int k) const {
    uint32_t nvf, nee;
    emit_pairs(m, fb, pairs[k].a, pairs[k].b, vf + vf_off[k], ee + ee_off[k], &nvf, &nee);
  }
};

// emit_pairs of triangle pair k into collect_in_order's two streams (vf, ee):
// at most 6 vertex-face and 9 edge-edge pairs
struct EmitInto {
  CcdMesh m;
  FeatureBoxes fb;
  const Int2* pairs;
  std::array<uint32_t, 2> operator()(int k, const std::array<Int2*, 2>& w) const {
    uint32_t nvf, nee;
    emit_pairs(m, fb, pairs[k].a, pairs[k].b, w[0], w[1], &nvf, &nee);
    return {nvf, nee};
  }
};

struct EmitRoom {
  std::array<uint32_t, 2> operator()(int) const { return {6u, 9u}; }
};

void emit_all(const Context& ctx, const CcdMesh& m, const FeatureBoxes& fb, const Int2* pairs, int np,
              CcdCandidates& out) {
  if (!ctx.is_cuda()) {  // one pass (collect.h)
    collect_in_order<Int2, 2>(ctx, np, EmitRoom{}, EmitInto{m, fb, pairs},
                              std::array<DeviceBuffer<Int2>*, 2>{&out.vf, &out.ee});
    return;
  }
  out.vf_count.resize(ctx, size_t(np));
  out.ee_count.resize(ctx, size_t(np));
  uint32_t* a = out.vf_count.data();
  uint32_t* b = out.ee_count.data();
  parallel_for(ctx, np, CountEmitted{m, fb, pairs, a, b});
  const std::array<uint32_t, 2> counts = exclusive_scans(ctx, a, b, size_t(np));
  out.vf.resize(ctx, counts[0]);
  out.ee.resize(ctx, counts[1]);
  parallel_for(ctx, np, WriteEmitted{m, fb, pairs, a, b, out.vf.data(), out.ee.data()});
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
  feature_boxes(ctx, x0, x1, margin, mesh, out);
  const FeatureBoxes fb{out.vert_box.data(), out.edge_box.data(), out.tri_box.data()};
  find_box_pairs(ctx, fb.tri, mesh.ntris, cell_size, KeepAllPairs{}, out.tri_pairs);
  emit_all(ctx, mesh, fb, out.tri_pairs.data(), int(out.tri_pairs.size()), out);
}

}  // namespace cb
