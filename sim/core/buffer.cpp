#include "sim/core/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "sim/core/error.h"

#if CLOTHBOX_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace cb::detail {

void* buffer_alloc(const Context& ctx, size_t bytes) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    // stream-ordered (the default stream, where every kernel runs) from the
    // device's pool: no device-wide synchronisation per allocation or free
    void* p = nullptr;
    CB_CUDA_CHECK(cudaMallocAsync(&p, bytes, 0));
    return p;
  }
#endif
  (void)ctx;
  // 64-byte alignment: whole cache lines per thread chunk on the CPU backend.
  void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) throw Error("out of host memory allocating " + std::to_string(bytes) + " bytes");
  return p;
}

void buffer_free(const Context& ctx, void* p) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    cudaFreeAsync(p, 0);  // never throws from a destructor path
    return;
  }
#endif
  (void)ctx;
  std::free(p);
}

void buffer_copy_to_host(const Context& ctx, void* host, const void* dev, size_t bytes) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    CB_CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    return;
  }
#endif
  (void)ctx;
  std::memcpy(host, dev, bytes);
}

void buffer_copy_from_host(const Context& ctx, void* dev, const void* host, size_t bytes) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    CB_CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    return;
  }
#endif
  (void)ctx;
  std::memcpy(dev, host, bytes);
}

void buffer_copy_on_device(const Context& ctx, void* dst, const void* src, size_t bytes) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    CB_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    return;
  }
#endif
  (void)ctx;
  std::memcpy(dst, src, bytes);
}

void buffer_fill_zero(const Context& ctx, void* p, size_t bytes) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    CB_CUDA_CHECK(cudaMemset(p, 0, bytes));
    return;
  }
#endif
  (void)ctx;
  std::memset(p, 0, bytes);
}

}  // namespace cb::detail
