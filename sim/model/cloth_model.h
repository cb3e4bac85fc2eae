// The cloth model: topology and rest shape of every cloth in a scene, immutable
// once built and shared by all solvers. Several cloths are concatenated into one
// vertex/triangle range each ("pieces"), so kernels see one array per field.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/math.h"
#include "sim/model/coloring.h"
#include "sim/model/grid.h"
#include "sim/model/material.h"
#include "sim/model/topology.h"
#include "sim/model/tri_mesh.h"

namespace cb {

/// Where a generated grid's lattice lives in the vertex array (Verlet's
/// lattice neighbourhoods need it); layout None for meshes from files.
struct GridInfo {
  GridLayout layout = GridLayout::None;
  int nx = 0, ny = 0;  ///< vertices per row, rows; vertex (i, j) = first_vertex + j*nx + i
  float spacing = 0;   ///< m, lattice spacing along a row
};

struct ClothPiece {
  std::string name;
  uint32_t first_vertex = 0, num_vertices = 0;
  uint32_t first_tri = 0, num_tris = 0;
  uint32_t material = 0;  ///< index into ClothModel::materials
  GridInfo grid;
};

struct ClothModel {
  std::vector<Vec3f> rest;      ///< (nverts) m, rest positions (as placed in the scene)
  std::vector<Vec2f> uv;        ///< (nverts) texture coordinates
  std::vector<Int3> tris;       ///< (ntris)
  Topology topo;                ///< edges, bending pairs, rings
  std::vector<float> rest_edge_length;  ///< (nedges) m
  std::vector<float> rest_tri_area;     ///< (ntris) m^2
  std::vector<float> mass;      ///< (nverts) kg, lumped: a third of each adjacent triangle's mass
  std::vector<uint32_t> vert_piece;  ///< (nverts) piece id
  std::vector<ClothPiece> pieces;
  std::vector<Material> materials;
  Coloring edge_coloring;       ///< colours of topo.edges (arity 2)
  Coloring bend_coloring;       ///< colours of topo.bends (arity 4)

  size_t num_vertices() const { return rest.size(); }
  size_t num_tris() const { return tris.size(); }
  size_t num_edges() const { return topo.edges.size(); }
  const Material& material_of_vertex(uint32_t v) const { return materials[pieces[vert_piece[v]].material]; }
};

/// One cloth to add to a model: its mesh (already placed in world space), its
/// material and, for generated grids, the lattice description.
struct ClothInput {
  std::string name;
  TriMesh mesh;
  Material material;
  GridInfo grid;
};

/// Concatenates the cloths, builds topology, masses and colourings. Throws
/// cb::Error on an invalid mesh (see check_mesh); warnings go to `warnings`.
ClothModel build_cloth_model(const std::vector<ClothInput>& cloths, std::vector<std::string>* warnings = nullptr);

/// Bytes held by the model's arrays (for `clothbox-cli info`).
size_t model_bytes(const ClothModel& m);

}  // namespace cb
