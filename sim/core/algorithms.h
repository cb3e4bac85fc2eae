// Data-parallel primitives through Thrust with the backend's execution policy
// (thrust::cuda::par on the GPU, thrust::omp::par on the CPU). All pointers are
// backend memory (see DeviceBuffer). Kept in one translation unit (algorithms.cu)
// because Thrust is slow to compile.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/backend.h"
#include "sim/core/math.h"

namespace cb {

/// Stable sort of keys[0..n) with values permuted alongside.
void sort_by_key(const Context& ctx, uint32_t* keys, uint32_t* values, size_t n);
void sort_by_key(const Context& ctx, uint64_t* keys, uint32_t* values, size_t n);

/// out[i] = in[0] + ... + in[i-1]; returns the total sum. `out` may alias `in`.
/// On CUDA the host waits once, to read the total.
uint32_t exclusive_scan(const Context& ctx, const uint32_t* in, uint32_t* out, size_t n);
/// Two in-place exclusive scans of n entries each; their totals, read in one wait.
std::array<uint32_t, 2> exclusive_scans(const Context& ctx, uint32_t* a, uint32_t* b, size_t n);
/// The scan alone, its total not read: the host does not wait.
void exclusive_scan_no_total(const Context& ctx, const uint32_t* in, uint32_t* out, size_t n);

/// Sums / extrema. On the CPU the summation order is fixed (blocks of 4096 summed
/// in parallel, then the partials in order), so the result does not depend on the
/// thread count.
double reduce_sum(const Context& ctx, const float* p, size_t n);
float reduce_max(const Context& ctx, const float* p, size_t n);  ///< -inf for n = 0
float reduce_min(const Context& ctx, const float* p, size_t n);  ///< +inf for n = 0
/// The box around boxes[0..n) (exact: min / max); Aabb{} (empty) for n = 0. One
/// pass and one read-back where six reduce_min / reduce_max calls were six of each.
Aabb reduce_bounds(const Context& ctx, const Aabb* boxes, size_t n);

/// Writes the indices i with flags[i] != 0 to out, in increasing order; returns
/// their count. `out` needs room for n entries.
size_t compact_indices(const Context& ctx, const uint32_t* flags, uint32_t* out, size_t n);

/// For sorted keys, writes each run's first index to out_starts and the key to
/// out_keys; returns the number of distinct keys (cell start tables of hash grids).
size_t run_starts(const Context& ctx, const uint32_t* sorted_keys, size_t n, uint32_t* out_keys,
                  uint32_t* out_starts);

/// For keys sorted ascending (all < nkeys), out[b] = the first index i with
/// keys[i] >= b, for b in [0, nkeys]: key b's entries are [out[b], out[b + 1])
/// (a start table indexed by key, empty keys included). `out` needs nkeys + 1 entries.
void key_starts(const Context& ctx, const uint32_t* sorted_keys, size_t n, uint32_t nkeys, uint32_t* out);

}  // namespace cb
