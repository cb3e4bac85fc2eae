#include "sim/solvers/icloth/system.h"

#include "sim/model/topology.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace cb::icloth {
namespace {

// warp direction of a rest triangle: the in-plane gradient of the texture u
// coordinate, or the first edge when the UVs are degenerate
Vec3f warp_direction(const Vec3f X[3], const Vec2f uv[3]) {
  Vec3f e1 = X[1] - X[0], e2 = X[2] - X[0];
  Vec3f n = normalize(cross(e1, e2));
  Vec3f t1 = normalize(e1), t2 = cross(n, t1);
  // 2D coordinates of the edges in (t1, t2); solve g . e_k = du_k
  float p1x = dot(e1, t1), p1y = dot(e1, t2), p2x = dot(e2, t1), p2y = dot(e2, t2);
  float du1 = uv[1].x - uv[0].x, du2 = uv[2].x - uv[0].x;
  float det = p1x * p2y - p2x * p1y;
  if (std::fabs(det) > 0) {
    float gx = (du1 * p2y - du2 * p1y) / det, gy = (p1x * du2 - p2x * du1) / det;
    Vec3f g = t1 * gx + t2 * gy;
    if (length(g) > 1e-12f) return normalize(g);
  }
  return t1;
}

TriRest tri_rest(const Vec3f X[3], const Vec2f uv[3], float area, const Material& m, float weft_ratio) {
  TriRest r{};
  Vec3f n = normalize(cross(X[1] - X[0], X[2] - X[0]));
  Vec3f eu = warp_direction(X, uv), ev = cross(n, eu);
  // Dm = [P1 P2] in the (eu, ev) frame; w_u, w_v are the columns of Ds Dm^-1
  double p1x = dot(X[1] - X[0], eu), p1y = dot(X[1] - X[0], ev);
  double p2x = dot(X[2] - X[0], eu), p2y = dot(X[2] - X[0], ev);
  double det = p1x * p2y - p2x * p1y;
  if (std::fabs(det) < 1e-20) det = det < 0 ? -1e-20 : 1e-20;
  double i00 = p2y / det, i01 = -p2x / det, i10 = -p1y / det, i11 = p1x / det;
  r.a[1] = float(i00);
  r.a[2] = float(i10);
  r.a[0] = -r.a[1] - r.a[2];
  r.b[1] = float(i01);
  r.b[2] = float(i11);
  r.b[0] = -r.b[1] - r.b[2];
  r.area = area;
  r.ku = m.stretch_stiffness;
  r.kv = m.stretch_stiffness * weft_ratio;
  r.ks = m.shear_stiffness;
  return r;
}

}  // namespace

ElementRest build_element_rest(const ClothModel& model, float weft_ratio) {
  ElementRest out;
  out.tris.resize(model.num_tris());
  for (size_t t = 0; t < model.num_tris(); ++t) {
    const Int3 f = model.tris[t];
    const Vec3f X[3] = {model.rest[f.a], model.rest[f.b], model.rest[f.c]};
    const Vec2f uv[3] = {model.uv[f.a], model.uv[f.b], model.uv[f.c]};
    out.tris[t] = tri_rest(X, uv, model.rest_tri_area[t], model.material_of_vertex(uint32_t(f.a)), weft_ratio);
  }
  const auto& bends = model.topo.bends;
  out.bends.resize(bends.size());
  for (size_t k = 0; k < bends.size(); ++k) {
    const Int4 h = bends[k];
    const Int2 et = model.topo.edge_tris[model.topo.bend_edge[k]];
    float area = model.rest_tri_area[size_t(et.a)] + model.rest_tri_area[size_t(et.b)];
    float le = model.rest_edge_length[model.topo.bend_edge[k]];
    float B = model.material_of_vertex(uint32_t(h.a)).bend_stiffness;
    out.bends[k].kb = area > 0 ? 1.5f * B * le * le / area : 0.f;
    out.bends[k].theta0 = dihedral_angle(model.rest[h.a], model.rest[h.b], model.rest[h.c], model.rest[h.d]);
  }
  return out;
}

