// Broad phase for cloth CCD: candidate vertex–face and edge–edge pairs from
// spatial hashing of swept triangle boxes (Pabst et al. 2010; Tang et al.,
// "I-Cloth: Incremental Collision Handling for GPU-Based Interactive Cloth
// Simulation", 2018, feature assignment).
//
// How to use (once per model, then per step or sub-step):
//   CcdTopology topo;  topo.upload(ctx, model.num_vertices(), model.tris, model.topo);
//   CcdCandidates cand;
//   find_ccd_candidates(ctx, x_start, x_end, topo.view(), margin, 0.f, cand);
//   // cand.vf: (vertex, triangle) pairs, vertex not in the triangle
//   // cand.ee: (edge, edge) pairs, first < second, the edges share no vertex
//   // then run ccd_vertex_face / ccd_edge_edge (ccd.h) on each pair.
//
// What it produces: exactly the feature pairs whose swept boxes (box of the
// feature at the start and end of the step, grown by `margin` m on every side)
// overlap — no duplicates, no adjacent features (a vertex of the face, edges
// sharing a vertex). How: triangle pairs with overlapping swept boxes come from
// find_box_pairs (box_pairs.h); each vertex and each edge is owned by exactly one
// of its triangles, and a triangle pair (Ti, Tj) emits only the vertices and edges
// owned by Ti against Tj (and vice versa), so every feature pair is emitted by one
// triangle pair only. A feature box lies inside its owner's box, so no pair is lost.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/topology.h"

namespace cb {

/// Kernel view of the cloth's features (backend memory).
struct CcdMesh {
  const Int3* tris = nullptr;         ///< (ntris)
  const Int2* edges = nullptr;        ///< (nedges) vertex ids
  const Int3* tri_edges = nullptr;    ///< (ntris) the three edge ids of each triangle
  const int32_t* vert_owner = nullptr;  ///< (nverts) owning triangle, -1 for a vertex in no triangle
  const int32_t* edge_owner = nullptr;  ///< (nedges) owning triangle
  int ntris = 0, nedges = 0, nverts = 0;
};

/// Owner tables on the host: a vertex belongs to its first triangle, an edge to
/// the first triangle on it.
void make_feature_owners(size_t nverts, const std::vector<Int3>& tris, const Topology& topo,
                         std::vector<int32_t>* vert_owner, std::vector<int32_t>* edge_owner);

/// Backend copies of the tables a CcdMesh points to.
class CcdTopology {
 public:
  void upload(const Context& ctx, size_t nverts, const std::vector<Int3>& tris, const Topology& topo);
  CcdMesh view() const;

 private:
  DeviceBuffer<Int3> tris_, tri_edges_;
  DeviceBuffer<Int2> edges_;
  DeviceBuffer<int32_t> vert_owner_, edge_owner_;
  int nverts_ = 0;
};

struct CcdCandidates {
  DeviceBuffer<Int2> tri_pairs;  ///< triangle pairs with overlapping swept boxes (i < j)
  DeviceBuffer<Int2> vf;         ///< (vertex, triangle)
  DeviceBuffer<Int2> ee;         ///< (edge, edge), first < second
  // scratch kept between calls: the features' swept boxes and per triangle pair
  // the count of its vf / ee pairs (then their offsets)
  DeviceBuffer<Aabb> vert_box, edge_box, tri_box;
  DeviceBuffer<uint32_t> vf_count, ee_count;
};

/// Fills `out` for the motion x0 -> x1 (backend memory, nverts each). margin (m)
/// grows every box; cell_size <= 0 picks the mean swept triangle box size.
void find_ccd_candidates(const Context& ctx, const Vec3f* x0, const Vec3f* x1, const CcdMesh& mesh, float margin,
                         float cell_size, CcdCandidates& out);

}  // namespace cb
