// The sorted hash grid's cell arithmetic: cell coordinates are the floor of
// position / cell, and the per-build claim that a block's bucket runs never
// share a bucket (which lets queries skip the pairwise test) holds for the
// blocks of real cells. (Query results are checked against brute force in
// tests/unit/solvers/verlet/sphere_contacts_test.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "sim/collision/particle_hash.h"
#include "sim/core/buffer.h"

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

// The slot-order traversal (the CPU path of the Verlet hash query) must make
// the calls for_each_within makes, in the same order, for every particle,
// whatever the chunking: on a large table (runs never share buckets) and on a
// 64-bucket one (shared and wrapping runs), for reach 1, 2, 3 and the exact path.
TEST(ParticleHashCells, SlotOrderQueriesMatchPerParticleQueries) {
  const Context ctx;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(0.f, 0.25f);
  std::vector<Vec3f> hx(1200);
  for (Vec3f& p : hx) p = Vec3f{u(rng), 0.3f * u(rng), u(rng)} + Vec3f{-3.f, 1.f, 0.5f};
  DeviceBuffer<Vec3f> x(ctx, hx);
  const int n = int(hx.size());
  for (float load : {4.f, 0.01f}) {
    for (int reach : {1, 2, 3, 4}) {
      const float radius = 0.02f, cell = radius / float(reach) * 1.001f;
      ParticleHash hash;
      hash.build(ctx, x.data(), n, cell, load);
      const ParticleHashView v = hash.view();
      // per particle: the ids visited, in order
      std::vector<std::vector<uint32_t>> want(hx.size()), got(hx.size());
      for (int i = 0; i < n; ++i)
        v.for_each_within(hx[size_t(i)], radius, [&](uint32_t j, Vec3f) { want[size_t(i)].push_back(j); });
      for (uint32_t s0 = 0; s0 < uint32_t(n); s0 += 7) {
        uint32_t cur = 0;
        v.for_each_within_slots(
            s0, std::min(uint32_t(n), s0 + 7), radius, [&](uint32_t i, Vec3f) { cur = i; },
            [&](uint32_t j, Vec3f) { got[cur].push_back(j); }, [&](uint32_t i) { EXPECT_EQ(i, cur); });
      }
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(got[size_t(i)], want[size_t(i)]) << "load " << load << ", reach " << reach << ", particle " << i;
    }
  }
}

// The half query (the CPU Verlet hash query) must visit every pair within the
// radius exactly once, from one of its two particles, whatever the chunking,
// on both table sizes and for reach 1, 2, 3 and the exact path.
TEST(ParticleHashCells, LaterSlotQueriesVisitEachPairOnce) {
  const Context ctx;
  std::mt19937 rng(23);
  std::uniform_real_distribution<float> u(0.f, 0.25f);
  std::vector<Vec3f> hx(1200);
  for (Vec3f& p : hx) p = Vec3f{u(rng), 0.3f * u(rng), u(rng)} + Vec3f{2.f, -1.f, 0.5f};
  DeviceBuffer<Vec3f> x(ctx, hx);
  const int n = int(hx.size());
  const float radius = 0.02f;
  std::set<std::pair<uint32_t, uint32_t>> want;
  for (uint32_t i = 0; i < uint32_t(n); ++i)
    for (uint32_t j = i + 1; j < uint32_t(n); ++j)
      if (length2(hx[j] - hx[i]) < radius * radius) want.insert({i, j});
  ASSERT_GT(want.size(), 500u);
  for (float load : {4.f, 0.01f}) {
    for (int reach : {1, 2, 3, 4}) {
      ParticleHash hash;
      hash.build(ctx, x.data(), n, radius / float(reach) * 1.001f, load);
      const ParticleHashView v = hash.view();
      std::set<std::pair<uint32_t, uint32_t>> got;
      size_t visits = 0;
      for (uint32_t s0 = 0; s0 < uint32_t(n); s0 += 7) {
        uint32_t cur = 0;
        v.for_each_later_within_slots(
            s0, std::min(uint32_t(n), s0 + 7), radius, [&](uint32_t i, Vec3f) { cur = i; },
            [&](uint32_t j, Vec3f) {
              ++visits;
              got.insert({std::min(cur, j), std::max(cur, j)});
            },
            [](uint32_t) {});
      }
      EXPECT_EQ(visits, want.size()) << "load " << load << ", reach " << reach;
      EXPECT_EQ(got, want) << "load " << load << ", reach " << reach;
    }
  }
}

}  // namespace
}  // namespace cb
