// The neighbours of an impact zone follow it where its solution stretched them
// (zone_followers.h): the rule on a hand-built strip, ring by ring (the rings of
// neighbours are Topology::ring1, tested in topology_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/model/topology.h"
#include "sim/solvers/icloth/zone_followers.h"

namespace cb::icloth {
namespace {

// a strip of 2 x n vertices along x, 1 cm apart: vertex i at (i / 2 cm, 0, (i % 2) cm)
struct Strip {
  std::vector<Vec3f> x;
  std::vector<Int3> tris;
  explicit Strip(int n) {
    for (int i = 0; i < 2 * n; ++i) x.push_back(Vec3f{0.01f * float(i / 2), 0.f, 0.01f * float(i % 2)});
    for (int c = 0; c + 1 < n; ++c) {
      const int a = 2 * c;
      tris.push_back({a, a + 2, a + 1});
      tris.push_back({a + 1, a + 2, a + 3});
    }
  }
};

float edge_strain(const std::vector<Vec3f>& x, const std::vector<Vec3f>& ref, int a, int b) {
  return length(x[size_t(a)] - x[size_t(b)]) / length(ref[size_t(a)] - ref[size_t(b)]) - 1.f;
}

// The zone (vertices 0 and 1, one end of a 10-column strip) was pushed 3 cm down
// while the rest stayed at its free end positions: the edges from the zone are
// stretched 3.16 times their length. With a limit of 0.3 the next column follows
// until those edges are about 1.3 times as long, the column after it follows
// that one, and so on while an edge is stretched beyond the limit; then the rest
// stays.
TEST(ZoneFollowers, TheRimFollowsRingByRingUntilNoEdgeIsStretchedBeyondTheLimit) {
  const Strip s(10);
  const std::vector<Vec3f> x_free = s.x;
  const std::vector<float> w(s.x.size(), 1.f);
  std::vector<Vec3f> x1 = x_free;
  x1[0].y = x1[1].y = -0.03f;
  const std::vector<int> moved = follow_zones({{0, 1}}, build_topology(s.x.size(), s.tris).ring1, x_free, w, 0.3f, x1);
  ASSERT_FALSE(moved.empty());
  EXPECT_EQ(x1[0].y, -0.03f) << "a zone's own vertices keep the zone's solution";
  // along the strip no edge is left near the zone's 2.16: each ring's sweeps
  // bring its edges to the limit, within a hundredth
  for (int c = 0; c + 1 < 10; ++c) EXPECT_LE(edge_strain(x1, x_free, 2 * c, 2 * c + 2), 0.31f) << "column " << c;
  EXPECT_LT(x1[2].y, -0.01f) << "the first column followed the zone down";
  EXPECT_GT(x1[2].y, x1[0].y);
  EXPECT_EQ(x1[19].y, 0.f) << "the far end is not stretched and stays";
  std::vector<int> sorted = moved;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end()) << "each follower moves once";
}

TEST(ZoneFollowers, APinnedNeighbourAndAnEdgeWithinTheLimitStay) {
  const Strip s(4);
  const std::vector<Vec3f> x_free = s.x;
  std::vector<float> w(s.x.size(), 1.f);
  w[2] = 0.f;  // pinned
  std::vector<Vec3f> x1 = x_free;
  x1[0].y = -0.03f;  // vertex 0's edges to 1 and 2 stretched; 1 is free
  const std::vector<int> moved = follow_zones({{0}}, build_topology(s.x.size(), s.tris).ring1, x_free, w, 0.3f, x1);
  EXPECT_EQ(x1[2].y, 0.f) << "pinned";
  EXPECT_LT(x1[1].y, 0.f) << "free and stretched: follows";
  // a zone that moved within the limit moves nobody
  std::vector<Vec3f> x2 = x_free;
  x2[0].y = -0.005f;  // edge 0-1: 1.118 times
  EXPECT_TRUE(follow_zones({{0}}, build_topology(s.x.size(), s.tris).ring1, x_free, w, 0.3f, x2).empty());
  EXPECT_EQ(x2, [&] { std::vector<Vec3f> y = x_free; y[0].y = -0.005f; return y; }());
}

}  // namespace
}  // namespace cb::icloth
