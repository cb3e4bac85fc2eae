// Pushing tangled triangle pairs apart (untangle.h): hand-built pokes of a
// vertex through a triangle and of an obstacle's tip through the cloth, the
// two crossings the dress left behind (RESULTS.md, seventeenth session).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/collision/tri_tri.h"
#include "sim/solvers/icloth/untangle.h"

namespace cb::icloth {
namespace {

constexpr float kThick = 0.001f;  // m

struct Soup {
  std::vector<Vec3f> x;       // cloth vertices
  std::vector<Vec3f> obs;     // obstacle vertices (soup ids after the cloth's)
  std::vector<Int3> tris;     // soup triangles
  std::vector<float> inv_mass, thickness;

  UntangleStats push(const std::vector<Int2>& pairs) {
    inv_mass.resize(x.size(), 1.f);
    thickness.assign(x.size(), kThick);
    const TangleSoup s{&tris, x.size(), &obs, &inv_mass, &thickness};
    return push_tangles_apart(pairs, s, x);
  }
  Vec3f at(int v) const { return size_t(v) < x.size() ? x[size_t(v)] : obs[size_t(v) - x.size()]; }
  bool crossing(int a, int b) const {
    const Int3 p = tris[size_t(a)], q = tris[size_t(b)];
    const Vec3f P[3] = {at(p.a), at(p.b), at(p.c)}, Q[3] = {at(q.a), at(q.b), at(q.c)};
    return triangles_intersect(P, Q);
  }
};

// a flat triangle in y = 0 around the origin, vertices 0-2
void add_flat_triangle(Soup& s) {
  s.x = {{-0.05f, 0.f, -0.05f}, {0.05f, 0.f, -0.05f}, {0.f, 0.f, 0.06f}};
  s.tris = {{0, 1, 2}};
}

// the flat triangle and a cloth triangle (vertices 3-5) whose vertex 3 lies at
// height tip_y (m) above the origin and its other two at base_y
Soup flat_and_poking(float tip_y, float base_y) {
  Soup s;
  add_flat_triangle(s);
  s.x.push_back({0.f, tip_y, 0.f});
  s.x.push_back({-0.02f, base_y, 0.03f});
  s.x.push_back({0.02f, base_y, 0.03f});
  s.tris.push_back({3, 4, 5});
  return s;
}

// the flat triangle and a steep obstacle triangle (soup ids 3-5) in x = 0
// whose tip reaches 1.8 mm above the flat one
Soup flat_and_obstacle_tip() {
  Soup s;
  add_flat_triangle(s);
  s.obs = {{0.f, 0.0018f, 0.f}, {0.f, -0.02f, -0.02f}, {0.f, -0.02f, 0.02f}};
  s.tris.push_back({3, 4, 5});
  return s;
}

// Vertex 3 pokes 1.1 mm up through the flat triangle; its two neighbours lie
// 10 mm below. The cheapest push sends vertex 3 back down, to a thickness
// below the plane; nothing else moves.
TEST(Untangle, AVertexPokedThroughATriangleGoesBack) {
  Soup s = flat_and_poking(0.0011f, -0.01f);
  ASSERT_TRUE(s.crossing(0, 1));
  const std::vector<Vec3f> before = s.x;
  const UntangleStats st = s.push({{0, 1}});
  EXPECT_EQ(st.pushed, 1u);
  EXPECT_EQ(st.left, 0u);
  EXPECT_FALSE(s.crossing(0, 1));
  EXPECT_NEAR(s.x[3].y, -kThick, 1e-6f) << "depth 1.1 mm plus the thickness";
  EXPECT_FLOAT_EQ(s.x[3].x, 0.f);
  for (int v : {0, 1, 2, 4, 5}) EXPECT_EQ(length(s.x[size_t(v)] - before[size_t(v)]), 0.f) << v;
}

// The same poke with vertex 3 pinned: the flat triangle moves instead, all
// three vertices up past it.
TEST(Untangle, APinnedVertexMakesTheOtherTriangleMove) {
  Soup s = flat_and_poking(0.0011f, -0.01f);
  s.inv_mass = {1.f, 1.f, 1.f, 0.f, 1.f, 1.f};
  EXPECT_EQ(s.push({{0, 1}}).left, 0u);
  EXPECT_FLOAT_EQ(s.x[3].y, 0.0011f) << "pinned";
  for (int v : {0, 1, 2}) EXPECT_NEAR(s.x[size_t(v)].y, 0.0021f, 1e-6f) << v;
}

// A steep obstacle triangle whose tip reaches 1.8 mm above the cloth (the
// mannequin through the skirt): the cloth's own lone vertex lies 50 mm from the
// obstacle's plane, so the cloth triangle moves up past the tip instead.
TEST(Untangle, AnObstacleTipThroughTheClothMovesTheClothPastIt) {
  Soup s = flat_and_obstacle_tip();
  ASSERT_TRUE(s.crossing(0, 1));
  const UntangleStats st = s.push({{0, 1}});
  EXPECT_EQ(st.pushed, 1u);
  EXPECT_EQ(st.left, 0u);
  for (int v : {0, 1, 2}) EXPECT_NEAR(s.x[size_t(v)].y, 0.0028f, 1e-6f) << v;
  EXPECT_FLOAT_EQ(s.obs[0].y, 0.0018f) << "obstacles do not move";
}

// A pair listed as tangled at the step's start that no longer crosses at its
// end is left as it is; so is one that no push can part (an obstacle against
// a pinned triangle).
TEST(Untangle, PairsThatNoLongerCrossOrCannotMoveAreLeftAlone) {
  Soup s = flat_and_poking(0.01f, 0.02f);  // wholly above
  const std::vector<Vec3f> before = s.x;
  EXPECT_EQ(s.push({{0, 1}}).pushed, 0u);
  for (size_t v = 0; v < before.size(); ++v) EXPECT_EQ(length(s.x[v] - before[v]), 0.f);

  Soup pinned = flat_and_obstacle_tip();
  pinned.inv_mass = {0.f, 0.f, 0.f};
  const UntangleStats st = pinned.push({{0, 1}});
  EXPECT_EQ(st.pushed, 0u);
  EXPECT_EQ(st.left, 1u);
}

// A vertex 4 mm (4 thicknesses) through: no poke a step leaves behind, and a
// push that far would drag its neighbours along; it is left as it is.
TEST(Untangle, ACrossingDeeperThanAFewThicknessesIsLeftAlone) {
  Soup s = flat_and_poking(0.004f, -0.01f);
  const UntangleStats st = s.push({{0, 1}});
  EXPECT_EQ(st.pushed, 0u);
  EXPECT_EQ(st.left, 1u);
}

// A fan poked through a triangle crosses it in three pairs that share the
// poking vertex: the first push parts all three.
TEST(Untangle, OnePushPartsEveryPairOfAPokedFan) {
  Soup s;
  add_flat_triangle(s);
  s.x.push_back({0.f, 0.0011f, 0.f});  // 3: the tip
  const float r = 0.02f;
  for (int k = 0; k < 3; ++k) {
    const float a = 2.0944f * float(k);
    s.x.push_back({r * std::cos(a), -0.008f, r * std::sin(a)});
  }
  for (int k = 0; k < 3; ++k) s.tris.push_back({3, 4 + k, 4 + (k + 1) % 3});
  for (int t = 1; t <= 3; ++t) ASSERT_TRUE(s.crossing(0, t)) << t;
  const UntangleStats st = s.push({{0, 1}, {0, 2}, {0, 3}});
  EXPECT_EQ(st.pushed, 1u);
  EXPECT_EQ(st.left, 0u);
}

}  // namespace
}  // namespace cb::icloth
