// Exact predicates and the triangle–triangle test: hand cases (touching,
// coplanar, degenerate) and random integer-grid triangles (many degeneracies)
// against an independent distance-based reference.
#include <gtest/gtest.h>

#include <random>

#include "sim/collision/predicates.h"
#include "sim/collision/proximity.h"
#include "sim/collision/tri_tri.h"

namespace cb {
namespace {

bool tt(Vec3f a, Vec3f b, Vec3f c, Vec3f d, Vec3f e, Vec3f f) {
  Vec3f p[3] = {a, b, c}, q[3] = {d, e, f};
  bool r = triangles_intersect(p, q);
  bool s = triangles_intersect(q, p);
  EXPECT_EQ(r, s) << "the test must be symmetric";
  return r;
}

TEST(Predicates, OrientationSignsAndNearDegenerateExactness) {
  Vec3f a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_EQ(orient3d(a, b, c, Vec3f(0, 0, -1)), 1);  // below the counter-clockwise plane
  EXPECT_EQ(orient3d(a, b, c, Vec3f(0, 0, 1)), -1);
  EXPECT_EQ(orient3d(a, b, c, Vec3f(0.3f, 0.7f, 0)), 0);
  EXPECT_EQ(orient2d(0, 0, 1, 0, 0, 1), 1);
  // points on a line x = y = z with float coordinates: exactly coplanar with any
  // two other collinear-line points (the filter fails, the exact stage answers 0)
  float t = 0.1f, u = 1e7f + 1.f;
  EXPECT_EQ(orient3d(Vec3f(t, t, t), Vec3f(u, u, u), Vec3f(3.f, 3.f, 3.f), Vec3f(0.7f, 1.1f, 2.3f)), 0);
  // a point one float-ulp off a large plane z = 1e6: the sign is still exact
  float z = 1e6f, z_up = std::nextafter(z, 2e6f);
  Vec3f A(-1e6f, -1e6f, z), B(1e6f, -1e6f, z), C(0, 1e6f, z);
  EXPECT_EQ(orient3d(A, B, C, Vec3f(0.123f, 0.456f, z_up)), -1);
  EXPECT_EQ(orient3d(A, B, C, Vec3f(0.123f, 0.456f, z)), 0);
  // 2D: nearly collinear points decided exactly
  EXPECT_EQ(orient2d(0.1f, 0.1f, 0.3f, 0.3f, 0.7f, 0.7f), 0);
  EXPECT_EQ(orient2d(0.1f, 0.1f, 0.3f, 0.3f, 0.7f, std::nextafter(0.7f, 1.f)), 1);
}

// orient3d answers some exact zeros without the exact expansion: when two columns
// of [a - d; b - d; c - d] are dependent (pred_detail::two_columns_dependent). Four
// points on two rows of a flat grid tilted about x are such a case; one ulp off a
// row, they are not. Random rows, some nudged: every shortcut answer must be the
// exact stage's 0, and orient3d must always agree with the exact stage.
TEST(Predicates, ZerosFoundWithoutTheExpansionAreExact) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  int shortcut = 0, nudged_nonzero = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const float c30 = 0.8660254f, s30 = 0.5f;
    const float v0 = u(rng), v1 = u(rng);  // the two rows' grid coordinate
    const Vec3f r0(0.f, c30 * v0, s30 * v0 + 0.3f), r1(0.f, c30 * v1, s30 * v1 + 0.3f);
    Vec3f p[4] = {r0 + Vec3f(u(rng), 0, 0), r0 + Vec3f(u(rng), 0, 0), r1 + Vec3f(u(rng), 0, 0),
                  r1 + Vec3f(u(rng), 0, 0)};
    const bool nudge = trial % 2 == 1;
    if (nudge) p[trial % 4].z = std::nextafter(p[trial % 4].z, 2.f);
    const int exact = pred_detail::orient3d_exact(p[0], p[1], p[2], p[3]);
    const bool dependent = pred_detail::two_columns_dependent(p[0], p[1], p[2], p[3]);
    if (dependent) {
      ++shortcut;
      ASSERT_EQ(exact, 0) << "trial " << trial;
    }
    if (nudge && exact != 0) ++nudged_nonzero;
    ASSERT_EQ(orient3d(p[0], p[1], p[2], p[3]), exact) << "trial " << trial;
  }
  EXPECT_GE(shortcut, 10000) << "every un-nudged trial is two rows";
  EXPECT_GT(nudged_nonzero, 5000) << "a nudge off a row must leave the plane";
}

