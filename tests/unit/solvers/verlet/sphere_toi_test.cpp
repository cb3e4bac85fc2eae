// Sphere-sphere time of impact against analytic answers, degenerate cases included.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/solvers/verlet/sphere_toi.h"

namespace cb {
namespace {

TEST(SphereToi, HeadOnApproachHitsAtTheAnalyticTime) {
  float t = -1;
  // offset 3 -> 1 along x, contact distance 2: |3 - 2t| = 2 at t = 0.5
  ASSERT_EQ(sphere_toi({3, 0, 0}, {-2, 0, 0}, 2.f, &t), ToiResult::Hit);
  EXPECT_NEAR(t, 0.5f, 1e-6f);
}

TEST(SphereToi, GlancingApproachHitsAtTheAnalyticTime) {
  float t = -1;
  // p(t) = (4 - 8t, 1, 0): (4 - 8t)^2 + 1 = 4  ->  t = (4 - sqrt(3)) / 8
  ASSERT_EQ(sphere_toi({4, 1, 0}, {-8, 0, 0}, 2.f, &t), ToiResult::Hit);
  EXPECT_NEAR(t, (4.f - std::sqrt(3.f)) / 8.f, 1e-6f);
  // arbitrary direction: same answer after a rotation
  Mat3f R = rotation(normalize(Vec3f{1, 2, 3}), 0.7f);
  ASSERT_EQ(sphere_toi(R * Vec3f{4, 1, 0}, R * Vec3f{-8, 0, 0}, 2.f, &t), ToiResult::Hit);
  EXPECT_NEAR(t, (4.f - std::sqrt(3.f)) / 8.f, 1e-5f);
}

TEST(SphereToi, TinyRadiusAndLargeOffsetStayAccurate) {
  float t = -1;
  // 1 mm spheres 1 m apart closing at 2 m per step: contact at (1 - 0.002) / 2
  ASSERT_EQ(sphere_toi({1, 0, 0}, {-2, 0, 0}, 0.002f, &t), ToiResult::Hit);
  EXPECT_NEAR(t, 0.499f, 1e-6f);
}

TEST(SphereToi, ZeroRelativeMotionIsSeparateOrOverlapping) {
  float t = -1;
  EXPECT_EQ(sphere_toi({3, 0, 0}, {0, 0, 0}, 2.f, &t), ToiResult::Separate);
  EXPECT_EQ(t, 1.f);
  EXPECT_EQ(sphere_toi({1, 0, 0}, {0, 0, 0}, 2.f, &t), ToiResult::Overlapping);
  EXPECT_EQ(t, 0.f);
}

TEST(SphereToi, NoRealRootMeansTheyMiss) {
  float t = -1;
  // passes at distance 3 > 2: discriminant < 0
  EXPECT_EQ(sphere_toi({4, 3, 0}, {-8, 0, 0}, 2.f, &t), ToiResult::Separate);
}

TEST(SphereToi, MovingApartOrTooSlowIsSeparate) {
  float t = -1;
  EXPECT_EQ(sphere_toi({3, 0, 0}, {2, 0, 0}, 2.f, &t), ToiResult::Separate);   // receding
  EXPECT_EQ(sphere_toi({3, 0, 0}, {0, 5, 0}, 2.f, &t), ToiResult::Separate);   // tangential, b = 0
  EXPECT_EQ(sphere_toi({5, 0, 0}, {-2, 0, 0}, 2.f, &t), ToiResult::Separate);  // root at 1.5 > 1
}

TEST(SphereToi, TouchingOrCoincidentAtTheStartIsOverlapping) {
  float t = -1;
  EXPECT_EQ(sphere_toi({2, 0, 0}, {-1, 0, 0}, 2.f, &t), ToiResult::Overlapping);  // c = 0
  EXPECT_EQ(sphere_toi({0, 0, 0}, {0, 0, 0}, 2.f, &t), ToiResult::Overlapping);   // same centre
  EXPECT_EQ(t, 0.f);
}

TEST(SphereToi, ContactNormalIsAntisymmetricWithFallbacks) {
  // at the time of impact: p(0.5) = (1, 0, 0)
  Vec3f n = contact_normal({3, 0, 0}, {-4, 0, 0}, {-1, 0, 0}, ToiResult::Hit, 0.5f, {}, true);
  EXPECT_NEAR(n.x, 1.f, 1e-6f);  // the impact normal, not the (crossed) end offset
  // coincident centres: rest offset, then +-y by index order
  Vec3f a = contact_normal({}, {}, {}, ToiResult::Overlapping, 0.f, {0, 0, 2}, true);
  Vec3f b = contact_normal({}, {}, {}, ToiResult::Overlapping, 0.f, {0, 0, -2}, false);
  EXPECT_EQ(a, (Vec3f{0, 0, 1}));
  EXPECT_EQ(b, -a);
  Vec3f c = contact_normal({}, {}, {}, ToiResult::Overlapping, 0.f, {}, true);
  Vec3f d = contact_normal({}, {}, {}, ToiResult::Overlapping, 0.f, {}, false);
  EXPECT_EQ(c, (Vec3f{0, 1, 0}));
  EXPECT_EQ(d, -c);
}

}  // namespace
}  // namespace cb
