#include "sim/solvers/pbd/constraint_set.h"

#include <algorithm>

#include "sim/solvers/pbd/constraints.h"

namespace cb::pbd {
namespace {

// stiffness ratio reference / own (a zero own stiffness gives a huge compliance)
float ratio(float ref, float own) { return own > 0.f ? (ref > 0.f ? ref / own : 1.f) : 1e12f; }

// true when edge (a, b) is the diagonal of a cell of a quad-grid piece
bool is_grid_diagonal(const ClothModel& m, int32_t a, int32_t b) {
  const ClothPiece& p = m.pieces[m.vert_piece[uint32_t(a)]];
  if (p.grid.layout != GridLayout::Quad || p.grid.nx <= 0) return false;
  int la = a - int32_t(p.first_vertex), lb = b - int32_t(p.first_vertex);
  return (la % p.grid.nx) != (lb % p.grid.nx) && (la / p.grid.nx) != (lb / p.grid.nx);
}

// per-vertex degree of each constraint kind, and the CSR adjacency
void build_adjacency(size_t nv, const std::vector<int32_t>& verts, int arity, std::vector<uint32_t>& off,
                     std::vector<uint32_t>& slot_of) {
  off.assign(nv + 1, 0);
  for (int32_t v : verts) off[size_t(v) + 1]++;
  for (size_t i = 0; i < nv; ++i) off[i + 1] += off[i];
  std::vector<uint32_t> fill(off.begin(), off.end() - 1);
  slot_of.assign(verts.size(), 0);
  for (size_t k = 0; k < verts.size(); ++k) slot_of[fill[size_t(verts[k])]++] = uint32_t(k);
  (void)arity;
}

void build_edges(const ClothModel& m, HostConstraintSet& s) {
  const Material& ref = m.materials[m.pieces[0].material];
  const size_t ne = m.num_edges();
  std::vector<float> tri_third(m.num_tris());
  for (size_t t = 0; t < tri_third.size(); ++t) tri_third[t] = m.rest_tri_area[t] / 3.f;
  s.edge_color_start = m.edge_coloring.color_start;
  for (size_t k = 0; k < ne; ++k) {
    uint32_t e = m.edge_coloring.order[k];
    Int2 ed = m.topo.edges[e];
    Int2 et = m.topo.edge_tris[e];
    float area = (et.a >= 0 ? tri_third[size_t(et.a)] : 0.f) + (et.b >= 0 ? tri_third[size_t(et.b)] : 0.f);
    float len = m.rest_edge_length[e];
    const Material& mat = m.material_of_vertex(uint32_t(ed.a));
    bool shear = is_grid_diagonal(m, ed.a, ed.b);
    float f = shear ? 0.5f * ratio(ref.shear_stiffness, mat.shear_stiffness)
                    : (area > 0.f ? len * len / (3.f * area) : 1.f) * ratio(ref.stretch_stiffness, mat.stretch_stiffness);
    s.edges.push_back(ed);
    s.edge_rest.push_back(len);
    s.edge_factor.push_back(f);
    s.edge_shear.push_back(shear ? 1 : 0);
  }
}

void build_bends(const ClothModel& m, HostConstraintSet& s) {
  const Material& ref = m.materials[m.pieces[0].material];
  s.bend_color_start = m.bend_coloring.color_start;
  for (uint32_t b : m.bend_coloring.order) {
    Int4 h = m.topo.bends[b];
    const Vec3f* r = m.rest.data();
    BendCoef c;
    isometric_stencil(r[h.a], r[h.b], r[h.c], r[h.d], c.k);
    Vec3f v = r[h.a] * c.k[0] + r[h.b] * c.k[1] + r[h.c] * c.k[2] + r[h.d] * c.k[3];
    Int2 et = m.topo.edge_tris[m.topo.bend_edge[b]];
    float area = m.rest_tri_area[size_t(et.a)] + m.rest_tri_area[size_t(et.b)];
    float len = m.rest_edge_length[m.topo.bend_edge[b]];
    // a hinge bent at rest by less than ~1e-3 rad counts as flat (vector constraint)
    float vn = length(v);
    float flat_tol = 1e-3f * len;
    const Material& mat = m.material_of_vertex(uint32_t(h.a));
    s.bends.push_back(h);
    s.bend_coef.push_back(c);
    s.bend_rest_norm.push_back(vn > flat_tol ? vn : 0.f);
    s.bend_factor.push_back(area * ratio(ref.bend_stiffness, mat.bend_stiffness));
  }
}

// Jacobi: vertex -> constraint lists, and per-constraint 1 / max vertex degree
void build_jacobi(const ClothModel& m, HostConstraintSet& s) {
  const size_t nv = m.num_vertices();
  std::vector<int32_t> ev;
  for (const Int2& e : s.edges) ev.insert(ev.end(), {e.a, e.b});
  std::vector<uint32_t> slot;
  build_adjacency(nv, ev, 2, s.vert_edge_off, slot);
  s.vert_edge.resize(slot.size());
  for (size_t k = 0; k < slot.size(); ++k) {
    int32_t e = int32_t(slot[k] / 2);
    s.vert_edge[k] = (slot[k] % 2) ? (e + 1) : -(e + 1);
  }
  std::vector<int32_t> bv;
  for (const Int4& h : s.bends) bv.insert(bv.end(), {h.a, h.b, h.c, h.d});
  build_adjacency(nv, bv, 4, s.vert_bend_off, s.vert_bend);
  auto deg = [](const std::vector<uint32_t>& off, int32_t v) { return float(off[size_t(v) + 1] - off[size_t(v)]); };
  for (const Int2& e : s.edges)
    s.edge_theta.push_back(1.f / std::max(deg(s.vert_edge_off, e.a), deg(s.vert_edge_off, e.b)));
  for (const Int4& h : s.bends) {
    float d = std::max(std::max(deg(s.vert_bend_off, h.a), deg(s.vert_bend_off, h.b)),
                       std::max(deg(s.vert_bend_off, h.c), deg(s.vert_bend_off, h.d)));
    s.bend_theta.push_back(1.f / d);
  }
}

void build_vertex_data(const ClothModel& m, HostConstraintSet& s) {
  const size_t nv = m.num_vertices();
  s.vert_area.assign(nv, 0.f);
  for (size_t t = 0; t < m.num_tris(); ++t)
    for (int k = 0; k < 3; ++k) s.vert_area[size_t(m.tris[t][k])] += m.rest_tri_area[t] / 3.f;
  s.vert_damping.resize(nv);
  s.vert_thickness.resize(nv);
  for (size_t v = 0; v < nv; ++v) {
    const Material& mat = m.material_of_vertex(uint32_t(v));
    s.vert_damping[v] = mat.damping;
    s.vert_thickness[v] = mat.thickness;
  }
}

}  // namespace

HostConstraintSet build_constraint_set(const ClothModel& model) {
  HostConstraintSet s;
  build_edges(model, s);
  build_bends(model, s);
  build_jacobi(model, s);
  build_vertex_data(model, s);
  return s;
}

void DeviceConstraintSet::upload(const Context& ctx, const HostConstraintSet& h) {
  edges.upload(ctx, h.edges);
  edge_rest.upload(ctx, h.edge_rest);
  edge_factor.upload(ctx, h.edge_factor);
  edge_theta.upload(ctx, h.edge_theta);
  edge_shear.upload(ctx, h.edge_shear);
  bends.upload(ctx, h.bends);
  bend_coef.upload(ctx, h.bend_coef);
  bend_factor.upload(ctx, h.bend_factor);
  bend_rest_norm.upload(ctx, h.bend_rest_norm);
  bend_theta.upload(ctx, h.bend_theta);
  vert_edge_off.upload(ctx, h.vert_edge_off);
  vert_edge.upload(ctx, h.vert_edge);
  vert_bend_off.upload(ctx, h.vert_bend_off);
  vert_bend.upload(ctx, h.vert_bend);
  vert_area.upload(ctx, h.vert_area);
  vert_damping.upload(ctx, h.vert_damping);
  vert_thickness.upload(ctx, h.vert_thickness);
  edge_color_start = h.edge_color_start;
  bend_color_start = h.bend_color_start;
}

size_t DeviceConstraintSet::bytes() const {
  return edges.bytes() + edge_rest.bytes() + edge_factor.bytes() + edge_theta.bytes() + edge_shear.bytes() +
         bends.bytes() + bend_coef.bytes() + bend_factor.bytes() + bend_rest_norm.bytes() + bend_theta.bytes() +
         vert_edge_off.bytes() + vert_edge.bytes() + vert_bend_off.bytes() + vert_bend.bytes() + vert_area.bytes() +
         vert_damping.bytes() + vert_thickness.bytes();
}

}  // namespace cb::pbd