namespace {

uint32_t find_block(const BlockPattern& p, int i, int j) {
  auto b = p.cols.begin() + p.row_offsets[size_t(i)], e = p.cols.begin() + p.row_offsets[size_t(i) + 1];
  return uint32_t(std::lower_bound(b, e, uint32_t(j)) - p.cols.begin());
}

// CSR from per-row lists
void to_csr(const std::vector<std::vector<uint32_t>>& rows, std::vector<uint32_t>& off, std::vector<uint32_t>& idx) {
  Csr c = csr_from_lists(rows);
  off = std::move(c.offsets);
  idx = std::move(c.indices);
}

}  // namespace

BlockPattern build_block_pattern(size_t nverts, const std::vector<Int3>& tris, const std::vector<Int4>& bends) {
  std::vector<std::vector<uint32_t>> adj(nverts);
  for (size_t v = 0; v < nverts; ++v) adj[v].push_back(uint32_t(v));
  for (const Int3& t : tris)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) adj[size_t(t[i])].push_back(uint32_t(t[j]));
  for (const Int4& h : bends) {
    const int v[4] = {h.a, h.b, h.c, h.d};
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) adj[size_t(v[i])].push_back(uint32_t(v[j]));
  }
  BlockPattern p;
  for (auto& r : adj) {
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
  }
  to_csr(adj, p.row_offsets, p.cols);
  p.diag.resize(nverts);
  for (size_t v = 0; v < nverts; ++v) p.diag[v] = find_block(p, int(v), int(v));
  // gather lists: which element entries sum into each block and each vertex
  std::vector<std::vector<uint32_t>> tsrc(p.nnz()), bsrc(p.nnz()), vt(nverts), vb(nverts);
  for (size_t t = 0; t < tris.size(); ++t)
    for (int i = 0; i < 3; ++i) {
      vt[size_t(tris[t][i])].push_back(uint32_t(t * 3 + i));
      for (int j = 0; j < 3; ++j) tsrc[find_block(p, tris[t][i], tris[t][j])].push_back(uint32_t(t * 9 + 3 * i + j));
    }
  for (size_t k = 0; k < bends.size(); ++k) {
    const int v[4] = {bends[k].a, bends[k].b, bends[k].c, bends[k].d};
    for (int i = 0; i < 4; ++i) {
      vb[size_t(v[i])].push_back(uint32_t(k * 4 + i));
      for (int j = 0; j < 4; ++j) bsrc[find_block(p, v[i], v[j])].push_back(uint32_t(k * 16 + 4 * i + j));
    }
  }
  to_csr(tsrc, p.tri_src_off, p.tri_src);
  to_csr(bsrc, p.bend_src_off, p.bend_src);
  to_csr(vt, p.vtri_off, p.vtri);
  to_csr(vb, p.vbend_off, p.vbend);
  return p;
}

namespace {

constexpr uint32_t kSlice = 32;  // rows per SELL slice: a warp

// SELL-32 layout of the pattern: slice starts, the stored position of every CSR
// block, and the column at every stored position (padding: the row's own vertex,
// never read)
void sell_layout(const BlockPattern& p, std::vector<uint32_t>& slice_off, std::vector<uint32_t>& position,
                 std::vector<uint32_t>& block_row, std::vector<uint32_t>& cols_sell) {
  const size_t n = p.diag.size(), nslices = (n + kSlice - 1) / kSlice;
  slice_off.assign(nslices + 1, 0);
  for (size_t sl = 0; sl < nslices; ++sl) {
    uint32_t width = 0;
    for (size_t i = sl * kSlice; i < std::min(n, (sl + 1) * kSlice); ++i)
      width = std::max(width, p.row_offsets[i + 1] - p.row_offsets[i]);
    slice_off[sl + 1] = slice_off[sl] + kSlice * width;
  }
  position.resize(p.nnz());
  block_row.resize(p.nnz());
  cols_sell.assign(slice_off.back(), 0);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t start = slice_off[i / kSlice] + uint32_t(i % kSlice);
    for (uint32_t s = 0; start + s * kSlice < slice_off[i / kSlice + 1]; ++s) cols_sell[start + s * kSlice] = uint32_t(i);
    for (uint32_t k = p.row_offsets[i]; k < p.row_offsets[i + 1]; ++k) {
      position[k] = start + (k - p.row_offsets[i]) * kSlice;
      block_row[k] = uint32_t(i);
      cols_sell[position[k]] = p.cols[k];
    }
  }
}

}  // namespace

