// move_rigid_zone: how a rigid impact zone moves when it holds obstacle vertices.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sim/solvers/icloth/collision_handler.h"
#include "sim/solvers/icloth/rigid_fit.h"
#include "sim/solvers/icloth/rigid_zones.h"

namespace cb::icloth {
namespace {

constexpr float kThickness = 0.001f;   // m
constexpr float kAbove = 0.0005f;      // m, the cloth's height over the body at the start
constexpr double kTurn = 0.3;          // rad, the thigh's turn over the step

// Turns p about the z axis (the hinge between hip and thigh) by kTurn.
Vec3f turned(Vec3f p) {
  const float c = float(std::cos(kTurn)), s = float(std::sin(kTurn));
  return {c * p.x - s * p.y, s * p.x + c * p.y, p.z};
}

// m: signed height of a cloth point over the body at the end of the step: over
// the still hip (x < 0) the plane y = 0, over the thigh (x > 0) that plane
// turned by kTurn (the thigh's points lie at turned(x, 0, z)).
float height_over_body(Vec3f p) {
  if (p.x <= 0) return p.y;
  const float c = float(std::cos(kTurn)), s = float(std::sin(kTurn));
  return -s * p.x + c * p.y;  // along the turned normal (-sin, cos, 0)
}

// A hip (x <= 0, still) and a thigh (x >= 0) hinged at x = 0 that turns up
// by 0.3 rad, both 1 cm-spaced grids; a strip of cloth lies 0.5 mm above both,
// one zone whose impacts are vertex-face ones against the grid squares below
// each cloth vertex. No one rigid motion carries hip and thigh (the fitted one
// misses by centimetres), so each cloth vertex must follow the part it lies on:
// it ends above that part, within a thickness of the height it started at
// (points of the other part, a centimetre or more away, still weigh a little:
// the vertex 8 mm from the hinge ends 0.16 mm higher).
TEST(RigidZones, AZoneAcrossTwoBodyPartsFollowsEachPartItLiesOn) {
  std::vector<Vec3f> obs0, obs1;
  for (int i = -5; i <= 5; ++i)
    for (int k = 0; k < 3; ++k) {
      const Vec3f p{0.01f * float(i), 0.f, 0.01f * float(k)};
      obs0.push_back(p);
      obs1.push_back(i > 0 ? turned(p) : p);
    }
  const auto obs_id = [](int i, int k) { return (i + 5) * 3 + k; };
  std::vector<Vec3f> x0, xf;
  std::vector<int> verts;
  std::vector<Impact> imps;
  std::vector<int> ids;
  for (int i = -4; i <= 4; ++i) {
    if (i == 0) continue;  // over the hinge both parts are "below"
    const Vec3f p{0.01f * float(i) + 0.002f, kAbove, 0.005f};
    verts.push_back(int(x0.size()));
    x0.push_back(p);
    xf.push_back(p + Vec3f{0, -0.02f, 0});  // falls through the body if left alone
  }
  const size_t nverts = x0.size();
  for (size_t v = 0; v < nverts; ++v) {
    const int i = int(std::floor(x0[v].x / 0.01f));  // the grid square under v
    Impact im;
    im.v[0] = int(v);
    im.v[1] = int(nverts) + obs_id(i, 0);
    im.v[2] = int(nverts) + obs_id(i + 1, 0);
    im.v[3] = int(nverts) + obs_id(i, 1);
    im.w[0] = 1, im.w[1] = -0.3f, im.w[2] = -0.2f, im.w[3] = -0.5f;
    im.n = {0, 1, 0};
    im.d = kThickness;
    ids.push_back(int(imps.size()));
    imps.push_back(im);
  }
  const std::vector<float> mass(nverts, 1e-4f), inv_mass(nverts, 1e4f), thickness(nverts, kThickness);
  CollisionInput in;
  in.x0 = &x0, in.x_free = &xf, in.mass = &mass, in.inv_mass = &inv_mass, in.thickness = &thickness;
  in.obs_x0 = &obs0, in.obs_x1 = &obs1;

  std::vector<Vec3f> x1 = xf;
  move_rigid_zone(verts, ids, imps, in, nverts, x1);
  for (size_t v = 0; v < nverts; ++v) {
    EXPECT_GT(height_over_body(x1[v]), 0.8f * kAbove) << "vertex at x = " << x0[v].x;
    EXPECT_LT(height_over_body(x1[v]), kAbove + kThickness) << "vertex at x = " << x0[v].x;
  }

  // the one fitted motion of the same fixed points leaves cloth behind the
  // thigh (what the zone did before): the set-up is one it must get right
  std::vector<Vec3d> p0, p1;
  for (const Impact& im : imps)
    for (int k = 1; k < 4; ++k) {
      p0.push_back(Vec3d(obs0[size_t(im.v[k]) - nverts]));
      p1.push_back(Vec3d(obs1[size_t(im.v[k]) - nverts]));
    }
  const RigidFit one = fit_rigid_motion(p0, p1);
  float lowest = 1.f;
  for (size_t v = 0; v < nverts; ++v) lowest = std::fmin(lowest, height_over_body(Vec3f(one.apply(Vec3d(x0[v])))));
  EXPECT_LT(lowest, 0.f);
}

// Fixed points that one rigid motion carries (a thigh turning as a whole): the
// zone moves by that motion, the distances between its vertices kept.
TEST(RigidZones, AZoneOnOnePartMovesRigidlyWithIt) {
  std::vector<Vec3f> obs0, obs1;
  for (int i = 1; i <= 5; ++i)
    for (int k = 0; k < 3; ++k) {
      const Vec3f p{0.01f * float(i), 0.f, 0.01f * float(k)};
      obs0.push_back(p), obs1.push_back(turned(p));
    }
  std::vector<Vec3f> x0 = {{0.021f, kAbove, 0.004f}, {0.032f, kAbove, 0.006f}, {0.043f, kAbove, 0.012f}};
  std::vector<Vec3f> xf = x0;
  const size_t nverts = x0.size();
  std::vector<Impact> imps;
  for (int v = 0; v < 3; ++v) {
    Impact im;
    im.v[0] = v, im.v[1] = int(nverts) + 3 * (v + 1), im.v[2] = int(nverts) + 3 * (v + 2), im.v[3] = int(nverts) + 3 * (v + 1) + 1;
    im.w[0] = 1, im.w[1] = -0.4f, im.w[2] = -0.3f, im.w[3] = -0.3f;
    imps.push_back(im);
  }
  const std::vector<float> mass(nverts, 1e-4f), inv_mass(nverts, 1e4f), thickness(nverts, kThickness);
  CollisionInput in;
  in.x0 = &x0, in.x_free = &xf, in.mass = &mass, in.inv_mass = &inv_mass, in.thickness = &thickness;
  in.obs_x0 = &obs0, in.obs_x1 = &obs1;
  std::vector<Vec3f> x1 = xf;
  move_rigid_zone({0, 1, 2}, {0, 1, 2}, imps, in, nverts, x1);
  for (size_t v = 0; v < nverts; ++v) EXPECT_LT(length(x1[v] - turned(x0[v])), 1e-6f);
}

// A body that deforms (a skinned hip stretches): p -> (1.3 x, 0, z + 0.2 x) on
// the plane y = 0, a 1 cm grid. A vertex the caller marks as carried keeps its
// place on the body exactly (the same barycentric point of the triangle under it,
// the same height); the rigid fits of the unmarked path, which cannot stretch,
// miss that place.
TEST(RigidZones, ACarriedVertexKeepsItsPlaceOnADeformingBody) {
  const auto deform = [](Vec3f p) { return Vec3f{1.3f * p.x, p.y, p.z + 0.2f * p.x}; };
  std::vector<Vec3f> obs0, obs1;
  std::vector<Int3> obs_tris;
  const int n = 6;  // n x n vertices
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) {
      const Vec3f p{0.01f * float(i), 0.f, 0.01f * float(k)};
      obs0.push_back(p), obs1.push_back(deform(p));
    }
  for (int i = 0; i + 1 < n; ++i)
    for (int k = 0; k + 1 < n; ++k) {
      const int a = i * n + k, b = (i + 1) * n + k, c = i * n + k + 1, d = (i + 1) * n + k + 1;
      obs_tris.push_back({a, c, b}), obs_tris.push_back({b, c, d});
    }
  // cloth vertices above the grid, each in an impact with the triangle below it
  std::vector<Vec3f> x0 = {{0.013f, kAbove, 0.012f}, {0.027f, kAbove, 0.024f}, {0.041f, kAbove, 0.033f}};
  const std::vector<Vec3f> xf = x0;
  const size_t nverts = x0.size();
  std::vector<Impact> imps;
  for (size_t v = 0; v < nverts; ++v) {
    const int i = int(x0[v].x / 0.01f), k = int(x0[v].z / 0.01f);
    Impact im;
    im.v[0] = int(v);
    im.v[1] = int(nverts) + i * n + k, im.v[2] = int(nverts) + (i + 1) * n + k, im.v[3] = int(nverts) + i * n + k + 1;
    im.w[0] = 1, im.w[1] = -0.4f, im.w[2] = -0.3f, im.w[3] = -0.3f;
    imps.push_back(im);
  }
  const std::vector<float> mass(nverts, 1e-4f), inv_mass(nverts, 1e4f), thickness(nverts, kThickness);
  CollisionInput in;
  in.x0 = &x0, in.x_free = &xf, in.mass = &mass, in.inv_mass = &inv_mass, in.thickness = &thickness;
  in.obs_x0 = &obs0, in.obs_x1 = &obs1, in.obs_tris = &obs_tris;
  const std::vector<int> verts = {0, 1, 2}, ids = {0, 1, 2};
  std::vector<uint8_t> carried(nverts, 0);
  carried[1] = 1;
  std::vector<Vec3f> x1 = xf, fitted = xf;
  move_rigid_zone(verts, ids, imps, in, nverts, x1, &carried);
  move_rigid_zone(verts, ids, imps, in, nverts, fitted, nullptr);
  const Vec3f place = deform(x0[1]);  // the deformation is affine: exact on each triangle
  EXPECT_LT(length(x1[1] - place), 1e-6f);
  EXPECT_GT(length(fitted[1] - place), 1e-4f);
  for (size_t v : {size_t(0), size_t(2)}) EXPECT_EQ(x1[v], fitted[v]) << "an unmarked vertex moved differently";
}

}  // namespace
}  // namespace cb::icloth
