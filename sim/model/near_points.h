// Points within a small distance of each other, found through a hashed grid of
// that cell size (the 27 cells around a point): welding a mesh's duplicated seam
// vertices (io/obj.cpp) and reporting them (model/mesh_check.cpp).
#pragma once

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/math.h"

namespace cb {

class NearPoints {
 public:
  /// radius: m, > 0
  explicit NearPoints(float radius) : inv_(1.f / radius), r2_(radius * radius) {}

  /// The first added point within the radius of p (its id), or -1; `at` holds
  /// the added points' positions by id.
  int32_t find(const std::vector<Vec3f>& at, Vec3f p) const {
    const int64_t cx = cell(p.x), cy = cell(p.y), cz = cell(p.z);
    for (int64_t dx = -1; dx <= 1; ++dx)
      for (int64_t dy = -1; dy <= 1; ++dy)
        for (int64_t dz = -1; dz <= 1; ++dz) {
          auto range = grid_.equal_range(key(cx + dx, cy + dy, cz + dz));
          for (auto it = range.first; it != range.second; ++it)
            if (length2(at[it->second] - p) <= r2_) return int32_t(it->second);
        }
    return -1;
  }

  /// Adds point `id` at p.
  void add(Vec3f p, uint32_t id) { grid_.emplace(key(cell(p.x), cell(p.y), cell(p.z)), id); }

 private:
  int64_t cell(float v) const { return int64_t(std::floor(v * inv_)); }
  static uint64_t key(int64_t x, int64_t y, int64_t z) {
    return uint64_t((x * 73856093) ^ (y * 19349663) ^ (z * 83492791));
  }
  float inv_, r2_;
  std::unordered_multimap<uint64_t, uint32_t> grid_;
};

}  // namespace cb