void DevicePattern::upload(const Context& ctx, const BlockPattern& p, BlockLayout layout, bool split) {
  const bool sell = layout == BlockLayout::Sell32 || (layout == BlockLayout::Auto && ctx.is_cuda());
  split_ = sell && split;
  if (sell) {
    std::vector<uint32_t> so, br, cs;
    sell_layout(p, so, h_position_, br, cs);
    slice_off.upload(ctx, so);
    block_row.upload(ctx, br);
    cols_sell.upload(ctx, cs);
    stored_blocks_ = cs.size();
  } else {
    for (auto* b : {&slice_off, &block_row, &cols_sell}) b->resize(ctx, 0);
    h_position_.resize(p.nnz());
    for (size_t k = 0; k < p.nnz(); ++k) h_position_[k] = uint32_t(k);
    stored_blocks_ = p.nnz();
  }
  row_offsets.upload(ctx, p.row_offsets);
  cols.upload(ctx, p.cols);
  diag.upload(ctx, p.diag);
  tri_src_off.upload(ctx, p.tri_src_off);
  tri_src.upload(ctx, p.tri_src);
  bend_src_off.upload(ctx, p.bend_src_off);
  bend_src.upload(ctx, p.bend_src);
  vtri_off.upload(ctx, p.vtri_off);
  vtri.upload(ctx, p.vtri);
  vbend_off.upload(ctx, p.vbend_off);
  vbend.upload(ctx, p.vbend);
}

PatternView DevicePattern::view() const {
  PatternView v;
  v.nverts = int(diag.size());
  v.nnz = int(cols.size());
  v.row_offsets = row_offsets.data();
  v.cols = cols.data();
  v.diag = diag.data();
  v.tri_src_off = tri_src_off.data();
  v.tri_src = tri_src.data();
  v.bend_src_off = bend_src_off.data();
  v.bend_src = bend_src.data();
  v.vtri_off = vtri_off.data();
  v.vtri = vtri.data();
  v.vbend_off = vbend_off.data();
  v.vbend = vbend.data();
  v.slice_off = slice_off.size() ? slice_off.data() : nullptr;
  v.block_row = block_row.size() ? block_row.data() : nullptr;
  v.cols_stored = slice_off.size() ? cols_sell.data() : cols.data();
  v.split = split_;
  return v;
}

std::vector<M3> DevicePattern::to_csr(const std::vector<M3>& stored) const {
  if (stored.size() != stored_blocks_) throw std::invalid_argument("DevicePattern::to_csr: not a stored K");
  std::vector<M3> csr(h_position_.size());
  for (size_t k = 0; k < csr.size(); ++k) csr[k] = load_block(stored.data(), h_position_[k], split_);
  return csr;
}

std::vector<M3> DevicePattern::to_stored(const std::vector<M3>& csr) const {
  std::vector<M3> out(stored_blocks_);
  for (size_t k = 0; k < csr.size(); ++k) store_block(out.data(), h_position_.at(k), csr[k], split_);
  return out;
}

size_t DevicePattern::bytes() const {
  return row_offsets.bytes() + cols.bytes() + diag.bytes() + tri_src_off.bytes() + tri_src.bytes() +
         bend_src_off.bytes() + bend_src.bytes() + vtri_off.bytes() + vtri.bytes() + vbend_off.bytes() + vbend.bytes() +
         slice_off.bytes() + block_row.bytes() + cols_sell.bytes();
}

}  // namespace cb::icloth
