// The thesis's dense sphere grid (Zheng 2021, Sec. 4.2): a regular grid over the
// cloth's bounding box with cells of side 2r/sqrt(3), so that a cell's diagonal
// is one sphere diameter and two non-overlapping centres never share a cell;
// each cell stores one sphere. Queries scan the 5x5x5 block of cells around a
// centre (2r < 2 cells).
//
// Differences from the thesis, both reported in the stats:
//  - the box follows the cloth (recomputed at each build, grown with slack) rather
//    than being a fixed volume, and its memory (4 bytes per cell) is reported;
//  - when two centres land in one cell the lower vertex id keeps the cell (atomic
//    max of ~id, deterministic on both backends); the others are "lost" from the
//    grid. The thesis drops them; here they go to an overflow list that every
//    query also scans, so contacts stay complete, and the count is reported.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sim/core/buffer.h"
#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb {

/// Kernel-side view of a built DenseSphereGrid.
struct DenseGridView {
  const uint32_t* cells = nullptr;     ///< (nx ny nz) ~id of the sphere in the cell, 0 = empty
  const uint32_t* overflow = nullptr;  ///< (n_overflow) ids of centres that found their cell taken
  const Vec3f* x = nullptr;            ///< (n) m, positions the grid was built from
  Vec3f origin;                        ///< m, corner of cell (0, 0, 0)
  float inv_cell = 1.f;                ///< 1/m
  int nx = 0, ny = 0, nz = 0;
  int n_overflow = 0;

  CB_HD int axis(float p, float o) const { return int(std::floor((p - o) * inv_cell)); }

  /// Calls f(j, xj) for the sphere of every occupied cell in the (2 reach + 1)^3
  /// block around p's cell, then for every overflow sphere.
  template <class F>
  CB_HD void for_each_neighbor(Vec3f p, int reach, F&& f) const {
    const int cx = axis(p.x, origin.x), cy = axis(p.y, origin.y), cz = axis(p.z, origin.z);
    for (int z = cz - reach; z <= cz + reach; ++z) {
      if (z < 0 || z >= nz) continue;
      for (int y = cy - reach; y <= cy + reach; ++y) {
        if (y < 0 || y >= ny) continue;
        for (int xx = cx - reach; xx <= cx + reach; ++xx) {
          if (xx < 0 || xx >= nx) continue;
          uint32_t s = cells[(size_t(z) * size_t(ny) + size_t(y)) * size_t(nx) + size_t(xx)];
          if (s != 0u) f(~s, x[~s]);
        }
      }
    }
    for (int k = 0; k < n_overflow; ++k) f(overflow[k], x[overflow[k]]);
  }
};

class DenseSphereGrid {
 public:
  /// Inserts the n centres x (backend memory) into cells of side `cell` m over
  /// their bounding box. Returns false (grid unusable) when the box would need
  /// more than max_cells cells.
  bool build(const Context& ctx, const Vec3f* x, int n, float cell, size_t max_cells);
  DenseGridView view() const { return view_; }
  /// Centres that found their cell taken at the last build.
  int lost() const { return view_.n_overflow; }
  /// Cells of the current box (nx ny nz) and bytes allocated for cells.
  size_t cells_in_box() const { return size_t(view_.nx) * view_.ny * view_.nz; }
  size_t device_bytes() const { return cells_.bytes() + slot_.bytes() + flag_.bytes() + overflow_.bytes(); }

 private:
  DeviceBuffer<uint32_t> cells_;     ///< (capacity) ~id or 0
  DeviceBuffer<uint32_t> slot_;      ///< (n) cell index of each centre at the last build
  DeviceBuffer<uint32_t> flag_;      ///< (n) 1 = lost
  DeviceBuffer<uint32_t> overflow_;  ///< (n) ids of lost centres
  DenseGridView view_;
  bool slots_valid_ = false;
};

/// Bounding box of n positions (backend memory); empty for n = 0.
Aabb bounding_box(const Context& ctx, const Vec3f* x, int n);

}  // namespace cb
