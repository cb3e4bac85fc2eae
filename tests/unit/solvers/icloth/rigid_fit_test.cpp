// fit_rigid_motion: the best rigid motion between two point sets (Horn 1987).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/solvers/icloth/rigid_fit.h"

namespace cb::icloth {
namespace {

// A proper rotation about the unit axis u by `angle` rad (Rodrigues), double.
M3T<double> turn(Vec3d u, double angle) {
  const double c = std::cos(angle), s = std::sin(angle);
  M3T<double> r = M3T<double>::identity(c);
  add_outer(r, 1 - c, u, u);
  r.m[0][1] -= s * u.z, r.m[0][2] += s * u.y;
  r.m[1][0] += s * u.z, r.m[1][2] -= s * u.x;
  r.m[2][0] -= s * u.y, r.m[2][1] += s * u.x;
  return r;
}

// A patch of a thigh's surface (points on a cylinder, as near a plane as a
// zone's contact points are) turned by 0.3 rad about a hip 0.4 m away and moved:
// the fit carries every point onto its image. The mean displacement alone (what
// the rigid zones used before) misses by millimetres.
TEST(RigidFit, RecoversATurnAboutADistantAxisFromACurvedPatch) {
  std::vector<Vec3d> p0, p1;
  const Vec3d axis = normalize(Vec3d{0.2, 1, 0.1}), hip{0, 0.4, 0}, shift{0.01, -0.02, 0.005};
  const M3T<double> R = turn(axis, 0.3);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 4; ++j) {
      const double a = 0.15 * i;  // 0.75 rad around a 6 cm thigh
      const Vec3d p{0.06 * std::cos(a), 0.01 * j, 0.06 * std::sin(a)};
      p0.push_back(p);
      p1.push_back(hip + R * (p - hip) + shift);
    }
  const RigidFit f = fit_rigid_motion(p0, p1);
  EXPECT_LT(largest_miss(f, p0, p1), 1e-9);
  RigidFit translation;
  translation.c0 = f.c0, translation.c1 = f.c1;
  EXPECT_GT(largest_miss(translation, p0, p1), 0.005);  // 6.8 mm: several cloth thicknesses
}

// Points in one plane fix the rotation too (Horn's method needs no third
// dimension); a still set gives the identity.
TEST(RigidFit, PlanarPointsAndAStillSet) {
  std::vector<Vec3d> p0 = {{0, 0, 0}, {0.1, 0, 0}, {0, 0, 0.1}, {0.1, 0, 0.1}, {0.05, 0, 0.02}}, p1;
  const M3T<double> R = turn(normalize(Vec3d{1, 1, 0}), 1.0);
  for (const Vec3d& p : p0) p1.push_back(R * p + Vec3d{0.3, 0, 0});
  EXPECT_LT(largest_miss(fit_rigid_motion(p0, p1), p0, p1), 1e-9);
  const RigidFit still = fit_rigid_motion(p0, p0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_NEAR(still.R.m[r][c], r == c ? 1.0 : 0.0, 1e-12);
}

// Points on one line (a zone touching one obstacle edge) leave the turn about
// it free: the fit keeps to the translation instead of a random turn.
TEST(RigidFit, PointsOnALineOnlyMove) {
  const std::vector<Vec3d> p0 = {{0, 0, 0}, {0.1, 0.1, 0}, {0.2, 0.2, 0}, {0.1, 0.1, 0}};
  std::vector<Vec3d> p1;
  for (const Vec3d& p : p0) p1.push_back(p + Vec3d{0, 0, 0.02});
  const RigidFit f = fit_rigid_motion(p0, p1);
  EXPECT_LT(largest_miss(f, p0, p1), 1e-12);
  EXPECT_LT(length(f.apply(Vec3d{0.1, 0.5, 0.3}) - Vec3d{0.1, 0.5, 0.32}), 1e-12);  // off the line too
}

// Weights pick the part a point follows: a still hip patch and a thigh patch
// turned about the hip. With equal weights no one motion carries both; weighing
// the thigh's points (by far) the most recovers the thigh's motion, and weights
// of one give the unweighted fit exactly.
TEST(RigidFit, WeightsPickThePartThatMoves) {
  std::vector<Vec3d> p0, p1;
  std::vector<double> thigh_heavy, ones;
  const Vec3d hip{0, 0.4, 0};
  const M3T<double> R = turn(Vec3d{1, 0, 0}, 0.2);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) {
      const Vec3d on_hip{0.02 * i, 0.4 + 0.01 * j, 0.06}, on_thigh{0.02 * i, 0.1 + 0.01 * j, 0.06 + 0.005 * j};
      p0.push_back(on_hip), p1.push_back(on_hip), thigh_heavy.push_back(1e-9);
      p0.push_back(on_thigh), p1.push_back(hip + R * (on_thigh - hip)), thigh_heavy.push_back(1.0);
      ones.push_back(1.0), ones.push_back(1.0);
    }
  std::vector<Vec3d> thigh0, thigh1;
  for (size_t i = 1; i < p0.size(); i += 2) thigh0.push_back(p0[i]), thigh1.push_back(p1[i]);
  EXPECT_GT(largest_miss(fit_rigid_motion(p0, p1), thigh0, thigh1), 0.005);
  EXPECT_LT(largest_miss(fit_rigid_motion(p0, p1, &thigh_heavy), thigh0, thigh1), 1e-6);
  const RigidFit a = fit_rigid_motion(p0, p1), b = fit_rigid_motion(p0, p1, &ones);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(a.R.m[r][c], b.R.m[r][c]);
}

}  // namespace
}  // namespace cb::icloth
