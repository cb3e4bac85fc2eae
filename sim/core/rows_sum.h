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
// rows_sum_lanes does the same with several threads a row, each summing a share
// of it (the PCG's product, cg.cu).
#pragma once

#include "sim/core/algorithms.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"
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

/// Every thread's v summed over the grid: each block's sum (block_sum) into its
/// partial; the last block to finish (a ticket counter, after a memory fence)
/// adds the partials in block order and calls finish. Called by every thread.
template <class Finish>
__device__ void grid_sum_finish(double v, Finish finish, double* partial, unsigned* ticket) {
  __shared__ bool last;
  const double s = block_sum(v);
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

template <class Row, class Finish>
__global__ void rows_sum_kernel(int n, Row row, Finish finish, double* partial, unsigned* ticket) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  grid_sum_finish(i < n ? double(row(i)) : 0.0, finish, partial, ticket);
}

/// rows_sum_lanes' kernel. The block's warps in groups of Lanes: group g takes
/// rows 32 (blockIdx.x kWarps / Lanes + g) + 0..31, its warp l their lane l.
template <int Lanes, class Part, class Row, class Finish>
__global__ void rows_sum_lanes_kernel(int n, Part part, Row row, Finish finish, double* partial, unsigned* ticket) {
  constexpr int kWarps = kRowsSumThreads / 32;
  __shared__ float share[kWarps][3][32];  // each warp's parts, by component
  const int warp = threadIdx.x >> 5, t = threadIdx.x & 31, lane = warp % Lanes;
  const int i = (blockIdx.x * (kWarps / Lanes) + warp / Lanes) * 32 + t;
  const Vec3f v = i < n ? part(i, lane) : Vec3f{};
  share[warp][0][t] = v.x;
  share[warp][1][t] = v.y;
  share[warp][2][t] = v.z;
  __syncthreads();
  double term = 0.0;
  if (lane == 0 && i < n) {
    Vec3f sum = v;  // lane order, as on the CPU
    for (int l = 1; l < Lanes; ++l) sum += Vec3f{share[warp + l][0][t], share[warp + l][1][t], share[warp + l][2][t]};
    term = double(row(i, sum));
  }
  grid_sum_finish(term, finish, partial, ticket);
}

}  // namespace detail
#endif

/// Sizes the CUDA scratch for `blocks` blocks.
inline void rows_sum_reserve(const Context& ctx, RowsSumScratch& s, int blocks) {
  if (s.partial.size() < size_t(blocks)) s.partial.resize(ctx, size_t(blocks));
  if (s.ticket.size() != 1) s.ticket.resize(ctx, 1);  // zeroed
}

/// The CPU backend's rows_sum: terms[i] = row(i), then finish(their sum).
template <class Row, class Finish>
void rows_sum_cpu(const Context& ctx, int n, Row row, Finish finish, RowsSumScratch& s) {
  if (s.terms.size() < size_t(n)) s.terms.resize(ctx, size_t(n));
  float* terms = s.terms.data();
  // a plain loop, not parallel_for with a lambda of its own (see parallel.h)
#pragma omp parallel for schedule(static) if (n >= kMinParallelCpu)
  for (int i = 0; i < n; ++i) terms[i] = row(i);
  finish(reduce_sum(ctx, terms, size_t(n)));
}

template <class Row, class Finish>
void rows_sum(const Context& ctx, int n, Row row, Finish finish, RowsSumScratch& s) {
  if (ctx.is_cuda()) {
#if defined(__CUDACC__)
    const int blocks = n > 0 ? (n + detail::kRowsSumThreads - 1) / detail::kRowsSumThreads : 1;
    rows_sum_reserve(ctx, s, blocks);
    detail::rows_sum_kernel<<<blocks, detail::kRowsSumThreads>>>(n, row, finish, s.partial.data(), s.ticket.data());
    CB_CUDA_CHECK(cudaGetLastError());
#else
    throw Error("rows_sum on the cuda backend from a translation unit not compiled by nvcc");
#endif
    return;
  }
  rows_sum_cpu(ctx, n, row, finish, s);
}

/// rows_sum with Lanes threads a row (1, 2, 4 or 8), for rows whose work splits
/// into independent shares: part(i, l) returns lane l's share of row i (a Vec3f),
/// row(i, v) gets v = the shares summed in lane order, does the row's work and
/// returns its term; then finish(S) as in rows_sum. The sums are the same on
/// both backends: on CUDA each lane is a warp, a group of Lanes warps of one
/// block taking 32 consecutive rows (so a lane's loads of a SELL-32 slice stay
/// whole-line, system.h), and the shares meet in shared memory; on the CPU one
/// thread a row adds them in the same order. More threads a row put more loads
/// in flight where one thread's chain of a long row's loads sets a launch's time.
template <int Lanes, class Part, class Row, class Finish>
void rows_sum_lanes(const Context& ctx, int n, Part part, Row row, Finish finish, RowsSumScratch& s) {
  static_assert(Lanes == 1 || Lanes == 2 || Lanes == 4 || Lanes == 8, "lanes: a divisor of a block's 8 warps");
  if (ctx.is_cuda()) {
#if defined(__CUDACC__)
    constexpr int rows_per_block = detail::kRowsSumThreads / Lanes;
    const int blocks = n > 0 ? (n + rows_per_block - 1) / rows_per_block : 1;
    rows_sum_reserve(ctx, s, blocks);
    detail::rows_sum_lanes_kernel<Lanes>
        <<<blocks, detail::kRowsSumThreads>>>(n, part, row, finish, s.partial.data(), s.ticket.data());
    CB_CUDA_CHECK(cudaGetLastError());
#else
    throw Error("rows_sum_lanes on the cuda backend from a translation unit not compiled by nvcc");
#endif
    return;
  }
  rows_sum_cpu(ctx, n, [=] CB_HD(int i) {
    Vec3f sum = part(i, 0);
    for (int l = 1; l < Lanes; ++l) sum += part(i, l);
    return row(i, sum);
  }, finish, s);
}

}  // namespace cb
