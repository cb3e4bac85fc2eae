// rows_sum(ctx, n, row, finish, scratch): calls row(i) for every i in [0, n) —
// each call does its element's work and returns a float term — then finish(S)
// once, S = the terms summed in double, without a host read-back.
//
// An iterative solver's step is "a per-element update, a dot product, a scalar
// update" (a CG iteration is two of them). Done as parallel_for + reduce +
// a one-thread kernel that is three to four launches, latency-bound on a GPU at
// ~100k elements. Here it is one:
//  - CUDA: one kernel; each block sums its terms (fixed shuffle tree) into a
//    partial; the last block to finish (a ticket counter, after a memory fence)
//    adds the partials in block order and calls finish. Same sum for the same
//    terms on every run (no floating-point atomics).
//  - CPU: parallel_for writes the terms, reduce_sum adds them (the blocked
//    double sum of every other CPU reduction), finish runs on the calling thread.
// Both `row` and `finish` are CB_HD functors; finish may write backend memory that
// row read (every row of the launch has read it before finish runs).
#pragma once

#include "sim/core/algorithms.h"
#include "sim/core/buffer.h"
#include "sim/core/parallel.h"

namespace cb {

/// Scratch of rows_sum (backend memory), resized on demand.
struct RowsSumScratch {
  DeviceBuffer<float> terms;       ///< (n) CPU: the row terms
  DeviceBuffer<double> partial;    ///< (blocks) CUDA: per-block sums
  DeviceBuffer<unsigned> ticket;   ///< (1) CUDA: blocks done; 0 between launches
  size_t bytes() const { return terms.bytes() + partial.bytes() + ticket.bytes(); }
};

#if defined(__CUDACC__)
namespace detail {

constexpr int kRowsSumThreads = 256;

/// Sum over the block (fixed order); the result is valid in thread 0.
__device__ inline double block_sum(double v) {
  __shared__ double warp_sums[kRowsSumThreads / 32];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = threadIdx.x < kRowsSumThreads / 32 ? warp_sums[threadIdx.x] : 0.0;
  if (warp == 0)
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
  __syncthreads();  // warp_sums may be reused by the caller's next block_sum
  return v;
}

template <class Row, class Finish>
__global__ void rows_sum_kernel(int n, Row row, Finish finish, double* partial, unsigned* ticket) {
  __shared__ bool last;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double s = block_sum(i < n ? double(row(i)) : 0.0);
  if (threadIdx.x == 0) {
    partial[blockIdx.x] = s;
    __threadfence();  // the partial is visible before the ticket says so
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  double t = 0.0;  // thread k adds partials k, k + 256, ... (fixed order)
  for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x) t += __ldcg(partial + b);
  t = block_sum(t);
  if (threadIdx.x == 0) {
    finish(t);
    *ticket = 0;
  }
}

}  // namespace detail
#endif

template <class Row, class Finish>
void rows_sum(const Context& ctx, int n, Row row, Finish finish, RowsSumScratch& s) {
  if (ctx.is_cuda()) {
#if defined(__CUDACC__)
    const int blocks = n > 0 ? (n + detail::kRowsSumThreads - 1) / detail::kRowsSumThreads : 1;
    if (s.partial.size() < size_t(blocks)) s.partial.resize(ctx, size_t(blocks));
    if (s.ticket.size() != 1) s.ticket.resize(ctx, 1);  // zeroed
    detail::rows_sum_kernel<<<blocks, detail::kRowsSumThreads>>>(n, row, finish, s.partial.data(), s.ticket.data());
    CB_CUDA_CHECK(cudaGetLastError());
#else
    throw Error("rows_sum on the cuda backend from a translation unit not compiled by nvcc");
#endif
    return;
  }
  if (s.terms.size() < size_t(n)) s.terms.resize(ctx, size_t(n));
  float* terms = s.terms.data();
  // a plain loop, not parallel_for with a lambda of its own (see parallel.h)
#pragma omp parallel for schedule(static) if (n >= kMinParallelCpu)
  for (int i = 0; i < n; ++i) terms[i] = row(i);
  finish(reduce_sum(ctx, terms, size_t(n)));
}

}  // namespace cb
