#include "sim/solvers/verlet/dense_grid.h"

#include <cmath>
#include <vector>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb {
namespace dense_grid_detail {

// Lowest vertex id wins a cell: cells hold ~id, so the largest stored value wins.
CB_HD inline void atomic_max_u32(uint32_t* p, uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMax(p, v);
#else
  uint32_t cur = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (v > cur && !__atomic_compare_exchange_n(p, &cur, v, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
#endif
}

void partial_boxes(const Context& ctx, const Vec3f* x, int n, int chunk, Aabb* out) {
  const int nb = (n + chunk - 1) / chunk;
  parallel_for(ctx, nb, [=] CB_HD(int b) {
    Aabb box;
    const int end = (b + 1) * chunk < n ? (b + 1) * chunk : n;
    for (int i = b * chunk; i < end; ++i) box.grow(x[i]);
    out[b] = box;
  });
}

void clear_slots(const Context& ctx, int n, const uint32_t* slot, uint32_t* cells) {
  parallel_for(ctx, n, [=] CB_HD(int i) { cells[slot[i]] = 0u; });
}

void insert(const Context& ctx, int n, const Vec3f* x, DenseGridView g, uint32_t* cells, uint32_t* slot) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Vec3f p = x[i];
    // clamped so that a non-finite position cannot write outside the grid
    auto clampi = [](int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); };
    size_t cx = size_t(clampi(g.axis(p.x, g.origin.x), g.nx - 1));
    size_t cy = size_t(clampi(g.axis(p.y, g.origin.y), g.ny - 1));
    size_t cz = size_t(clampi(g.axis(p.z, g.origin.z), g.nz - 1));
    size_t c = (cz * size_t(g.ny) + cy) * size_t(g.nx) + cx;
    slot[i] = uint32_t(c);
    atomic_max_u32(cells + c, ~uint32_t(i));
  });
}

void lost_flags(const Context& ctx, int n, const uint32_t* cells, const uint32_t* slot, uint32_t* flag) {
  parallel_for(ctx, n, [=] CB_HD(int i) { flag[i] = cells[slot[i]] != ~uint32_t(i) ? 1u : 0u; });
}

}  // namespace dense_grid_detail

Aabb bounding_box(const Context& ctx, const Vec3f* x, int n) {
  Aabb box;
  if (n <= 0) return box;
  const int chunk = ctx.is_cuda() ? 64 : 4096;
  DeviceBuffer<Aabb> part(ctx, size_t((n + chunk - 1) / chunk));
  dense_grid_detail::partial_boxes(ctx, x, n, chunk, part.data());
  for (const Aabb& b : part.to_host()) box.grow(b);
  return box;
}

bool DenseSphereGrid::build(const Context& ctx, const Vec3f* x, int n, float cell, size_t max_cells) {
  namespace d = dense_grid_detail;
  // forget the previous centres (only their cells were written)
  if (slots_valid_ && slot_.size() == size_t(n) && cells_.context().backend == ctx.backend)
    d::clear_slots(ctx, n, slot_.data(), cells_.data());
  else
    cells_.fill_zero();
  slots_valid_ = false;
  // box with two empty cells of margin on each side
  Aabb box = bounding_box(ctx, x, n);
  if (box.empty()) box.grow(Vec3f{0, 0, 0});
  const float inv = 1.f / cell;
  Vec3f ext = box.extent();
  double dims[3] = {std::floor(ext.x * inv) + 5, std::floor(ext.y * inv) + 5, std::floor(ext.z * inv) + 5};
  double total = dims[0] * dims[1] * dims[2];
  if (!(total <= double(max_cells))) return false;
  if (size_t(total) > cells_.size() || cells_.context().backend != ctx.backend)
    cells_.resize(ctx, size_t(total * 1.25));  // zeroed: all empty
  if (slot_.size() != size_t(n) || slot_.context().backend != ctx.backend) {
    slot_.resize(ctx, size_t(n));
    flag_.resize(ctx, size_t(n));
    overflow_.resize(ctx, size_t(n));
  }
  view_.origin = box.lo - Vec3f{2 * cell, 2 * cell, 2 * cell};
  view_.inv_cell = inv;
  view_.nx = int(dims[0]), view_.ny = int(dims[1]), view_.nz = int(dims[2]);
  view_.x = x;
  view_.cells = cells_.data();
  view_.overflow = overflow_.data();
  d::insert(ctx, n, x, view_, cells_.data(), slot_.data());
  slots_valid_ = true;
  d::lost_flags(ctx, n, cells_.data(), slot_.data(), flag_.data());
  view_.n_overflow = int(compact_indices(ctx, flag_.data(), overflow_.data(), size_t(n)));
  return true;
}

}  // namespace cb
