// Triangle membrane: orthotropic stretch/shear energy in the continuum form of
// Baraff & Witkin 1998 (Sec. 4.2-4.3), written on the deformation gradient.
//
// Each rest triangle gets a 2D material frame (warp u = the direction in which
// the texture coordinate u grows, weft v = normal x u). With w_u = F e_u and
// w_v = F e_v the two columns of the 3x2 deformation gradient, both linear in the
// positions (w_u = sum_i a_i x_i, w_v = sum_i b_i x_i), the energy is
//   E = A * [ k_u/2 (|w_u| - 1)^2 + k_v/2 (|w_v| - 1)^2 + k_s/2 (w_u . w_v)^2 ]
// with A the rest area (m^2). Mapping from the Material (both N/m):
//   k_u = stretch_stiffness (warp), k_v = stretch_stiffness * weft_ratio (weft),
//   k_s = shear_stiffness (w_u . w_v ~ the shear angle for small shear, so k_s
//   is the membrane shear modulus times the thickness).
// The exact Hessian is indefinite in compression; the "projected" Hessian used
// by the implicit solve clamps (1 - 1/|w|) at 0 and drops the (w_u . w_v) I
// shear coupling, which leaves a sum of positive semi-definite terms.
#pragma once

#include "sim/solvers/icloth/mat3.h"

namespace cb::icloth {

/// Rest data of one triangle (built once from the model).
struct TriRest {
  float a[3];      ///< w_u = sum a_i x_i (1/m)
  float b[3];      ///< w_v = sum b_i x_i (1/m)
  float area;      ///< m^2
  float ku, kv, ks;  ///< N/m: warp, weft, shear stiffness
};

/// Energy-space Hessian of one triangle: d2E/dw dw (w = (w_u, w_v)), times A.
template <class T>
struct MembraneW {
  M3T<T> uu, uv, vv;  ///< vu = uv^T
};

template <class T> CB_HD CB_INLINE Vec3T<T> tri_col(const T c[3], Vec3T<T> x0, Vec3T<T> x1, Vec3T<T> x2) {
  return x0 * c[0] + x1 * c[1] + x2 * c[2];
}

/// Energy (J) of the triangle with vertex positions x0, x1, x2 (m).
template <class T>
CB_HD inline T membrane_energy(const TriRest& r, Vec3T<T> x0, Vec3T<T> x1, Vec3T<T> x2) {
  const T a[3] = {T(r.a[0]), T(r.a[1]), T(r.a[2])}, b[3] = {T(r.b[0]), T(r.b[1]), T(r.b[2])};
  Vec3T<T> wu = tri_col(a, x0, x1, x2), wv = tri_col(b, x0, x1, x2);
  T su = length(wu) - T(1), sv = length(wv) - T(1), sh = dot(wu, wv);
  return T(r.area) * T(0.5) * (T(r.ku) * su * su + T(r.kv) * sv * sv + T(r.ks) * sh * sh);
}

// d2/dw2 of k/2 (|w| - 1)^2; `clamp` keeps it positive semi-definite
template <class T> CB_HD inline M3T<T> stretch_hessian(Vec3T<T> w, T k, bool clamp) {
  T l = length(w);
  if (!(l > T(1e-12))) return M3T<T>{};  // degenerate: no usable direction
  Vec3T<T> n = w / l;
  T c = T(1) - T(1) / l;
  if (clamp && c < T(0)) c = T(0);
  M3T<T> h = M3T<T>::identity(k * c);
  add_outer(h, k * (T(1) - c), n, n);
  return h;
}

/// Gradient dE/dx_i (J/m) of the three vertices and the w-space Hessian (exact
/// when `projected` is false, PSD when true).
template <class T>
CB_HD inline void membrane_grad_hess(const TriRest& r, const Vec3T<T> x[3], Vec3T<T> grad[3], MembraneW<T>* hw,
                                     bool projected) {
  const T a[3] = {T(r.a[0]), T(r.a[1]), T(r.a[2])}, b[3] = {T(r.b[0]), T(r.b[1]), T(r.b[2])};
  const T A = T(r.area), ku = T(r.ku), kv = T(r.kv), ks = T(r.ks);
  Vec3T<T> wu = tri_col(a, x[0], x[1], x[2]), wv = tri_col(b, x[0], x[1], x[2]);
  T lu = length(wu), lv = length(wv), sh = dot(wu, wv);
  Vec3T<T> gu = wv * (ks * sh), gv = wu * (ks * sh);
  if (lu > T(1e-12)) gu += wu * (ku * (lu - T(1)) / lu);
  if (lv > T(1e-12)) gv += wv * (kv * (lv - T(1)) / lv);
  for (int i = 0; i < 3; ++i) grad[i] = (gu * a[i] + gv * b[i]) * A;
  if (!hw) return;
  hw->uu = stretch_hessian(wu, ku, projected);
  add_outer(hw->uu, ks, wv, wv);
  hw->vv = stretch_hessian(wv, kv, projected);
  add_outer(hw->vv, ks, wu, wu);
  hw->uv = outer(wv, wu) * ks;  // d/dw_v of (k_s s w_v) ... rows: u, cols: v
  if (!projected) hw->uv += M3T<T>::identity(ks * sh);
  hw->uu = hw->uu * A;
  hw->vv = hw->vv * A;
  hw->uv = hw->uv * A;
}

/// Block (i, j) of d2E/dx dx from the w-space Hessian:
/// a_i a_j H_uu + a_i b_j H_uv + b_i a_j H_uv^T + b_i b_j H_vv.
template <class T>
CB_HD inline M3T<T> membrane_block(const TriRest& r, const MembraneW<T>& hw, int i, int j) {
  const T ai = T(r.a[i]), aj = T(r.a[j]), bi = T(r.b[i]), bj = T(r.b[j]);
  M3T<T> h;
  for (int p = 0; p < 3; ++p)
    for (int q = 0; q < 3; ++q)
      h.m[p][q] = ai * aj * hw.uu.m[p][q] + ai * bj * hw.uv.m[p][q] + bi * aj * hw.uv.m[q][p] + bi * bj * hw.vv.m[p][q];
  return h;
}

}  // namespace cb::icloth