TEST(TriTri, HandCases) {
  Vec3f a(0, 0, 0), b(1, 0, 0), c(0, 1, 0);
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.2f, 0.2f, -1), Vec3f(0.2f, 0.2f, 1), Vec3f(0.3f, 0.3f, 1)));  // pierces
  EXPECT_FALSE(tt(a, b, c, Vec3f(0.2f, 0.2f, 0.1f), Vec3f(0.2f, 0.2f, 1), Vec3f(0.3f, 0.3f, 1)));
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.2f, 0.2f, 0), Vec3f(0.2f, 0.2f, 1), Vec3f(0.3f, 0.3f, 1)));  // vertex on face
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.5f, -1, 0), Vec3f(0.5f, 1, 0), Vec3f(0.5f, 0, 1)));  // edge in the plane
  EXPECT_FALSE(tt(a, b, c, Vec3f(0.8f, 0.8f, -1), Vec3f(0.8f, 0.8f, 1), Vec3f(2, 2, 0)));  // beside the hypotenuse
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.5f, 0.5f, -1), Vec3f(0.5f, 0.5f, 1), Vec3f(2, 2, 0)));  // edge touches edge
  // coplanar: overlapping, contained, touching at a vertex, disjoint
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.5f, 0.5f, 0), Vec3f(-0.5f, 0.2f, 0), Vec3f(0.2f, -0.5f, 0)));
  EXPECT_TRUE(tt(a, b, c, Vec3f(0.1f, 0.1f, 0), Vec3f(0.2f, 0.1f, 0), Vec3f(0.1f, 0.2f, 0)));
  EXPECT_TRUE(tt(a, b, c, Vec3f(1, 0, 0), Vec3f(2, 0, 0), Vec3f(2, 1, 0)));
  EXPECT_FALSE(tt(a, b, c, Vec3f(1.1f, 0, 0), Vec3f(2, 0, 0), Vec3f(2, 1, 0)));
  // degenerate triangles never intersect
  EXPECT_FALSE(tt(a, b, c, Vec3f(0.2f, 0.2f, -1), Vec3f(0.2f, 0.2f, 1), Vec3f(0.2f, 0.2f, 0.5f)));
}

// reference: distance between the triangles via convex 1D minimisation of the
// point–triangle distance along each edge (double), zero within 1e-7
double seg_tri_distance(Vec3d a, Vec3d b, Vec3d p, Vec3d q, Vec3d r) {
  auto f = [&](double s) { return closest_point_triangle(lerp(a, b, s), p, q, r).dist2; };
  double lo = 0, hi = 1;
  for (int it = 0; it < 70; ++it) {
    double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
    if (f(m1) < f(m2)) hi = m2; else lo = m1;
  }
  return std::sqrt(std::fmin(f(0.5 * (lo + hi)), std::fmin(f(0), f(1))));
}

bool reference_intersect(const Vec3f* P, const Vec3f* Q) {
  double d = 1e300;
  for (int i = 0; i < 3; ++i) {
    int j = (i + 1) % 3;
    d = std::fmin(d, seg_tri_distance(Vec3d(P[i]), Vec3d(P[j]), Vec3d(Q[0]), Vec3d(Q[1]), Vec3d(Q[2])));
    d = std::fmin(d, seg_tri_distance(Vec3d(Q[i]), Vec3d(Q[j]), Vec3d(P[0]), Vec3d(P[1]), Vec3d(P[2])));
  }
  return d < 1e-7;
}

bool degenerate(const Vec3f* t) { return length2(cross(Vec3d(t[1]) - Vec3d(t[0]), Vec3d(t[2]) - Vec3d(t[0]))) == 0; }

TEST(TriTri, IntegerGridTrianglesMatchDistanceReference) {
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> u(-2, 2);
  int hits = 0, coplanar = 0, tested = 0;
  for (int k = 0; k < 8000; ++k) {
    Vec3f P[3], Q[3];
    for (int i = 0; i < 3; ++i) {
      P[i] = Vec3f(float(u(rng)), float(u(rng)), float(u(rng)));
      Q[i] = Vec3f(float(u(rng)), float(u(rng)), float(u(rng)) * (k % 3 == 0 ? 0.f : 1.f));
    }
    if (k % 3 == 0)
      for (auto& p : P) p.z = 0;  // many coplanar pairs
    if (degenerate(P) || degenerate(Q)) continue;
    ++tested;
    bool ref = reference_intersect(P, Q);
    bool got = triangles_intersect(P, Q);
    ASSERT_EQ(got, ref) << "case " << k;
    hits += got;
    coplanar += (k % 3 == 0);
  }
  EXPECT_GT(hits, tested / 10);
  EXPECT_GT(hits, 100);
}

TEST(TriTri, RandomFloatTrianglesMatchDistanceReference) {
  std::mt19937 rng(6);
  std::uniform_real_distribution<float> u(-1, 1);
  int hits = 0;
  for (int k = 0; k < 3000; ++k) {
    Vec3f P[3], Q[3];
    for (int i = 0; i < 3; ++i) {
      P[i] = Vec3f(u(rng), u(rng), u(rng));
      Q[i] = Vec3f(u(rng), u(rng), u(rng));
    }
    bool got = triangles_intersect(P, Q);
    // the reference is not exact: skip near-touching pairs
    double d = 1e300;
    for (int i = 0; i < 3; ++i) {
      int j = (i + 1) % 3;
      d = std::fmin(d, seg_tri_distance(Vec3d(P[i]), Vec3d(P[j]), Vec3d(Q[0]), Vec3d(Q[1]), Vec3d(Q[2])));
      d = std::fmin(d, seg_tri_distance(Vec3d(Q[i]), Vec3d(Q[j]), Vec3d(P[0]), Vec3d(P[1]), Vec3d(P[2])));
    }
    if (d > 1e-8 && d < 1e-5) continue;
    ASSERT_EQ(got, d <= 1e-8) << k;
    hits += got;
  }
  EXPECT_GT(hits, 100);
}

}  // namespace
}  // namespace cb
