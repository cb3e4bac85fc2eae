#include "sim/model/topology.h"

#include <algorithm>

namespace cb {
namespace {

struct HalfEdge {
  uint64_t key;  // (min << 32) | max
  uint32_t tri;
  uint32_t opposite;  // vertex opposite the edge in `tri`
  uint8_t local;      // 0..2: which edge of the triangle
};

uint64_t edge_key(int32_t a, int32_t b) {
  uint32_t lo = uint32_t(std::min(a, b)), hi = uint32_t(std::max(a, b));
  return (uint64_t(lo) << 32) | hi;
}

}  // namespace

Csr csr_from_lists(const std::vector<std::vector<uint32_t>>& lists) {
  Csr c;
  c.offsets.resize(lists.size() + 1, 0);
  for (size_t i = 0; i < lists.size(); ++i) c.offsets[i + 1] = c.offsets[i] + uint32_t(lists[i].size());
  c.indices.reserve(c.offsets.back());
  for (const auto& l : lists) c.indices.insert(c.indices.end(), l.begin(), l.end());
  return c;
}

namespace {

// sorts half-edges so the (at most a few) triangles of each edge are adjacent
std::vector<HalfEdge> sorted_half_edges(const std::vector<Int3>& tris) {
  std::vector<HalfEdge> he;
  he.reserve(tris.size() * 3);
  for (uint32_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) {
      int32_t a = tris[t][(k + 1) % 3], b = tris[t][(k + 2) % 3];
      he.push_back({edge_key(a, b), t, uint32_t(tris[t][k]), uint8_t(k)});
    }
  std::sort(he.begin(), he.end(), [](const HalfEdge& x, const HalfEdge& y) {
    return x.key != y.key ? x.key < y.key : x.tri < y.tri;
  });
  return he;
}

}  // namespace

std::vector<Int3> triangle_neighbours(const std::vector<Int3>& tris) {
  std::vector<Int3> out(tris.size(), Int3{-1, -1, -1});
  const std::vector<HalfEdge> he = sorted_half_edges(tris);
  for (size_t i = 0; i < he.size();) {
    size_t j = i;
    while (j < he.size() && he[j].key == he[i].key) ++j;
    if (j - i == 2)  // half-edge `local` k is edge (v[k+1], v[k+2]): slot (k + 1) % 3
      for (int s = 0; s < 2; ++s) {
        const HalfEdge& h = he[i + size_t(s)];
        Int3& o = out[h.tri];
        const int slot = (h.local + 1) % 3;
        (slot == 0 ? o.a : slot == 1 ? o.b : o.c) = int32_t(he[i + size_t(1 - s)].tri);
      }
    i = j;
  }
  return out;
}

namespace {

void build_edges_and_bends(const std::vector<Int3>& tris, Topology& topo) {
  std::vector<HalfEdge> he = sorted_half_edges(tris);
  topo.tri_edges.assign(tris.size(), Int3{-1, -1, -1});
  for (size_t i = 0; i < he.size();) {
    size_t j = i;
    while (j < he.size() && he[j].key == he[i].key) ++j;
    uint32_t e = uint32_t(topo.edges.size());
    int32_t a = int32_t(he[i].key >> 32), b = int32_t(he[i].key & 0xffffffffu);
    topo.edges.push_back({a, b});
    topo.edge_tris.push_back({int32_t(he[i].tri), j - i > 1 ? int32_t(he[i + 1].tri) : -1});
    if (j - i == 1) topo.boundary_edges.push_back(e);
    if (j - i > 2) topo.nonmanifold_edges.push_back(e);
    if (j - i == 2) {
      topo.bends.push_back({a, b, int32_t(he[i].opposite), int32_t(he[i + 1].opposite)});
      topo.bend_edge.push_back(e);
    }
    for (size_t k = i; k < j; ++k) {
      Int3& te = topo.tri_edges[he[k].tri];
      (he[k].local == 0 ? te.a : he[k].local == 1 ? te.b : te.c) = int32_t(e);
    }
    i = j;
  }
}

void build_rings(size_t nverts, const std::vector<Int3>& tris, Topology& topo) {
  std::vector<std::vector<uint32_t>> vt(nverts), r1(nverts), r2(nverts);
  for (uint32_t t = 0; t < tris.size(); ++t)
    for (int k = 0; k < 3; ++k) vt[tris[t][k]].push_back(t);
  for (const Int2& e : topo.edges) {
    r1[e.a].push_back(uint32_t(e.b));
    r1[e.b].push_back(uint32_t(e.a));
  }
  for (auto& l : r1) std::sort(l.begin(), l.end());
  for (size_t v = 0; v < nverts; ++v) {
    auto& out = r2[v];
    for (uint32_t n : r1[v])
      for (uint32_t m : r1[n])
        if (m != v && !std::binary_search(r1[v].begin(), r1[v].end(), m)) out.push_back(m);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  topo.vert_tris = csr_from_lists(vt);
  topo.ring1 = csr_from_lists(r1);
  topo.ring2 = csr_from_lists(r2);
}

}  // namespace

Topology build_topology(size_t nverts, const std::vector<Int3>& tris) {
  Topology topo;
  build_edges_and_bends(tris, topo);
  build_rings(nverts, tris, topo);
  return topo;
}

}  // namespace cb
