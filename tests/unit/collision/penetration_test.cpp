// Broad phase (box pairs by sorted cell keys) and the penetration counter against
// brute force: random boxes, a clean grid, a hand-made crossing pair, a sheet
// folded through itself, and cloth against an obstacle; every backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "sim/collision/box_pairs.h"
#include "sim/collision/penetration.h"
#include "sim/collision/tri_tri.h"
#include "sim/core/buffer.h"
#include "sim/model/grid.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::set<std::pair<int, int>> to_set(const std::vector<Int2>& v) {
  std::set<std::pair<int, int>> s;
  for (const Int2& p : v) {
    EXPECT_LT(p.a, p.b);
    EXPECT_TRUE(s.insert({p.a, p.b}).second) << "duplicate pair " << p.a << "," << p.b;
  }
  return s;
}

TriMesh grid(int nx, int ny, float spacing) {
  GridSpec s;
  s.nx = nx;
  s.ny = ny;
  s.width = spacing * float(nx - 1);
  s.height = spacing * float(ny - 1);
  return make_grid(s);
}

std::vector<Aabb> random_boxes(int n, float size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1, 1), e(0, 1);
  std::vector<Aabb> b(static_cast<size_t>(n));
  for (auto& x : b) {
    Vec3f c(u(rng), u(rng), u(rng));
    // mixed sizes: most small, a few long ones
    float s = size * (e(rng) < 0.05f ? 8.f : 1.f);
    x.lo = c - Vec3f(e(rng), e(rng), e(rng)) * s;
    x.hi = c + Vec3f(e(rng), e(rng), e(rng)) * s;
  }
  return b;
}

TEST(BoxPairs, MatchBruteForceOnRandomBoxes) {
  for (const Context& ctx : test::backends()) {
    for (float cell : {0.f, 0.01f, 0.5f}) {
      auto boxes = random_boxes(3000, 0.03f, 1);
      DeviceBuffer<Aabb> d(ctx, boxes);
      DeviceBuffer<Int2> out;
      find_overlapping_pairs(ctx, d.data(), int(boxes.size()), cell, out);
      auto got = to_set(out.to_host());
      std::set<std::pair<int, int>> ref;
      for (int i = 0; i < int(boxes.size()); ++i)
        for (int j = i + 1; j < int(boxes.size()); ++j)
          if (overlaps(boxes[size_t(i)], boxes[size_t(j)])) ref.insert({i, j});
      EXPECT_GT(ref.size(), 1000u);
      EXPECT_EQ(got, ref) << "cell " << cell;
    }
  }
}

// brute-force count of intersecting non-adjacent pairs of one triangle set
size_t brute_self(const std::vector<Vec3f>& x, const std::vector<Int3>& t) {
  size_t n = 0;
  for (size_t i = 0; i < t.size(); ++i)
    for (size_t j = i + 1; j < t.size(); ++j) {
      Int3 a = t[i], b = t[j];
      bool adj = a.a == b.a || a.a == b.b || a.a == b.c || a.b == b.a || a.b == b.b || a.b == b.c || a.c == b.a ||
                 a.c == b.b || a.c == b.c;
      if (adj) continue;
      Vec3f P[3] = {x[size_t(a.a)], x[size_t(a.b)], x[size_t(a.c)]};
      Vec3f Q[3] = {x[size_t(b.a)], x[size_t(b.b)], x[size_t(b.c)]};
      n += triangles_intersect(P, Q);
    }
  return n;
}

IntersectionCounts count_host(const Context& ctx, const std::vector<Vec3f>& x, const std::vector<Int3>& t,
                              const std::vector<uint32_t>* group = nullptr, const std::vector<Vec3f>* ox = nullptr,
                              const std::vector<Int3>* ot = nullptr) {
  DeviceBuffer<Vec3f> dx(ctx, x), dox(ctx, ox ? *ox : std::vector<Vec3f>{});
  DeviceBuffer<Int3> dt(ctx, t), dot_(ctx, ot ? *ot : std::vector<Int3>{});
  DeviceBuffer<uint32_t> dg(ctx, group ? *group : std::vector<uint32_t>{});
  TriSet c{dx.data(), dt.data(), int(t.size()), group ? dg.data() : nullptr};
  TriSet o{dox.data(), dot_.data(), ot ? int(ot->size()) : 0, nullptr};
  return count_intersections(ctx, c, o);
}

