// Mesh topology derived from triangles: edges, bending pairs, boundary, rings.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/math.h"

namespace cb {

/// Compressed rows: the neighbours of row r are indices[offsets[r] .. offsets[r+1]).
struct Csr {
  std::vector<uint32_t> offsets;  ///< (rows + 1)
  std::vector<uint32_t> indices;  ///< (nnz)
  size_t rows() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  uint32_t degree(size_t r) const { return offsets[r + 1] - offsets[r]; }
};

struct Topology {
  std::vector<Int2> edges;           ///< (nedges) vertex ids, a < b, sorted
  std::vector<Int2> edge_tris;       ///< (nedges) the one or two triangles on the edge, -1 = none
  std::vector<Int4> bends;           ///< (nbends) a, b: shared edge; c, d: the opposite vertices
  std::vector<uint32_t> bend_edge;   ///< (nbends) edge id of each bending pair
  std::vector<uint32_t> boundary_edges;  ///< edge ids with one triangle
  std::vector<uint32_t> nonmanifold_edges;  ///< edge ids with three or more triangles
  std::vector<Int3> tri_edges;       ///< (ntris) edge ids opposite vertex 0, 1, 2 ... (edge k = (v[k+1], v[k+2]))
  Csr vert_tris;                     ///< (nverts) triangles around each vertex
  Csr ring1;                         ///< (nverts) vertices sharing an edge, sorted
  Csr ring2;                         ///< (nverts) vertices within two edges (excl. self and ring1), sorted
};

/// Concatenates per-row lists into compressed rows (row r = lists[r], in order).
Csr csr_from_lists(const std::vector<std::vector<uint32_t>>& lists);

/// (ntris) for each triangle the triangle across its edges (a,b), (b,c), (c,a),
/// -1 where the edge is a boundary or shared by more than two triangles.
/// Triangles are neighbours when they share both vertex ids of an edge (an
/// obstacle soup's, mesh_curvature.h).
std::vector<Int3> triangle_neighbours(const std::vector<Int3>& tris);

/// Builds the topology of `tris` over `nverts` vertices.
Topology build_topology(size_t nverts, const std::vector<Int3>& tris);

}  // namespace cb
