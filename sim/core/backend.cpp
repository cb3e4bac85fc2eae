#include "sim/core/backend.h"

#include <cstdint>
#include <string>

#include "sim/core/error.h"

#if CLOTHBOX_WITH_CUDA
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#endif

namespace cb {

void throw_cuda_error(int status, const char* expr, const char* file, int line) {
#if CLOTHBOX_WITH_CUDA
  const char* msg = cudaGetErrorString(static_cast<cudaError_t>(status));
#else
  (void)status;
  const char* msg = "CUDA is not compiled into this build";
#endif
  throw Error(std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + msg);
}

BackendRequest parse_backend(const std::string& word) {
  if (word == "auto") return BackendRequest::Auto;
  if (word == "cpu") return BackendRequest::Cpu;
  if (word == "cuda") return BackendRequest::Cuda;
  throw Error("unknown backend '" + word + "' (expected auto, cpu or cuda)");
}

const char* backend_name(Backend b) { return b == Backend::Cuda ? "cuda" : "cpu"; }

bool cuda_compiled() { return CLOTHBOX_WITH_CUDA != 0; }

int cuda_device_count(std::string* why) {
#if CLOTHBOX_WITH_CUDA
  int n = 0;
  cudaError_t st = cudaGetDeviceCount(&n);
  if (st != cudaSuccess) {
    if (why) *why = cudaGetErrorString(st);
    cudaGetLastError();  // clear the sticky error
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device found";
  return n;
#else
  if (why) *why = "this build has no CUDA backend (configured with CLOTHBOX_CUDA=OFF or no nvcc)";
  return 0;
#endif
}

Context make_context(BackendRequest request, std::string* note) {
  Context ctx;
  if (request == BackendRequest::Cpu) return ctx;
  std::string why;
  int n = cuda_device_count(&why);
  if (n == 0) {
    if (request == BackendRequest::Cuda) throw Error("backend 'cuda' requested but unavailable: " + why);
    if (note) *note = "backend auto: using cpu (" + why + ")";
    return ctx;
  }
  ctx.backend = Backend::Cuda;
  ctx.device = 0;
#if CLOTHBOX_WITH_CUDA
  CB_CUDA_CHECK(cudaSetDevice(ctx.device));
  // device buffers come from the stream-ordered pool (buffer.cpp); keep what it
  // holds instead of returning it to the driver at every synchronisation, so the
  // scratch buffers of a step cost no cudaMalloc / cudaFree after the first step
  cudaMemPool_t pool;
  CB_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, ctx.device));
  uint64_t keep = UINT64_MAX;
  CB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  if (note) {
    cudaDeviceProp prop{};
    CB_CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx.device));
    *note = std::string("backend: cuda on ") + prop.name;
  }
#endif
  return ctx;
}

void synchronize(const Context& ctx) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) CB_CUDA_CHECK(cudaDeviceSynchronize());
#else
  (void)ctx;
#endif
}

void profiler_capture(const Context& ctx, bool on) {
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) CB_CUDA_CHECK(on ? cudaProfilerStart() : cudaProfilerStop());
#else
  (void)ctx;
  (void)on;
#endif
}

void device_memory(const Context& ctx, size_t* used, size_t* total) {
  *used = *total = 0;
#if CLOTHBOX_WITH_CUDA
  if (ctx.is_cuda()) {
    size_t free_b = 0;
    CB_CUDA_CHECK(cudaMemGetInfo(&free_b, total));
    *used = *total - free_b;
  }
#else
  (void)ctx;
#endif
}

}  // namespace cb
