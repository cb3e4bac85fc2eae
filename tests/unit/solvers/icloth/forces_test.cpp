// Finite-difference checks of the I-Cloth element energies, gradients and
// Hessians (membrane.h, bending.h), in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sim/solvers/icloth/bending.h"
#include "sim/solvers/icloth/membrane.h"

namespace cb::icloth {
namespace {

using V = Vec3d;

TriRest unit_rest() {
  // right triangle with legs 0.1 m along u and v: X0 = (0,0), X1 = (0.1,0), X2 = (0,0.1)
  TriRest r{};
  r.a[1] = 10.f; r.a[2] = 0.f; r.a[0] = -10.f;
  r.b[1] = 0.f; r.b[2] = 10.f; r.b[0] = -10.f;
  r.area = 0.005f;
  r.ku = 5000.f;
  r.kv = 2500.f;
  r.ks = 500.f;
  return r;
}

V rand_vec(std::mt19937& rng, double s) {
  std::uniform_real_distribution<double> u(-s, s);
  return {u(rng), u(rng), u(rng)};
}

// central difference of f along coordinate c of vertex k
template <class F>
double fd(F f, V* x, int k, int c, double eps) {
  double o = x[k][c];
  x[k][c] = o + eps;
  double fp = f(x);
  x[k][c] = o - eps;
  double fm = f(x);
  x[k][c] = o;
  return (fp - fm) / (2 * eps);
}

void deformed_tri(std::mt19937& rng, V x[3], double scale) {
  x[0] = V{0, 0, 0} + rand_vec(rng, 0.01);
  x[1] = V{0.1 * scale, 0, 0} + rand_vec(rng, 0.01);
  x[2] = V{0, 0.1 * scale, 0.02} + rand_vec(rng, 0.01);
}

TEST(IClothMembrane, GradientMatchesFiniteDifferencesOfEnergy) {
  std::mt19937 rng(1);
  const TriRest r = unit_rest();
  for (double scale : {0.8, 1.0, 1.2}) {
    V x[3];
    deformed_tri(rng, x, scale);
    V g[3];
    membrane_grad_hess<double>(r, x, g, nullptr, false);
    auto E = [&](V* y) { return membrane_energy<double>(r, y[0], y[1], y[2]); };
    for (int k = 0; k < 3; ++k)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(g[k][c], fd(E, x, k, c, 1e-7), 1e-5 * (1 + std::fabs(g[k][c])));
  }
}

TEST(IClothMembrane, ExactHessianMatchesFiniteDifferencesOfGradient) {
  std::mt19937 rng(2);
  const TriRest r = unit_rest();
  for (double scale : {0.7, 1.0, 1.3}) {  // compression, rest, tension
    V x[3];
    deformed_tri(rng, x, scale);
    MembraneW<double> hw;
    V g[3];
    membrane_grad_hess<double>(r, x, g, &hw, false);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        M3T<double> H = membrane_block(r, hw, i, j);
        for (int c = 0; c < 3; ++c) {
          for (int p = 0; p < 3; ++p) {
            auto gip = [&](V* y) {
              V gg[3];
              membrane_grad_hess<double>(r, y, gg, nullptr, false);
              return gg[i][p];
            };
            double num = fd(gip, x, j, c, 1e-7);
            EXPECT_NEAR(H.m[p][c], num, 1e-4 * (1 + std::fabs(num))) << "block " << i << j << " entry " << p << c;
          }
        }
      }
  }
}

// x^T H x over all 9 coordinates with the projected Hessian must be >= 0
TEST(IClothMembrane, ProjectedHessianIsPositiveSemiDefinite) {
  std::mt19937 rng(3);
  const TriRest r = unit_rest();
  for (int trial = 0; trial < 200; ++trial) {
    V x[3];
    deformed_tri(rng, x, 0.5 + 0.005 * trial);
    MembraneW<double> hw;
    V g[3];
    membrane_grad_hess<double>(r, x, g, &hw, true);
    V d[3] = {rand_vec(rng, 1), rand_vec(rng, 1), rand_vec(rng, 1)};
    double q = 0;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) q += dot(d[i], membrane_block(r, hw, i, j) * d[j]);
    EXPECT_GE(q, -1e-9) << "trial " << trial;
  }
}

// pure stretch along the warp without shear: the projected and exact Hessians agree
TEST(IClothMembrane, ProjectedEqualsExactInTensionWithoutShear) {
  const TriRest r = unit_rest();
  V x[3] = {V{0, 0, 0}, V{0.12, 0, 0}, V{0, 0.11, 0}};
  MembraneW<double> e, p;
  V g[3];
  membrane_grad_hess<double>(r, x, g, &e, false);
  membrane_grad_hess<double>(r, x, g, &p, true);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_NEAR(e.uu.m[i][j], p.uu.m[i][j], 1e-9);
      EXPECT_NEAR(e.uv.m[i][j], p.uv.m[i][j], 1e-9);
      EXPECT_NEAR(e.vv.m[i][j], p.vv.m[i][j], 1e-9);
    }
}

