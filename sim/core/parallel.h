// parallel_for(ctx, n, f): calls f(i) for i in [0, n) — a CUDA launch on the Cuda
// backend, an OpenMP loop on the CPU. `f` is a __host__ __device__ functor or an
// extended lambda written with CB_HD:  parallel_for(ctx, n, [=] CB_HD (int i) {...});
// In a CUDA build, nvcc calls an extended __host__ __device__ lambda on the host
// through a function pointer, once per element, where a named functor's call
// inlines into the loop: hot CPU loops (the PCG's rows, the broad phase's
// visitors) are written as functors (on the 58² funnel the lambdas cost 15 % of
// a CPU frame; RESULTS.md, eighteenth session).
//
// Kernels that use it live in .cu files. When the build has no CUDA those files
// compile as C++ and only the CPU path exists. Each thread writes only its own
// element (gathers, not atomic scatters), which keeps the CPU backend bit-identical
// whatever the thread count.
#pragma once

#include "sim/core/backend.h"
#include "sim/core/error.h"
#include "sim/core/hd.h"

namespace cb {

#if defined(__CUDACC__)
namespace detail {
template <class F>
__global__ void parallel_for_kernel(int n, F f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) f(i);
}
}  // namespace detail
#endif

/// Threads per CUDA block for parallel_for launches.
constexpr int kBlockSize = 256;
/// Fewest elements for which the CPU backend starts an OpenMP team.
constexpr int kMinParallelCpu = 2048;

/// min_parallel: fewest items for which the CPU backend starts a team (items
/// heavier than a few simple operations, e.g. chunks of work, pass less).
template <class F>
void parallel_for(const Context& ctx, int n, F f, int min_parallel = kMinParallelCpu) {
  if (n <= 0) return;
  if (ctx.is_cuda()) {
#if defined(__CUDACC__)
    detail::parallel_for_kernel<<<(n + kBlockSize - 1) / kBlockSize, kBlockSize>>>(n, f);
    CB_CUDA_CHECK(cudaGetLastError());
#else
    throw Error("parallel_for on the cuda backend from a translation unit not compiled by nvcc");
#endif
    return;
  }
  // small loops run on the calling thread: starting an OpenMP team costs more
  // than a few thousand simple elements (results are the same either way)
#pragma omp parallel for schedule(static) if (n >= min_parallel)
  for (int i = 0; i < n; ++i) f(i);
}

}  // namespace cb
