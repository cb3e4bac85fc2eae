// The CUDA-GL interop bridge: GL vertex buffers registered with CUDA
// (cudaGraphicsGLRegisterBuffer), mapped each frame so a kernel writes into them
// directly, then unmapped before GL draws. The only place that knows both GLuint
// and cudaGraphicsResource; built without CUDA it reports itself unavailable.
#pragma once

#include <string>

#include "sim/core/math.h"

namespace cb::render {

class CudaGlBridge {
 public:
  CudaGlBridge() = default;
  ~CudaGlBridge();
  CudaGlBridge(const CudaGlBridge&) = delete;
  CudaGlBridge& operator=(const CudaGlBridge&) = delete;

  /// True when this build has the CUDA backend.
  static bool compiled();
  /// Registers two GL buffers (positions, normals; names from glGenBuffers, each
  /// holding nverts Vec3f) for write-discard access. Returns "" or why not.
  std::string register_buffers(unsigned int position_vbo, unsigned int normal_vbo);
  /// Drops the registration (before the buffers are deleted or resized).
  void unregister();
  bool registered() const { return res_[0] != nullptr; }
  /// Maps both buffers; *pos and *nrm receive device pointers valid until unmap().
  /// Returns "" or why not.
  std::string map(Vec3f** pos, Vec3f** nrm);
  void unmap();

 private:
  void* res_[2] = {nullptr, nullptr};  ///< cudaGraphicsResource_t
  bool mapped_ = false;
};

}  // namespace cb::render
