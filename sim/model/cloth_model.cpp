#include "sim/model/cloth_model.h"

#include "sim/core/error.h"
#include "sim/model/mesh_check.h"

namespace cb {
namespace {

void append_piece(ClothModel& m, const ClothInput& in) {
  ClothPiece p;
  p.name = in.name;
  p.first_vertex = uint32_t(m.rest.size());
  p.num_vertices = uint32_t(in.mesh.positions.size());
  p.first_tri = uint32_t(m.tris.size());
  p.num_tris = uint32_t(in.mesh.tris.size());
  p.material = uint32_t(m.materials.size());
  p.grid = in.grid;
  m.materials.push_back(in.material);
  m.rest.insert(m.rest.end(), in.mesh.positions.begin(), in.mesh.positions.end());
  if (in.mesh.uvs.size() == in.mesh.positions.size())
    m.uv.insert(m.uv.end(), in.mesh.uvs.begin(), in.mesh.uvs.end());
  else
    m.uv.resize(m.rest.size(), Vec2f{});
  for (const Int3& t : in.mesh.tris)
    m.tris.push_back({t.a + int32_t(p.first_vertex), t.b + int32_t(p.first_vertex), t.c + int32_t(p.first_vertex)});
  m.vert_piece.resize(m.rest.size(), uint32_t(m.pieces.size()));
  m.pieces.push_back(p);
}

// lumped mass: each triangle gives a third of density * area to each corner
void compute_rest_measures(ClothModel& m) {
  m.rest_tri_area.resize(m.tris.size());
  m.mass.assign(m.rest.size(), 0.f);
  for (size_t t = 0; t < m.tris.size(); ++t) {
    const Int3& f = m.tris[t];
    float area = 0.5f * length(cross(m.rest[f.b] - m.rest[f.a], m.rest[f.c] - m.rest[f.a]));
    m.rest_tri_area[t] = area;
    float third = area * m.material_of_vertex(uint32_t(f.a)).density / 3.f;
    for (int k = 0; k < 3; ++k) m.mass[f[k]] += third;
  }
  m.rest_edge_length.resize(m.topo.edges.size());
  for (size_t e = 0; e < m.topo.edges.size(); ++e)
    m.rest_edge_length[e] = length(m.rest[m.topo.edges[e].b] - m.rest[m.topo.edges[e].a]);
}

void compute_colorings(ClothModel& m) {
  std::vector<int32_t> ev;
  ev.reserve(m.topo.edges.size() * 2);
  for (const Int2& e : m.topo.edges) {
    ev.push_back(e.a);
    ev.push_back(e.b);
  }
  m.edge_coloring = greedy_coloring(ev, 2, m.rest.size());
  std::vector<int32_t> bv;
  bv.reserve(m.topo.bends.size() * 4);
  for (const Int4& b : m.topo.bends) bv.insert(bv.end(), {b.a, b.b, b.c, b.d});
  m.bend_coloring = greedy_coloring(bv, 4, m.rest.size());
}

template <class T>
size_t vec_bytes(const std::vector<T>& v) {
  return v.size() * sizeof(T);
}

}  // namespace

ClothModel build_cloth_model(const std::vector<ClothInput>& cloths, std::vector<std::string>* warnings) {
  ClothModel m;
  for (const ClothInput& c : cloths) {
    require_valid_mesh(c.mesh, warnings);
    std::string err = c.material.validate();
    if (!err.empty()) throw Error("cloth '" + c.name + "': material: " + err);
    append_piece(m, c);
  }
  m.topo = build_topology(m.rest.size(), m.tris);
  compute_rest_measures(m);
  compute_colorings(m);
  return m;
}

size_t model_bytes(const ClothModel& m) {
  const Topology& t = m.topo;
  return vec_bytes(m.rest) + vec_bytes(m.uv) + vec_bytes(m.tris) + vec_bytes(t.edges) + vec_bytes(t.edge_tris) +
         vec_bytes(t.bends) + vec_bytes(t.bend_edge) + vec_bytes(t.boundary_edges) + vec_bytes(t.tri_edges) +
         vec_bytes(t.vert_tris.indices) + vec_bytes(t.ring1.indices) + vec_bytes(t.ring2.indices) +
         vec_bytes(m.rest_edge_length) + vec_bytes(m.rest_tri_area) + vec_bytes(m.mass) + vec_bytes(m.vert_piece) +
         vec_bytes(m.edge_coloring.order) + vec_bytes(m.bend_coloring.order);
}

}  // namespace cb
