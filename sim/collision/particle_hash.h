// Sorted spatial hash of particles (Green 2008 "Particle simulation using CUDA";
// the "future work" store of Zheng 2021): particles are sorted by the hash of
// their cell, and a cell start/end table indexed by the hash gives each cell's
// particles. Memory grows with the particle count, not with the volume, and it
// works anywhere in space (cell coordinates are hashed, never bounded).
//
// Usage (any detector: Verlet virtual spheres, PBD particle self-collision):
//
//   ParticleHash hash;                          // keep it between steps (reuses memory)
//   hash.build(ctx, x, n, cell_size);           // x: (n) backend positions, cell side in m
//   ParticleHashView view = hash.view();        // POD: copy it into kernels by value
//   parallel_for(ctx, n, [=] CB_HD (int i) {
//     view.for_each_within(x[i], radius, [&](uint32_t j, Vec3f xj) {
//       if (j != i) { ... }                     // every particle j with |xj - x[i]| < radius
//     });
//   });
//
// for_each_within visits each particle at most once, in a fixed order (buckets in
// cell z, y, x order, then sorted slots), so results do not depend on the
// backend's thread count. Positions are those passed to build() (a sorted copy is kept).
// Cost per query: (2 reach + 1)^3 table lookups, reach = ceil(radius / cell).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/buffer.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// Integer cell coordinates of a point for cells of side 1/inv_cell (m), clamped
/// to +-2^30 so that far-away points cannot overflow.
struct CellCoord {
  int32_t x = 0, y = 0, z = 0;
};

CB_HD inline int32_t cell_axis(float p, float inv_cell) {
  float c = std::floor(p * inv_cell);
  c = c < -1073741824.f ? -1073741824.f : (c > 1073741824.f ? 1073741824.f : c);
  return int32_t(c);
}

CB_HD inline CellCoord cell_of(Vec3f p, float inv_cell) {
  return {cell_axis(p.x, inv_cell), cell_axis(p.y, inv_cell), cell_axis(p.z, inv_cell)};
}

/// Hash of a cell into [0, mask] (mask + 1 a power of two); Teschner et al. 2003 primes.
CB_HD inline uint32_t cell_hash(int32_t x, int32_t y, int32_t z, uint32_t mask) {
  return ((uint32_t(x) * 73856093u) ^ (uint32_t(y) * 19349663u) ^ (uint32_t(z) * 83492791u)) & mask;
}

/// Kernel-side view of a built ParticleHash (plain pointers into backend memory).
struct ParticleHashView {
  const uint32_t* cell_start = nullptr;  ///< (mask + 1) first sorted slot of each hash bucket
  const uint32_t* cell_end = nullptr;    ///< (mask + 1) one past the last slot; start == end: empty
  const uint32_t* sorted_id = nullptr;   ///< (n) particle id at each sorted slot
  const Vec3f* sorted_x = nullptr;       ///< (n) m, position of the particle at each sorted slot
  float cell = 1.f;                      ///< m, cell side
  float inv_cell = 1.f;                  ///< 1/m
  uint32_t mask = 0;                     ///< table size - 1
  int n = 0;

  /// Calls f(j, xj) for each particle j in cell c (a bucket may hold several cells:
  /// particles of other cells are filtered out).
  template <class F>
  CB_HD void for_each_in_cell(CellCoord c, F&& f) const {
    uint32_t h = cell_hash(c.x, c.y, c.z, mask);
    uint32_t end = cell_end[h];
    for (uint32_t s = cell_start[h]; s < end; ++s) {
      Vec3f xj = sorted_x[s];
      CellCoord cj = cell_of(xj, inv_cell);
      if (cj.x == c.x && cj.y == c.y && cj.z == c.z) f(sorted_id[s], xj);
    }
  }

  /// Calls f(j, xj) for every particle in the (2 reach + 1)^3 block of cells
  /// around p's cell (reach = 2 gives the thesis's 5x5x5 neighbourhood).
  template <class F>
  CB_HD void for_each_neighbor(Vec3f p, int reach, F&& f) const {
    if (n == 0) return;
    CellCoord c = cell_of(p, inv_cell);
    for (int dz = -reach; dz <= reach; ++dz)
      for (int dy = -reach; dy <= reach; ++dy)
        for (int dx = -reach; dx <= reach; ++dx) for_each_in_cell({c.x + dx, c.y + dy, c.z + dz}, f);
  }

  /// Calls f(j, xj) for every particle with |xj - p| < radius (m), p itself included
  /// when it is a particle. Fast path: each distinct hash bucket of the block is
  /// scanned once and only the distance is tested (a particle within the radius
  /// lies in the block, and its bucket is scanned exactly once).
  template <class F>
  CB_HD void for_each_within(Vec3f p, float radius, F&& f) const {
    if (n == 0) return;
    const int reach = int(std::ceil(radius * inv_cell));
    const float r2 = radius * radius;
    if (reach > 2) {  // large blocks: exact cell filtering instead of a seen-list
      for_each_neighbor(p, reach, [&](uint32_t j, Vec3f xj) {
        if (length2(xj - p) < r2) f(j, xj);
      });
      return;
    }
    uint32_t seen[125];
    int nseen = 0;
    const CellCoord c = cell_of(p, inv_cell);
    for (int dz = -reach; dz <= reach; ++dz)
      for (int dy = -reach; dy <= reach; ++dy)
        for (int dx = -reach; dx <= reach; ++dx) {
          const uint32_t h = cell_hash(c.x + dx, c.y + dy, c.z + dz, mask);
          bool dup = false;
          for (int k = 0; k < nseen && !dup; ++k) dup = seen[k] == h;
          if (dup) continue;
          seen[nseen++] = h;
          const uint32_t end = cell_end[h];
          for (uint32_t s = cell_start[h]; s < end; ++s) {
            const Vec3f xj = sorted_x[s];
            if (length2(xj - p) < r2) f(sorted_id[s], xj);
          }
        }
  }
};

/// The sorted hash grid. Rebuild it whenever positions change.
class ParticleHash {
 public:
  /// Sorts the n positions x (backend memory) into cells of side `cell` m.
  /// `table_load` = table entries per particle (rounded up to a power of two).
  /// CPU backend: a serial counting sort (O(n + table), stable); CUDA: radix sort.
  void build(const Context& ctx, const Vec3f* x, int n, float cell, float table_load = 1.f);
  /// The view for kernels (valid until the next build).
  ParticleHashView view() const;
  /// Number of non-empty hash buckets (about the number of occupied cells).
  size_t occupied_buckets(const Context& ctx) const;
  /// Backend bytes held (keys, ids, sorted positions, start/end tables).
  size_t device_bytes() const;
  int size() const { return n_; }
  uint32_t table_size() const { return uint32_t(start_.size()); }

 private:
  DeviceBuffer<uint32_t> key_;       ///< (n) bucket of each particle, then sorted
  DeviceBuffer<uint32_t> sorted_id_; ///< (n)
  DeviceBuffer<Vec3f> sorted_x_;     ///< (n)
  DeviceBuffer<uint32_t> start_;     ///< (table)
  DeviceBuffer<uint32_t> end_;       ///< (table)
  float cell_ = 1.f;
  int n_ = 0;
};

}  // namespace cb
