// The cloth's GL buffers: positions and normals rewritten every frame (CUDA-GL
// interop on the CUDA backend, glBufferSubData on the CPU), static UVs,
// triangle and edge index buffers, and the pinned vertex ids as an index buffer
// (pin markers are drawn from the same position buffer, with no host copy).
#pragma once

#include <string>
#include <vector>

#include "render/cloth_vertices.h"
#include "render/cuda_gl_bridge.h"
#include "render/gl_objects.h"
#include "sim/model/cloth_model.h"
#include "sim/state.h"

namespace cb::render {

/// How positions reach GL this frame (shown in the Stats panel).
enum class PublishPath { None, CudaInterop, CudaHostCopy, CpuUpload };
const char* publish_path_name(PublishPath p);

class ClothMesh {
 public:
  /// Allocates the buffers for `model` and, on the CUDA backend, registers them with CUDA.
  void build(const Context& ctx, const ClothModel& model);
  /// Writes this frame's positions and smooth normals from `state` (backend memory).
  void publish(const Context& ctx, const SimState& state);
  /// Sets the pinned vertex ids drawn as markers.
  void set_pins(const std::vector<uint32_t>& ids);

  void draw_surface() const;
  void draw_wire() const;
  void draw_pins() const;

  PublishPath path() const { return path_; }
  /// Why interop is not used ("" when it is, or on the CPU backend).
  const std::string& interop_note() const { return interop_note_; }
  int num_vertices() const { return nverts_; }

 private:
  GlVertexArray vao_;
  GlBuffer pos_, nrm_, uv_, tri_ebo_, edge_ebo_, pin_ebo_;
  int nverts_ = 0, ntri_idx_ = 0, nedge_idx_ = 0, npins_ = 0;
  ClothTopologyBuffers topo_;
  CudaGlBridge bridge_;
  DeviceBuffer<Vec3f> stage_x_, stage_n_;  ///< backend scratch when interop is unavailable
  std::vector<Vec3f> host_x_, host_n_;
  PublishPath path_ = PublishPath::None;
  std::string interop_note_;
};

}  // namespace cb::render
