// The bridge in a build without CUDA: never registers; the CPU upload path runs.
#include "render/cuda_gl_bridge.h"

namespace cb::render {

CudaGlBridge::~CudaGlBridge() = default;
bool CudaGlBridge::compiled() { return false; }
std::string CudaGlBridge::register_buffers(unsigned int, unsigned int) { return "built without CUDA"; }
void CudaGlBridge::unregister() {}
std::string CudaGlBridge::map(Vec3f**, Vec3f**) { return "built without CUDA"; }
void CudaGlBridge::unmap() {}

}  // namespace cb::render
