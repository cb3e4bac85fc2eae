// collect_in_order: the CPU backend's one-pass form of "each element emits a
// variable number of items", for N output streams.
//
//   collect_in_order<T, N>(ctx, n, room, emit, outs)
//     room(i): std::array<uint32_t, N>, at most how many items element i writes
//              to each stream;
//     emit(i, write): writes element i's items at write[s] (std::array<T*, N>)
//              and returns how many went to each stream (std::array<uint32_t, N>);
//     outs[s]: resized to stream s's total, element i's items before i + 1's.
//   collect_in_order(ctx, n, room, emit, out): the same for one stream, with
//     room(i) and emit(i, T* write) returning a count.
//
// A GPU kernel that emits a variable number of items per element runs twice:
// count, exclusive scan, write (box_pairs.h, ccd_candidates.cu). On the CPU the
// emitting work (a box pair's overlap tests, a triangle pair's feature tests) is
// the cost: on the 58² funnel the second pass was 7 % of a frame. Here each
// thread of the OpenMP team takes a contiguous block of elements (as a static
// schedule does), emits into its own growing buffers, and the blocks are copied
// out in thread order: the items, their order and their bits are those of count /
// scan / write, whatever the thread count.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/parallel.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace cb {

template <class T, size_t N, class Room, class Emit>
void collect_in_order(const Context& ctx, int n, Room room, Emit emit, const std::array<DeviceBuffer<T>*, N>& outs) {
  if (ctx.is_cuda()) throw Error("collect_in_order is the CPU backend's path");
  int team = 1;
#if defined(_OPENMP)
  if (n >= kMinParallelCpu) team = omp_get_max_threads();
#endif
  const size_t slots = static_cast<size_t>(team);
  std::vector<std::array<std::vector<T>, N>> bufs(slots);
  std::vector<std::array<size_t, N>> used(slots), offset(slots + 1);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    int t = 0, nt = 1;
#if defined(_OPENMP)
    t = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    const int begin = int(int64_t(n) * t / nt), end = int(int64_t(n) * (t + 1) / nt);
    std::array<std::vector<T>, N>& buf = bufs[size_t(t)];
    std::array<size_t, N> u{};
    for (int i = begin; i < end; ++i) {
      const std::array<uint32_t, N> r = room(i);
      std::array<T*, N> write;
      for (size_t s = 0; s < N; ++s) {
        if (u[s] + r[s] > buf[s].size()) buf[s].resize(std::max(2 * buf[s].size(), u[s] + r[s] + 1024));
        write[s] = buf[s].data() + u[s];
      }
      const std::array<uint32_t, N> m = emit(i, write);
      for (size_t s = 0; s < N; ++s) u[s] += m[s];
    }
    used[size_t(t)] = u;
#pragma omp barrier
#pragma omp single
    {
      for (size_t s = 0; s < N; ++s) {
        offset[0][s] = 0;
        for (size_t k = 0; k < size_t(nt); ++k) offset[k + 1][s] = offset[k][s] + used[k][s];
        outs[s]->resize(ctx, offset[size_t(nt)][s]);
      }
    }  // (its implicit barrier: the outputs are sized before any copy)
    for (size_t s = 0; s < N; ++s)
      std::copy(buf[s].begin(), buf[s].begin() + std::ptrdiff_t(u[s]), outs[s]->data() + offset[size_t(t)][s]);
  }
}

namespace collect_detail {
template <class Room>
struct OneRoom {
  Room room;
  std::array<uint32_t, 1> operator()(int i) const { return {uint32_t(room(i))}; }
};
template <class T, class Emit>
struct OneEmit {
  Emit emit;
  std::array<uint32_t, 1> operator()(int i, const std::array<T*, 1>& w) const { return {uint32_t(emit(i, w[0]))}; }
};
}  // namespace collect_detail

template <class T, class Room, class Emit>
size_t collect_in_order(const Context& ctx, int n, Room room, Emit emit, DeviceBuffer<T>& out) {
  collect_in_order<T, 1>(ctx, n, collect_detail::OneRoom<Room>{room}, collect_detail::OneEmit<T, Emit>{emit},
                         std::array<DeviceBuffer<T>*, 1>{&out});
  return out.size();
}

}  // namespace cb