TEST(Penetration, CleanGridHasNone) {
  TriMesh g = grid(40, 30, 0.02f);
  for (const Context& ctx : test::backends()) {
    IntersectionCounts c = count_host(ctx, g.positions, g.tris);
    EXPECT_EQ(c.total(), 0u);
    EXPECT_GT(c.candidates, 0u);  // neighbours beyond the one-ring were tested
  }
}

TEST(Penetration, HandMadeCrossingPair) {
  std::vector<Vec3f> x = {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0),
                          Vec3f(0.2f, 0.2f, -1), Vec3f(0.2f, 0.2f, 1), Vec3f(0.3f, 0.3f, 1)};
  std::vector<Int3> t = {Int3{0, 1, 2}, Int3{3, 4, 5}};
  std::vector<uint32_t> one = {0, 0}, two = {0, 1};
  for (const Context& ctx : test::backends()) {
    EXPECT_EQ(count_host(ctx, x, t, &one).within_cloth, 1u);
    IntersectionCounts c = count_host(ctx, x, t, &two);
    EXPECT_EQ(c.between_cloths, 1u);
    EXPECT_EQ(c.within_cloth, 0u);
    // the same second triangle as an obstacle
    std::vector<Vec3f> ox = {x[3], x[4], x[5]};
    std::vector<Int3> ot = {Int3{0, 1, 2}};
    std::vector<Vec3f> cx = {x[0], x[1], x[2]};
    std::vector<Int3> ct = {Int3{0, 1, 2}};
    EXPECT_EQ(count_host(ctx, cx, ct, nullptr, &ox, &ot).cloth_obstacle, 1u);
  }
}

TEST(Penetration, FoldedSheetMatchesBruteForce) {
  // a grid folded like a Z, its middle panel pushed through the others
  TriMesh g = grid(24, 24, 0.05f);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> n(-0.004f, 0.004f);
  for (Vec3f& p : g.positions) {
    float s = p.x;
    p = Vec3f(std::sin(s * 9.f) * 0.3f, p.y, std::cos(s * 4.f) * 0.2f + p.z * 0.2f);
    p += Vec3f(n(rng), n(rng), n(rng));
  }
  size_t ref = brute_self(g.positions, g.tris);
  ASSERT_GT(ref, 20u);
  for (const Context& ctx : test::backends()) EXPECT_EQ(count_host(ctx, g.positions, g.tris).within_cloth, ref);
}

// A small bumpy sheet pushed partly through a large floor (the obstacle has far
// more triangles than the cloth, so the floor triangles away from the sheet stay
// out of the hash): cloth-obstacle intersections equal brute force.
TEST(Penetration, SmallClothThroughALargeObstacleMatchesBruteForce) {
  TriMesh cloth = grid(8, 8, 0.02f), floor = grid(50, 50, 0.04f);
  for (Vec3f& p : cloth.positions) p = Vec3f(p.x + 0.5f, 0.01f * std::sin(40.f * p.x + 25.f * p.y), p.y + 0.6f);
  for (Vec3f& p : floor.positions) p = Vec3f(p.x, 0.f, p.y);
  ASSERT_GT(floor.tris.size(), 2 * cloth.tris.size());
  size_t ref = 0;
  for (const Int3& a : cloth.tris)
    for (const Int3& b : floor.tris) {
      Vec3f P[3] = {cloth.positions[size_t(a.a)], cloth.positions[size_t(a.b)], cloth.positions[size_t(a.c)]};
      Vec3f Q[3] = {floor.positions[size_t(b.a)], floor.positions[size_t(b.b)], floor.positions[size_t(b.c)]};
      ref += triangles_intersect(P, Q);
    }
  ASSERT_GT(ref, 10u);
  for (const Context& ctx : test::backends()) {
    IntersectionCounts c = count_host(ctx, cloth.positions, cloth.tris, nullptr, &floor.positions, &floor.tris);
    EXPECT_EQ(c.cloth_obstacle, ref);
    EXPECT_EQ(c.within_cloth, brute_self(cloth.positions, cloth.tris));
  }
}

TEST(Penetration, ComponentsLabelPieces) {
  std::vector<Int3> t = {Int3{0, 1, 2}, Int3{2, 3, 0}, Int3{4, 5, 6}};
  auto c = triangle_components(7, t);
  EXPECT_EQ(c[0], c[1]);
  EXPECT_NE(c[0], c[2]);
}

}  // namespace
}  // namespace cb
