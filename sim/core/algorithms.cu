#include "sim/core/algorithms.h"

#include <thrust/copy.h>
#include <thrust/extrema.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/system/omp/execution_policy.h>
#include <thrust/unique.h>
#if defined(__CUDACC__)
#include <thrust/system/cuda/execution_policy.h>
#endif

#include <cmath>
#include <limits>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/error.h"
#include "sim/core/parallel.h"

namespace cb {
namespace {

#if defined(__CUDACC__)
// Thrust's temporary storage from the stream-ordered pool (as DeviceBuffer's):
// its default allocator calls cudaMalloc / cudaFree, which synchronise the device.
struct PoolAllocator {
  using value_type = char;
  char* allocate(std::ptrdiff_t n) {
    void* p = nullptr;
    CB_CUDA_CHECK(cudaMallocAsync(&p, size_t(n), 0));
    return static_cast<char*>(p);
  }
  void deallocate(char* p, size_t) { cudaFreeAsync(p, 0); }
};
#endif

// Dispatches a Thrust call with the backend's execution policy.
template <class F>
auto with_policy(const Context& ctx, F f) {
#if defined(__CUDACC__)
  PoolAllocator alloc;
  if (ctx.is_cuda()) return f(thrust::cuda::par(alloc));
#else
  if (ctx.is_cuda()) throw Error("cuda backend requested in a build without CUDA");
#endif
  return f(thrust::omp::par);
}

// The same for calls that return nothing to the host (sorts, scans): on CUDA
// without the stream synchronisation Thrust's par ends each call with. The
// launches stay in the default stream's order, and every read-back
// (cudaMemcpy) waits for them; the host does not wait for each call.
template <class F>
void with_policy_nosync(const Context& ctx, F f) {
#if defined(__CUDACC__)
  PoolAllocator alloc;
  if (ctx.is_cuda()) {
    f(thrust::cuda::par_nosync(alloc));
    return;
  }
#endif
  with_policy(ctx, f);
}

struct NonZero {
  const uint32_t* flags;
  CB_HD bool operator()(uint32_t i) const { return flags[i] != 0; }
};

// Fixed-order CPU reduction: partials over blocks of 4096, then summed in order.
template <class Op>
double cpu_block_reduce(const float* p, size_t n, double init, Op op) {
  constexpr size_t kBlock = 4096;
  size_t nb = (n + kBlock - 1) / kBlock;
  std::vector<double> partial(nb, init);
#pragma omp parallel for schedule(static)
  for (long long b = 0; b < static_cast<long long>(nb); ++b) {
    double acc = init;
    size_t end = std::min(n, (size_t(b) + 1) * kBlock);
    for (size_t i = size_t(b) * kBlock; i < end; ++i) acc = op(acc, double(p[i]));
    partial[b] = acc;
  }
  double acc = init;
  for (double v : partial) acc = op(acc, v);
  return acc;
}

}  // namespace

void sort_by_key(const Context& ctx, uint32_t* keys, uint32_t* values, size_t n) {
  with_policy_nosync(ctx, [&](auto pol) { thrust::stable_sort_by_key(pol, keys, keys + n, values); return 0; });
}

void sort_by_key(const Context& ctx, uint64_t* keys, uint32_t* values, size_t n) {
  with_policy_nosync(ctx, [&](auto pol) { thrust::stable_sort_by_key(pol, keys, keys + n, values); return 0; });
}

void exclusive_scan_no_total(const Context& ctx, const uint32_t* in, uint32_t* out, size_t n) {
  if (n == 0) return;
  with_policy_nosync(ctx, [&](auto pol) { thrust::exclusive_scan(pol, in, in + n, out); return 0; });
}

namespace {
// The scan, and its total at *total (backend memory): the last input, kept on
// the backend before an in-place scan overwrites it, plus the last output. No
// read-back (on CUDA the host waited three times: the last input, the scan,
// the last output).
void scan_with_total(const Context& ctx, const uint32_t* in, uint32_t* out, size_t n, uint32_t* total) {
  const size_t last = n - 1;
  parallel_for(ctx, 1, [=] CB_HD(int) { *total = in[last]; });
  exclusive_scan_no_total(ctx, in, out, n);
  parallel_for(ctx, 1, [=] CB_HD(int) { *total += out[last]; });
}
}  // namespace

uint32_t exclusive_scan(const Context& ctx, const uint32_t* in, uint32_t* out, size_t n) {
  if (n == 0) return 0;
  DeviceBuffer<uint32_t> total(ctx, 1);
  scan_with_total(ctx, in, out, n, total.data());
  uint32_t sum = 0;
  detail::buffer_copy_to_host(ctx, &sum, total.data(), sizeof(uint32_t));
  return sum;
}

std::array<uint32_t, 2> exclusive_scans(const Context& ctx, uint32_t* a, uint32_t* b, size_t n) {
  std::array<uint32_t, 2> sums{0, 0};
  if (n == 0) return sums;
  DeviceBuffer<uint32_t> totals(ctx, 2);
  scan_with_total(ctx, a, a, n, totals.data());
  scan_with_total(ctx, b, b, n, totals.data() + 1);
  detail::buffer_copy_to_host(ctx, sums.data(), totals.data(), 2 * sizeof(uint32_t));
  return sums;
}

double reduce_sum(const Context& ctx, const float* p, size_t n) {
  if (!ctx.is_cuda()) return cpu_block_reduce(p, n, 0.0, [](double a, double b) { return a + b; });
  return with_policy(ctx, [&](auto pol) { return double(thrust::reduce(pol, p, p + n, 0.0f)); });
}

float reduce_max(const Context& ctx, const float* p, size_t n) {
  const float lo = -std::numeric_limits<float>::infinity();
  if (!ctx.is_cuda()) return float(cpu_block_reduce(p, n, lo, [](double a, double b) { return a > b ? a : b; }));
  return with_policy(ctx, [&](auto pol) { return thrust::reduce(pol, p, p + n, lo, thrust::maximum<float>()); });
}

float reduce_min(const Context& ctx, const float* p, size_t n) {
  const float hi = std::numeric_limits<float>::infinity();
  if (!ctx.is_cuda()) return float(cpu_block_reduce(p, n, hi, [](double a, double b) { return a < b ? a : b; }));
  return with_policy(ctx, [&](auto pol) { return thrust::reduce(pol, p, p + n, hi, thrust::minimum<float>()); });
}

namespace {
struct BoxUnion {
  CB_HD Aabb operator()(Aabb a, const Aabb& b) const {
    a.grow(b);
    return a;
  }
};
}  // namespace

Aabb reduce_bounds(const Context& ctx, const Aabb* boxes, size_t n) {
  if (n == 0) return Aabb{};
  return with_policy(ctx, [&](auto pol) { return thrust::reduce(pol, boxes, boxes + n, Aabb{}, BoxUnion{}); });
}

size_t compact_indices(const Context& ctx, const uint32_t* flags, uint32_t* out, size_t n) {
  return with_policy(ctx, [&](auto pol) {
    auto first = thrust::counting_iterator<uint32_t>(0);
    auto end = thrust::copy_if(pol, first, first + n, out, NonZero{flags});
    return size_t(end - out);
  });
}

size_t run_starts(const Context& ctx, const uint32_t* sorted_keys, size_t n, uint32_t* out_keys,
                  uint32_t* out_starts) {
  return with_policy(ctx, [&](auto pol) {
    auto idx = thrust::counting_iterator<uint32_t>(0);
    auto ends = thrust::unique_by_key_copy(pol, sorted_keys, sorted_keys + n, idx, out_keys, out_starts);
    return size_t(ends.first - out_keys);
  });
}

void key_starts(const Context& ctx, const uint32_t* sorted_keys, size_t n, uint32_t nkeys, uint32_t* out) {
  const uint32_t count = uint32_t(n);
  parallel_for(ctx, int(nkeys) + 1, [=] CB_HD(int b) {  // binary search: one thread per key
    uint32_t lo = 0, hi = count;
    while (lo < hi) {
      const uint32_t mid = (lo + hi) >> 1;
      if (sorted_keys[mid] < uint32_t(b)) lo = mid + 1; else hi = mid;
    }
    out[b] = lo;
  });
}

}  // namespace cb