TEST(IClothMembrane, RestShapeHasZeroEnergyAndForce) {
  const TriRest r = unit_rest();
  V x[3] = {V{1, 2, 3}, V{1.1, 2, 3}, V{1, 2.1, 3}};
  V g[3];
  membrane_grad_hess<double>(r, x, g, nullptr, false);
  EXPECT_NEAR(membrane_energy<double>(r, x[0], x[1], x[2]), 0, 1e-12);
  for (auto& gi : g) EXPECT_NEAR(length(gi), 0, 1e-9);
}

// a hinge: edge along x, wings bent by `angle`
void hinge(double angle, V x[4]) {
  x[0] = V{0, 0, 0};
  x[1] = V{0.1, 0, 0};
  x[2] = V{0.04, 0.08, 0};
  x[3] = V{0.06, -0.07 * std::cos(angle), 0.07 * std::sin(angle)};
}

TEST(IClothBending, AngleIsZeroWhenFlatAndSigned) {
  V x[4];
  hinge(0, x);
  EXPECT_NEAR(dihedral_angle(x[0], x[1], x[2], x[3]), 0, 1e-12);
  hinge(0.3, x);
  double a = dihedral_angle(x[0], x[1], x[2], x[3]);
  hinge(-0.3, x);
  EXPECT_NEAR(dihedral_angle(x[0], x[1], x[2], x[3]), -a, 1e-12);
  EXPECT_NEAR(std::fabs(a), 0.3, 1e-9);
}

TEST(IClothBending, AngleGradientMatchesFiniteDifferences) {
  std::mt19937 rng(4);
  for (double angle : {-1.0, -0.2, 0.0, 0.5, 2.0}) {
    V x[4];
    hinge(angle, x);
    for (auto& xi : x) xi += rand_vec(rng, 0.005);
    V g[4];
    dihedral_gradient(x[0], x[1], x[2], x[3], g);
    auto th = [](V* y) { return dihedral_angle(y[0], y[1], y[2], y[3]); };
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(g[k][c], fd(th, x, k, c, 1e-7), 1e-5 * (1 + std::fabs(g[k][c])));
  }
}

TEST(IClothBending, EnergyGradientMatchesFiniteDifferences) {
  std::mt19937 rng(5);
  BendRest r{0.4f, 0.02f};
  for (double angle : {-0.5, 0.1, 1.2}) {
    V x[4];
    hinge(angle, x);
    for (auto& xi : x) xi += rand_vec(rng, 0.005);
    V g[4], gt[4];
    double hs;
    bending_grad<double>(r, x, g, gt, &hs);
    auto E = [&](V* y) { return bending_energy<double>(r, y); };
    for (int k = 0; k < 4; ++k)
      for (int c = 0; c < 3; ++c) EXPECT_NEAR(g[k][c], fd(E, x, k, c, 1e-7), 1e-6 * (1 + std::fabs(g[k][c])));
  }
}

// Hessian check: FD(grad E) = hs gt gt^T + hs (theta - theta0) FD(grad theta); at
// theta = theta0 the Gauss-Newton Hessian is the exact one.
TEST(IClothBending, GaussNewtonHessianPlusCurvatureTermMatchesFiniteDifferences) {
  for (double offset : {0.0, 0.3}) {
    V x[4];
    hinge(0.7, x);
    const double theta = dihedral_angle(x[0], x[1], x[2], x[3]);
    BendRest r{float(theta - offset), 0.05f};
    const double d = theta - double(r.theta0);
    V g[4], gt[4];
    double hs;
    bending_grad<double>(r, x, g, gt, &hs);
    for (int i = 0; i < 4; ++i)
      for (int p = 0; p < 3; ++p)
        for (int j = 0; j < 4; ++j)
          for (int c = 0; c < 3; ++c) {
            auto dE = [&](V* y) {
              V gg[4], tt[4];
              double s;
              bending_grad<double>(r, y, gg, tt, &s);
              return gg[i][p];
            };
            auto dth = [&](V* y) {
              V tt[4];
              dihedral_gradient(y[0], y[1], y[2], y[3], tt);
              return tt[i][p];
            };
            double num = fd(dE, x, j, c, 1e-7);
            double gn = hs * gt[i][p] * gt[j][c];
            double model = gn + hs * d * fd(dth, x, j, c, 1e-7);
            EXPECT_NEAR(model, num, 1e-4 * (1 + std::fabs(num)));
            if (offset == 0.0) EXPECT_NEAR(gn, num, 1e-4 * (1 + std::fabs(num)));
          }
  }
}

TEST(IClothBending, RigidMotionDoesNotChangeTheAngle) {
  V x[4];
  hinge(0.8, x);
  double a = dihedral_angle(x[0], x[1], x[2], x[3]);
  Mat3f R = rotation(normalize(Vec3f{0.3f, -0.5f, 0.8f}), 1.1f);
  V y[4];
  for (int k = 0; k < 4; ++k) {
    Vec3f p = R * Vec3f(x[k]);
    y[k] = V(p) + V{0.5, -1, 2};
  }
  EXPECT_NEAR(dihedral_angle(y[0], y[1], y[2], y[3]), a, 1e-6);
}

}  // namespace
}  // namespace cb::icloth
