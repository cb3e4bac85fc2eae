// The sorted hash grid's cell arithmetic: cell coordinates are the floor of
// position / cell, and the per-build claim that a block's bucket runs never
// share a bucket (which lets queries skip the pairwise test) holds for the
// blocks of real cells. (Query results are checked against brute force in
// tests/unit/solvers/verlet/sphere_contacts_test.cpp.)
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/collision/particle_hash.h"

namespace cb {
namespace {

TEST(ParticleHashCells, CellAxisIsTheClampedFloor) {
  const float inv_cell = 1.f / 0.0125f;
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-30.f, 30.f);
  for (int k = 0; k < 100000; ++k) {
    const float p = u(rng);
    ASSERT_EQ(cell_axis(p, inv_cell), int32_t(std::floor(p * inv_cell))) << "p = " << p;
  }
  // exact cell boundaries, either sign, and zero
  for (int c : {-3, -1, 0, 1, 7}) EXPECT_EQ(cell_axis(float(c), 1.f), c);
  EXPECT_EQ(cell_axis(-0.f, 1.f), 0);
  EXPECT_EQ(cell_axis(-1e-7f, 1.f), -1);
  // far away: clamped, no overflow
  EXPECT_EQ(cell_axis(1e30f, 1.f), 1 << 30);
  EXPECT_EQ(cell_axis(-1e30f, 1.f), -(1 << 30));
}

// Bucket runs [b, b + len) of the (2 reach + 1)^2 rows around a cell.
std::vector<uint32_t> row_starts(CellCoord c, int reach, uint32_t mask) {
  std::vector<uint32_t> b;
  for (int dz = -reach; dz <= reach; ++dz)
    for (int dy = -reach; dy <= reach; ++dy) b.push_back(cell_hash(c.x - reach, c.y + dy, c.z + dz, mask));
  return b;
}

// true when [a, a + len) and [b, b + len) share a bucket modulo the table size
bool runs_share(uint32_t a, uint32_t b, uint32_t len, uint32_t table) {
  const uint32_t d = (a - b) & (table - 1);
  return d < len || d > table - len;
}

TEST(ParticleHashCells, RowsNeverShareIsTrueForRealBlocks) {
  std::mt19937 rng(9);
  std::uniform_int_distribution<int32_t> u(-100000, 100000);
  for (uint32_t log2 = 11; log2 <= 24; ++log2) {
    const uint32_t table = 1u << log2, mask = table - 1;
    for (int reach = 0; reach <= ParticleHashView::kMaxRunReach; ++reach) {
      ASSERT_TRUE(rows_never_share(mask, reach)) << "table 2^" << log2 << ", reach " << reach;
      const uint32_t len = uint32_t(2 * reach + 1);
      for (int trial = 0; trial < 50; ++trial) {
        const std::vector<uint32_t> b = row_starts({u(rng), u(rng), u(rng)}, reach, mask);
        for (size_t i = 0; i < b.size(); ++i)
          for (size_t j = 0; j < i; ++j)
            ASSERT_FALSE(runs_share(b[i], b[j], len, table)) << "table 2^" << log2 << ", reach " << reach;
      }
    }
  }
}

TEST(ParticleHashCells, RowsNeverShareIsFalseWhereTwoRowsCanMeet) {
  // a 64-bucket table is too small for 5 x 5 rows of 5 buckets: the claim must
  // be refused, and a block where two runs really share a bucket must exist
  const uint32_t mask = 63;
  EXPECT_FALSE(rows_never_share(mask, 2));
  bool found = false;
  for (int32_t y = 0; y < 64 && !found; ++y) {
    const std::vector<uint32_t> b = row_starts({0, y, 0}, 2, mask);
    for (size_t i = 0; i < b.size() && !found; ++i)
      for (size_t j = 0; j < i && !found; ++j) found = runs_share(b[i], b[j], 5, 64);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace cb
