// The obstacles at the current instant, in the form kernels read: analytic
// shapes, and all triangle-mesh obstacles concatenated into one triangle soup.
// Each frame World::step fills it from the scene (motions evaluated at t) and
// keeps the previous frame's copy, so solvers see the obstacle motion over the frame.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/scene/shape.h"

namespace cb {

/// One mesh obstacle's range inside the concatenated arrays.
struct MeshRange {
  uint32_t obstacle = 0;  ///< obstacle id (index in the scene's obstacle list)
  uint32_t first_vertex = 0, num_vertices = 0;
  uint32_t first_tri = 0, num_tris = 0;
  float friction = 0.3f;
};

struct ObstacleSet {
  // host copies (authoritative; the device copies mirror them after sync())
  std::vector<Shape> shapes;       ///< (nshapes) pose at the end of the frame
  std::vector<Shape> shapes_prev;  ///< (nshapes) pose at the start of the frame
  std::vector<uint32_t> shape_obstacle;  ///< (nshapes) obstacle id of each shape
  std::vector<Vec3f> mesh_x;       ///< (nmeshverts) m, at the end of the frame
  std::vector<Vec3f> mesh_x_prev;  ///< (nmeshverts) m, at the start of the frame
  std::vector<Int3> mesh_tris;     ///< (nmeshtris) ids into mesh_x
  std::vector<MeshRange> meshes;
  uint64_t mesh_version = 0;       ///< bumped whenever mesh_x changes (BVH refits key on it)

  // backend copies
  DeviceBuffer<Shape> d_shapes, d_shapes_prev;
  DeviceBuffer<Vec3f> d_mesh_x, d_mesh_x_prev;
  DeviceBuffer<Int3> d_mesh_tris;

  /// Copies the host arrays to the backend (triangles only when their count changes).
  void sync(const Context& ctx);
  int num_shapes() const { return int(shapes.size()); }
  bool has_meshes() const { return !mesh_tris.empty(); }
};

}  // namespace cb
