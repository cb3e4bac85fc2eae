// The strain limit's rows: springs, and long constraints that never constrain a
// shape the springs allow (strain_rows.h).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <utility>

#include "sim/model/cloth_model.h"
#include "sim/model/grid.h"
#include "sim/solvers/verlet/springs.h"
#include "sim/solvers/verlet/strain_rows.h"

namespace cb {
namespace {

ClothModel quad_grid(int nx, int ny, float size) {
  GridSpec g;
  g.nx = nx, g.ny = ny, g.width = size, g.height = size;
  ClothInput in;
  in.mesh = make_grid(g);
  in.grid = {GridLayout::Quad, nx, ny, grid_spacing(g)};
  return build_cloth_model({in});
}

// (row, other vertex) -> rest of the long constraints (entries beyond the springs).
std::map<std::pair<uint32_t, uint32_t>, float> long_entries(const SpringLists& s, const StrainRows& r) {
  std::map<std::pair<uint32_t, uint32_t>, float> out;
  for (uint32_t i = 0; i + 1 < r.offsets.size(); ++i) {
    uint32_t springs = 0;
    for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) springs += s.kind[e] != kBend ? 1u : 0u;
    for (uint32_t e = r.offsets[i] + springs; e < r.offsets[i + 1]; ++e) out[{i, r.nbr[e]}] = r.rest[e];
  }
  return out;
}

TEST(VerletStrainRows, WithoutReachTheRowsAreTheStructuralAndShearSprings) {
  const ClothModel m = quad_grid(12, 12, 1.f);
  const SpringLists s = build_springs(m);
  const StrainRows r = build_strain_rows(s, m.rest, mean_structural_length(s), 0);
  EXPECT_EQ(r.num_long, 0u);
  const uint32_t interior = 5 * 12 + 5;
  EXPECT_EQ(r.offsets[interior + 1] - r.offsets[interior], 8u);  // 4 structural + 4 shear
  EXPECT_EQ(r.nbr.size(), r.rest.size());
}

TEST(VerletStrainRows, LongConstraintsSpanTheReachBothWaysAndHoldTheRestShape) {
  const int reach = 8;
  const ClothModel m = quad_grid(40, 40, 1.f);
  const SpringLists s = build_springs(m);
  const float L = mean_structural_length(s);
  const StrainRows r = build_strain_rows(s, m.rest, L, reach);
  const auto entries = long_entries(s, r);
  ASSERT_FALSE(entries.empty());
  EXPECT_EQ(entries.size(), r.num_long);
  for (const auto& [key, path] : entries) {
    const auto [i, j] = key;
    // listed in both rows with the same path length
    auto back = entries.find({j, i});
    ASSERT_NE(back, entries.end()) << i << " -> " << j;
    EXPECT_NEAR(back->second, path, 1e-5f);
    // the path spans the reach: at least 3/4 of it, at most one spring beyond
    EXPECT_GE(path, 0.75f * reach * L - 1e-5f);
    EXPECT_LE(path, reach * L + 1.5f * L);
    // the rest shape satisfies it: a path is never shorter than the straight line
    EXPECT_GE(path, length(m.rest[i] - m.rest[j]) - 1e-5f);
  }
  // an interior vertex's constraints point every way: each axis direction of
  // the sheet has one within 60 degrees
  const uint32_t c = 20 * 40 + 20;
  for (const Vec3f axis : {Vec3f{1, 0, 0}, Vec3f{-1, 0, 0}, Vec3f{0, 1, 0}, Vec3f{0, -1, 0}}) {
    bool covered = false;
    for (const auto& [key, path] : entries)
      if (key.first == c) covered = covered || dot(normalize(m.rest[key.second] - m.rest[c]), axis) > 0.5f;
    EXPECT_TRUE(covered) << axis.x << " " << axis.y;
  }
}

TEST(VerletStrainRows, AFoldedClothSatisfiesEveryLongConstraint) {
  // folded in half along x = 0 (the sheet spans [-0.5, 0.5]; the springs keep
  // their lengths): the long constraints must not pull the halves apart
  const ClothModel m = quad_grid(30, 30, 1.f);
  const SpringLists s = build_springs(m);
  const StrainRows r = build_strain_rows(s, m.rest, mean_structural_length(s), 8);
  std::vector<Vec3f> folded = m.rest;
  for (Vec3f& p : folded)
    if (p.x > 0.f) p = Vec3f{-p.x, p.y, 0.001f};
  int crossing = 0;
  for (const auto& [key, path] : long_entries(s, r)) {
    const auto [i, j] = key;
    if ((m.rest[i].x > 0.f) != (m.rest[j].x > 0.f)) crossing++;
    EXPECT_LE(length(folded[i] - folded[j]), path * 1.0001f);
  }
  EXPECT_GT(crossing, 0);  // some constraints span the fold
}

}  // namespace
}  // namespace cb
