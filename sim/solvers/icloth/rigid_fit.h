// The rigid motion that best carries one set of points onto another (host,
// double): Horn, "Closed-form solution of absolute orientation using unit
// quaternions", JOSA A 4(4), 1987. Used by the rigid impact zones
// (collision_handler.cpp) to carry a zone with the part of a moving body it
// touches, which turns as well as moves (a kicking thigh).
//
//   RigidFit f = fit_rigid_motion(p0, p1);   // p1[i] ~ f.c1 + f.R (p0[i] - f.c0)
//   Vec3d y = f.apply(x);
//   double miss = largest_miss(f, p0, p1);   // m, how well it fits
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {

struct RigidFit {
  Vec3d c0, c1;                                 ///< m: centroids of the points before / after
  M3T<double> R = M3T<double>::identity();      ///< proper rotation
  Vec3d apply(Vec3d x) const { return c1 + R * (x - c0); }
};

namespace rigid_fit_detail {

// Eigenvector of the largest eigenvalue of the symmetric 4x4 matrix a (cyclic
// Jacobi rotations; a is destroyed).
inline void largest_eigenvector(double a[4][4], double out[4]) {
  double v[4][4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0, diag = 0;
    for (int i = 0; i < 4; ++i) {
      diag += a[i][i] * a[i][i];
      for (int j = i + 1; j < 4; ++j) off += a[i][j] * a[i][j];
    }
    if (!(off > 1e-30 * diag)) break;
    for (int p = 0; p < 4; ++p)
      for (int q = p + 1; q < 4; ++q) {
        if (a[p][q] == 0.0) continue;
        // the rotation in the (p, q) plane that zeroes a[p][q]
        const double theta = 0.5 * (a[q][q] - a[p][p]) / a[p][q];
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 4; ++k) {  // columns p, q
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 4; ++k) {  // rows p, q
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        for (int k = 0; k < 4; ++k) {
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = c * vkp - s * vkq;
          v[k][q] = s * vkp + c * vkq;
        }
      }
  }
  int best = 0;
  for (int i = 1; i < 4; ++i)
    if (a[i][i] > a[best][best]) best = i;
  for (int k = 0; k < 4; ++k) out[k] = v[k][best];
}

}  // namespace rigid_fit_detail

/// True when the points lie within `tol` times their spread of one line through
/// their centroid c (one point, two points, an edge's vertices).
inline bool on_one_line(const std::vector<Vec3d>& p, Vec3d c, double tol = 1e-6) {
  Vec3d far{};
  double r2 = 0;
  for (const Vec3d& q : p) {
    const Vec3d a = q - c;
    if (dot(a, a) > r2) r2 = dot(a, a), far = a;
  }
  if (!(r2 > 0)) return true;
  const Vec3d e = far / std::sqrt(r2);
  for (const Vec3d& q : p) {
    const Vec3d off = (q - c) - e * dot(q - c, e);  // off the line
    if (dot(off, off) > tol * tol * r2) return false;
  }
  return true;
}

/// The rotation R and the centroids minimising sum w_i |c1 + R (p0 - c0) - p1|^2
/// (p0, p1 of one size, at least one point; w = 1 when null, else positive
/// weights of that size). Points on one line leave a turn about that line free,
/// which the eigenvector would pick at random: R is then the identity (the
/// centroid's translation alone).
inline RigidFit fit_rigid_motion(const std::vector<Vec3d>& p0, const std::vector<Vec3d>& p1,
                                 const std::vector<double>* w = nullptr) {
  RigidFit f;
  double n = 0;
  for (size_t i = 0; i < p0.size(); ++i) {
    const double wi = w ? (*w)[i] : 1.0;
    f.c0 += p0[i] * wi, f.c1 += p1[i] * wi, n += wi;
  }
  f.c0 = f.c0 / n;
  f.c1 = f.c1 / n;
  if (on_one_line(p0, f.c0)) return f;
  // S = sum w a b^T with a = p0 - c0, b = p1 - c1 (Horn's M)
  double S[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}};
  for (size_t i = 0; i < p0.size(); ++i) {
    const Vec3d a = (p0[i] - f.c0) * (w ? (*w)[i] : 1.0), b = p1[i] - f.c1;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) S[r][c] += a[r] * b[c];
  }
  const double xx = S[0][0], xy = S[0][1], xz = S[0][2], yx = S[1][0], yy = S[1][1], yz = S[1][2], zx = S[2][0],
               zy = S[2][1], zz = S[2][2];
  // Horn's N (his Section 4): its largest eigenvector is the rotation's unit quaternion
  double N[4][4] = {{xx + yy + zz, yz - zy, zx - xz, xy - yx},
                    {yz - zy, xx - yy - zz, xy + yx, zx + xz},
                    {zx - xz, xy + yx, -xx + yy - zz, yz + zy},
                    {xy - yx, zx + xz, yz + zy, -xx - yy + zz}};
  double q[4];
  rigid_fit_detail::largest_eigenvector(N, q);
  const double len = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(len > 0)) return f;
  const double qw = q[0] / len, x = q[1] / len, y = q[2] / len, z = q[3] / len;
  f.R.m[0][0] = 1 - 2 * (y * y + z * z), f.R.m[0][1] = 2 * (x * y - qw * z), f.R.m[0][2] = 2 * (x * z + qw * y);
  f.R.m[1][0] = 2 * (x * y + qw * z), f.R.m[1][1] = 1 - 2 * (x * x + z * z), f.R.m[1][2] = 2 * (y * z - qw * x);
  f.R.m[2][0] = 2 * (x * z - qw * y), f.R.m[2][1] = 2 * (y * z + qw * x), f.R.m[2][2] = 1 - 2 * (x * x + y * y);
  return f;
}

/// m: the largest distance between where f carries a point of p0 and its p1.
inline double largest_miss(const RigidFit& f, const std::vector<Vec3d>& p0, const std::vector<Vec3d>& p1) {
  double r2 = 0;
  for (size_t i = 0; i < p0.size(); ++i) {
    const Vec3d e = f.apply(p0[i]) - p1[i];
    r2 = std::max(r2, dot(e, e));
  }
  return std::sqrt(r2);
}

}  // namespace cb::icloth
