// The bridge with CUDA: GL/gl.h only for the GLuint type cuda_gl_interop.h wants
// (no GL call is made here, so glad is not needed in this file).
#include "render/cuda_gl_bridge.h"

#include <GL/gl.h>
#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

namespace cb::render {

namespace {
cudaGraphicsResource_t as_res(void* p) { return static_cast<cudaGraphicsResource_t>(p); }
std::string why(const char* what, cudaError_t e) { return std::string(what) + ": " + cudaGetErrorString(e); }
}  // namespace

bool CudaGlBridge::compiled() { return true; }

CudaGlBridge::~CudaGlBridge() { unregister(); }

std::string CudaGlBridge::register_buffers(unsigned int position_vbo, unsigned int normal_vbo) {
  unregister();
  GLuint vbo[2] = {position_vbo, normal_vbo};
  for (int k = 0; k < 2; ++k) {
    cudaGraphicsResource_t r = nullptr;
    cudaError_t e = cudaGraphicsGLRegisterBuffer(&r, vbo[k], cudaGraphicsRegisterFlagsWriteDiscard);
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear the sticky-free error so later launches do not see it
      unregister();
      return why("cudaGraphicsGLRegisterBuffer", e);
    }
    res_[k] = r;
  }
  return "";
}

void CudaGlBridge::unregister() {
  if (mapped_) unmap();
  for (void*& r : res_)
    if (r) {
      cudaGraphicsUnregisterResource(as_res(r));
      r = nullptr;
    }
}

std::string CudaGlBridge::map(Vec3f** pos, Vec3f** nrm) {
  if (!registered()) return "no buffers registered";
  cudaGraphicsResource_t r[2] = {as_res(res_[0]), as_res(res_[1])};
  cudaError_t e = cudaGraphicsMapResources(2, r, 0);
  if (e != cudaSuccess) return why("cudaGraphicsMapResources", e);
  mapped_ = true;
  Vec3f** out[2] = {pos, nrm};
  for (int k = 0; k < 2; ++k) {
    size_t bytes = 0;
    e = cudaGraphicsResourceGetMappedPointer(reinterpret_cast<void**>(out[k]), &bytes, r[k]);
    if (e != cudaSuccess) {
      unmap();
      return why("cudaGraphicsResourceGetMappedPointer", e);
    }
  }
  return "";
}

void CudaGlBridge::unmap() {
  if (!mapped_) return;
  cudaGraphicsResource_t r[2] = {as_res(res_[0]), as_res(res_[1])};
  cudaGraphicsUnmapResources(2, r, 0);  // orders the kernel's writes before GL reads
  mapped_ = false;
}

}  // namespace cb::render
