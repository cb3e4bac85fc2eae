// Dihedral-angle bending in the discrete-shells form (Grinspun et al. 2003), with
// the angle gradient of Bridson et al. 2003 (Sec. 4):
//   E = k_b (theta - theta_0)^2,   k_b = 3/2 B |e|^2 / (A_1 + A_2)
// B = Material::bend_stiffness (N m), |e| the rest length of the shared edge and
// A_1, A_2 the rest areas of its two triangles: the hinge covers a third of both
// triangles, over which the curvature is theta / (that area / |e|), so E equals
// 1/2 B kappa^2 times the hinge area.
// Vertices: a, b on the shared edge, c opposite in triangle 1, d in triangle 2.
// theta is signed, 0 when flat, measured between N1 = e x (c - a) and N2 = (d - a) x e.
// The implicit solve uses the Gauss-Newton Hessian 2 k_b grad(theta) grad(theta)^T
// (PSD; exact where theta = theta_0); the dropped term is 2 k_b (theta - theta_0) Hess(theta).
#pragma once

#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {

struct BendRest {
  float theta0;  ///< rad, rest dihedral angle
  float kb;      ///< J/rad^2, 3/2 B |e|^2 / (A1 + A2)
};

/// Signed dihedral angle (rad) of the hinge (a, b | c, d).
template <class T>
CB_HD inline T dihedral_angle(Vec3T<T> xa, Vec3T<T> xb, Vec3T<T> xc, Vec3T<T> xd) {
  Vec3T<T> e = xb - xa;
  Vec3T<T> n1 = cross(e, xc - xa), n2 = cross(xd - xa, e);
  T le = length(e);
  if (!(le > T(0))) return T(0);
  T s = dot(cross(n1, n2), e) / le;
  T c = dot(n1, n2);
  return std::atan2(s, c);
}

/// d theta / d x for (a, b, c, d) (1/m). Zero for a degenerate hinge.
template <class T>
CB_HD inline void dihedral_gradient(Vec3T<T> xa, Vec3T<T> xb, Vec3T<T> xc, Vec3T<T> xd, Vec3T<T> g[4]) {
  Vec3T<T> e = xb - xa;
  Vec3T<T> n1 = cross(e, xc - xa), n2 = cross(xd - xa, e);
  T le = length(e), q1 = length2(n1), q2 = length2(n2);
  if (!(le > T(0)) || !(q1 > T(0)) || !(q2 > T(0))) {
    for (int k = 0; k < 4; ++k) g[k] = Vec3T<T>{};
    return;
  }
  Vec3T<T> u1 = n1 / q1, u2 = n2 / q2;  // N / |N|^2
  Vec3T<T> eh = e / le;
  g[2] = u1 * (-le);
  g[3] = u2 * (-le);
  g[0] = -(u1 * dot(xc - xb, eh) + u2 * dot(xd - xb, eh));
  g[1] = u1 * dot(xc - xa, eh) + u2 * dot(xd - xa, eh);
}

/// Bending energy (J).
template <class T>
CB_HD inline T bending_energy(const BendRest& r, const Vec3T<T> x[4]) {
  T d = dihedral_angle(x[0], x[1], x[2], x[3]) - T(r.theta0);
  return T(r.kb) * d * d;
}

/// Energy gradient dE/dx (J/m) and the Gauss-Newton Hessian factor: block (i, j)
/// of the Hessian is hs * gt[i] gt[j]^T, with gt = d theta / dx and hs = 2 k_b.
template <class T>
CB_HD inline void bending_grad(const BendRest& r, const Vec3T<T> x[4], Vec3T<T> grad[4], Vec3T<T> gt[4], T* hs) {
  dihedral_gradient(x[0], x[1], x[2], x[3], gt);
  T d = dihedral_angle(x[0], x[1], x[2], x[3]) - T(r.theta0);
  for (int k = 0; k < 4; ++k) grad[k] = gt[k] * (T(2) * T(r.kb) * d);
  *hs = T(2) * T(r.kb);
}

}  // namespace cb::icloth
