// The per-frame cloth vertex stream for drawing: positions and smooth
// (area-weighted) normals, recomputed every frame by one kernel that runs on the
// world's backend. On CUDA its output is the mapped GL buffer (interop), on the
// CPU a host array that glBufferSubData uploads.
#pragma once

#include <cstdint>

#include "sim/core/backend.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/cloth_model.h"

namespace cb::render {

/// The model's triangles and vertex->triangle adjacency on the backend (uploaded once).
struct ClothTopologyBuffers {
  DeviceBuffer<Int3> tris;              ///< (ntris)
  DeviceBuffer<uint32_t> vt_offsets;    ///< (nverts + 1) CSR rows of vert_tris
  DeviceBuffer<uint32_t> vt_ids;        ///< (nnz) triangle ids
  int nverts = 0;
  void upload(const Context& ctx, const ClothModel& m);
};

/// Writes out_x[v] = x[v] and out_n[v] = normalised sum of the (2 * area)-weighted
/// normals of the triangles around v (counter-clockwise = front). All pointers are
/// backend memory of `ctx` (or mapped GL memory on CUDA), each (nverts).
void write_cloth_vertices(const Context& ctx, const ClothTopologyBuffers& topo, const Vec3f* x, Vec3f* out_x,
                          Vec3f* out_n);

}  // namespace cb::render
