// Point–triangle and segment–segment closest points against dense sampling,
// including degenerate and parallel configurations, in float and double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/collision/proximity.h"

namespace cb {
namespace {

// min distance from p to samples of the triangle on an n x n barycentric lattice
double sampled_point_tri(Vec3d p, Vec3d a, Vec3d b, Vec3d c, int n) {
  double best = 1e300;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; i + j <= n; ++j) {
      double u = double(i) / n, v = double(j) / n;
      best = std::fmin(best, length(p - (a * (1 - u - v) + b * u + c * v)));
    }
  return best;
}

double sampled_seg_seg(Vec3d p1, Vec3d q1, Vec3d p2, Vec3d q2, int n) {
  double best = 1e300;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j)
      best = std::fmin(best, length(lerp(p1, q1, double(i) / n) - lerp(p2, q2, double(j) / n)));
  return best;
}

void check_point_tri(Vec3d p, Vec3d a, Vec3d b, Vec3d c) {
  const int n = 120;
  PointTriResult<double> r = closest_point_triangle(p, a, b, c);
  double d = std::sqrt(r.dist2);
  double diam = std::fmax(length(b - a), std::fmax(length(c - a), length(c - b)));
  double s = sampled_point_tri(p, a, b, c, n);
  // no sample is closer than the answer; the answer is at most one lattice step better
  ASSERT_LE(d, s + 1e-12);
  ASSERT_GE(d, s - diam / n - 1e-12);
  ASSERT_GE(r.w[0], 0.0);
  ASSERT_GE(r.w[1], 0.0);
  ASSERT_GE(r.w[2], 0.0);
  ASSERT_NEAR(r.w[0] + r.w[1] + r.w[2], 1.0, 1e-12);
  ASSERT_LT(length(r.point - (a * r.w[0] + b * r.w[1] + c * r.w[2])), 1e-9);
}

void check_seg_seg(Vec3d p1, Vec3d q1, Vec3d p2, Vec3d q2) {
  const int n = 200;
  SegSegResult<double> r = closest_points_segments(p1, q1, p2, q2);
  double d = std::sqrt(r.dist2);
  double s = sampled_seg_seg(p1, q1, p2, q2, n);
  double step = std::fmax(length(q1 - p1), length(q2 - p2)) / n;
  ASSERT_LE(d, s + 1e-12);
  ASSERT_GE(d, s - step - 1e-12);
  ASSERT_GE(r.s, 0.0);
  ASSERT_LE(r.s, 1.0);
  ASSERT_GE(r.t, 0.0);
  ASSERT_LE(r.t, 1.0);
  ASSERT_LT(length(r.c1 - lerp(p1, q1, r.s)), 1e-12);
  ASSERT_LT(length(r.c2 - lerp(p2, q2, r.t)), 1e-12);
}

TEST(Proximity, PointTriangleMatchesDenseSampling) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  auto rv = [&] { return Vec3d(u(rng), u(rng), u(rng)); };
  for (int k = 0; k < 300; ++k) check_point_tri(rv() * 2.0, rv(), rv(), rv());
}

TEST(Proximity, PointTriangleDegenerate) {
  Vec3d a(0, 0, 0), b(1, 0, 0), c(2, 0, 0);   // collinear
  Vec3d p(0.5, 1, 0.3);
  check_point_tri(p, a, b, c);
  check_point_tri(p, a, a, a);                 // a point
  check_point_tri(p, a, b, b);                 // two vertices equal
  check_point_tri(Vec3d(3, 0.2, 0), a, c, b);  // beyond the end of a collinear triangle
  check_point_tri(p, a, b, Vec3d(0.5, 1e-9, 0));  // a sliver
  PointTriResult<double> r = closest_point_triangle(Vec3d(1, 1, 1), a, a, a);
  EXPECT_NEAR(r.dist2, 3.0, 1e-12);
  // regions of a regular triangle: vertex, edge and face answers
  Vec3d t0(0, 0, 0), t1(1, 0, 0), t2(0, 1, 0);
  EXPECT_NEAR(closest_point_triangle(Vec3d(0.2, 0.2, 0.5), t0, t1, t2).dist2, 0.25, 1e-12);
  EXPECT_NEAR(closest_point_triangle(Vec3d(-1, -1, 0), t0, t1, t2).w[0], 1.0, 1e-12);
  EXPECT_NEAR(closest_point_triangle(Vec3d(0.5, -1, 0), t0, t1, t2).w[1], 0.5, 1e-12);
}

TEST(Proximity, PointTriangleFloat) {
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-1, 1);
  for (int k = 0; k < 2000; ++k) {
    Vec3f p(u(rng), u(rng), u(rng)), a(u(rng), u(rng), u(rng)), b(u(rng), u(rng), u(rng)), c(u(rng), u(rng), u(rng));
    PointTriResult<float> rf = closest_point_triangle(p, a, b, c);
    PointTriResult<double> rd = closest_point_triangle(Vec3d(p), Vec3d(a), Vec3d(b), Vec3d(c));
    ASSERT_NEAR(std::sqrt(rf.dist2), std::sqrt(rd.dist2), 1e-4) << k;
  }
}

TEST(Proximity, SegmentSegmentMatchesDenseSampling) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  auto rv = [&] { return Vec3d(u(rng), u(rng), u(rng)); };
  for (int k = 0; k < 300; ++k) check_seg_seg(rv(), rv(), rv(), rv());
}

TEST(Proximity, SegmentSegmentDegenerateAndParallel) {
  Vec3d a(0, 0, 0), b(1, 0, 0);
  check_seg_seg(a, b, Vec3d(0.3, 1, 0), Vec3d(2, 1, 0));      // parallel, overlapping
  check_seg_seg(a, b, Vec3d(2, 1, 0), Vec3d(3, 1, 0));        // parallel, disjoint
  check_seg_seg(a, b, Vec3d(3, 1, 0), Vec3d(2, 1, 0));        // antiparallel
  check_seg_seg(a, b, Vec3d(0.2, 0, 0), Vec3d(0.7, 0, 0));    // collinear, overlapping
  check_seg_seg(a, a, Vec3d(0.2, 1, 0), Vec3d(0.7, 1, 1));    // a point and a segment
  check_seg_seg(a, b, Vec3d(0.5, 1, 1), Vec3d(0.5, 1, 1));    // a segment and a point
  check_seg_seg(a, a, Vec3d(1, 1, 1), Vec3d(1, 1, 1));        // two points
  check_seg_seg(a, b, Vec3d(0.5, -1, 0.1), Vec3d(0.5, 1, 0.1));  // crossing
  check_seg_seg(a, b, Vec3d(0, 1e-9, 0), Vec3d(1, 2e-9, 0));  // nearly parallel
  SegSegResult<double> r = closest_points_segments(a, b, Vec3d(0.5, -1, 0.1), Vec3d(0.5, 1, 0.1));
  EXPECT_NEAR(r.s, 0.5, 1e-12);
  EXPECT_NEAR(r.t, 0.5, 1e-12);
  EXPECT_NEAR(r.dist2, 0.01, 1e-12);
}

}  // namespace
}  // namespace cb
