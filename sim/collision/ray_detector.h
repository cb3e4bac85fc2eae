// Ray-traced collision detection for cloth (Lehericey, Gouranton, Arnaldi,
// "GPU Ray-Traced Collision Detection for Cloth Simulation", VRST 2015).
//
// Each step, from every cloth vertex two rays leave along its normal and against
// it; each ray is traced against the obstacle triangles (LBVH, refitted when the
// obstacles move) and against the cloth (LBVH over the cloth triangles, refitted
// every call, rebuilt every few calls); and from every obstacle vertex a ray goes
// into the object to catch cloth inside it. Hits are classified by the rules in
// ray_classify.h (collision / prediction / rejected, re-projected on the hit
// triangle's normal, inversions flipped back). The contacts are for PBD and
// Verlet to resolve.
//
// Use:
//   RayTracedDetector det;
//   det.set_cloth(ctx, model.num_vertices(), model.tris, model.topo.vert_tris);   // once per model
//   det.detect(ctx, state.x.data(), state.x_prev.data(), obstacles, params);     // each step
//   const RayContact* c = det.contacts().data();   // slots, see contacts()
#pragma once

#include <cstdint>
#include <vector>

#include "sim/collision/lbvh.h"
#include "sim/collision/ray_classify.h"
#include "sim/core/buffer.h"
#include "sim/model/topology.h"
#include "sim/scene/obstacle_set.h"

namespace cb {

struct RayDetectorParams {
  float thickness = 0.002f;     ///< m, half-thickness e of the cloth (cloth–cloth contact distance e + e' = 2e)
  float prediction = 0.004f;    ///< m, hits within the contact distance + this are predictions
  float max_distance = 0.05f;   ///< m, length of the rays (deepest penetration that can be found)
  bool cloth_obstacle = true;   ///< rays from cloth vertices at obstacles
  bool cloth_cloth = true;      ///< rays from cloth vertices at the cloth (self and other pieces)
  bool obstacle_cloth = true;   ///< rays from obstacle vertices at the cloth
};

struct RayDetectorCounts {
  uint32_t collisions = 0, predictions = 0, inversions = 0;
};

class RayTracedDetector {
 public:
  /// Cloth topology, once per model: triangles and the triangles around each vertex.
  void set_cloth(const Context& ctx, size_t nverts, const std::vector<Int3>& tris, const Csr& vert_tris);
  /// Detects at positions x, with x_prev the positions of the previous step (for
  /// inversions); both backend memory, nverts entries. Obstacles must be synced.
  void detect(const Context& ctx, const Vec3f* x, const Vec3f* x_prev, const ObstacleSet& obstacles,
              const RayDetectorParams& p);
  /// Contact slots, cls = kRayNone where a ray found nothing:
  ///   [4v + 2r + k] cloth vertex v, ray r (0 along the normal, 1 against it),
  ///                 k = 0 obstacle hit, k = 1 cloth hit;
  ///   [4 nverts + j] obstacle vertex j (into the object, at the cloth).
  const DeviceBuffer<RayContact>& contacts() const { return contacts_; }
  /// Vertex normals of the cloth at the last detect (backend memory, unit).
  const DeviceBuffer<Vec3f>& normals() const { return normals_; }
  /// Counts of the last detect (host; one download of the contacts).
  RayDetectorCounts count() const;
  size_t device_bytes() const;

 private:
  void update_obstacles(const Context& ctx, const ObstacleSet& o);
  int nverts_ = 0;
  DeviceBuffer<Int3> tris_;
  DeviceBuffer<uint32_t> vt_offsets_, vt_indices_;
  DeviceBuffer<Vec3f> normals_;
  DeviceBuffer<Aabb> cloth_boxes_;
  Lbvh cloth_bvh_;
  int cloth_refits_ = 0;
  // obstacles
  std::vector<Int3> obs_tris_host_;
  DeviceBuffer<uint32_t> ovt_offsets_, ovt_indices_;
  DeviceBuffer<Vec3f> obs_normals_;
  DeviceBuffer<Aabb> obs_boxes_;
  Lbvh obs_bvh_;
  uint64_t obs_version_ = ~0ull;
  DeviceBuffer<RayContact> contacts_;
};

/// Vertex->triangle adjacency of a triangle soup (host helper for obstacles).
Csr vertex_triangles(size_t nverts, const std::vector<Int3>& tris);

}  // namespace cb
