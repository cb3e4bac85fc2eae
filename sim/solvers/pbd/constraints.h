// XPBD constraint projections (host and device), one constraint at a time.
//
// XPBD (Macklin, Mueller, Chentanez 2016, eqs. 17-18): for a constraint C(x) with
// compliance alpha (inverse stiffness) and time step h, alpha~ = alpha / h^2,
//   dlambda = (-C(x) - alpha~ lambda) / (sum_i w_i |grad_i C|^2 + alpha~),
//   dx_i    = w_i grad_i C dlambda,   lambda += dlambda,
// with lambda reset to 0 at the start of every (sub)step. Stiffness then does not
// depend on the iteration count or the time step.
//
// Bending: the isometric (quadratic) bending model of Bergou, Wardetzky, Harmon,
// Zorin, Grinspun 2006 ("A quadratic bending model for inextensible surfaces").
// For a hinge (a, b: shared edge; c, d: opposite vertices) v(x) = sum_i K_i x_i is
// the integrated mean-curvature normal (cotangent weights, see isometric_stencil),
// and the hinge energy is E = 1/2 * 3 B / (A0 + A1) * |v|^2 / kappa_cal, a
// discretisation of 1/2 B integral |Laplace x|^2 dA = 1/2 B integral kappa^2 dA for
// isometric bending (B: bending stiffness per unit width, N m). v is linear in x,
// so the constraint C = v (three rows, Jacobian K_i I) is projected exactly by one
// XPBD step with compliance alpha = kappa_cal (A0 + A1) / (3 B).
#pragma once

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb::pbd {

/// Cotangent of the angle at p in triangle (p, q, r); 0 for a degenerate triangle.
CB_HD CB_INLINE float cot_at(Vec3f p, Vec3f q, Vec3f r) {
  Vec3f u = q - p, w = r - p;
  float s = length(cross(u, w));
  return s > 0.f ? dot(u, w) / s : 0.f;
}

/// Isometric-bending stencil of the hinge (a, b shared; c, d opposite) at rest:
/// k[0..3] multiply a, b, c, d. Sums to 0; sum k_i x_i = 0 for any flat hinge.
CB_HD CB_INLINE void isometric_stencil(Vec3f a, Vec3f b, Vec3f c, Vec3f d, float k[4]) {
  float ca0 = cot_at(a, b, c), cb0 = cot_at(b, a, c);  // triangle (a, b, c)
  float ca1 = cot_at(a, b, d), cb1 = cot_at(b, a, d);  // triangle (a, b, d)
  k[0] = -(cb0 + cb1);
  k[1] = -(ca0 + ca1);
  k[2] = ca0 + cb0;
  k[3] = ca1 + cb1;
}

/// XPBD distance constraint C = |xb - xa| - rest on one edge. Updates xa, xb and
/// lambda (N s^2); alpha_t = compliance / h^2. Returns the applied n * dlambda
/// (the correction direction times the multiplier step; xa -= wa * it, xb += wb * it).
CB_HD CB_INLINE Vec3f distance_step(Vec3f xa, Vec3f xb, float wa, float wb, float rest, float alpha_t,
                                    float lambda, float* dlambda_out) {
  Vec3f d = xb - xa;
  float len = length(d);
  float wsum = wa + wb;
  *dlambda_out = 0.f;
  if (len <= 0.f || wsum + alpha_t <= 0.f) return Vec3f{};
  float c = len - rest;
  float dl = (-c - alpha_t * lambda) / (wsum + alpha_t);
  *dlambda_out = dl;
  return d * (dl / len);
}

/// XPBD isometric-bending step on one hinge (x[0..3] = a, b, c, d). rest_norm = |v|
/// at rest: 0 for a flat rest hinge (vector constraint C = v), otherwise the
/// scalar constraint C = |v| - rest_norm with lambda along lambda.x. Returns the
/// vector u with dx_i = w_i k_i u; *dlambda receives the multiplier step.
CB_HD CB_INLINE Vec3f bend_step(const Vec3f x[4], const float w[4], const float k[4], float rest_norm, float alpha_t,
                                Vec3f lambda, Vec3f* dlambda) {
  Vec3f v = x[0] * k[0] + x[1] * k[1] + x[2] * k[2] + x[3] * k[3];
  float denom = w[0] * k[0] * k[0] + w[1] * k[1] * k[1] + w[2] * k[2] * k[2] + w[3] * k[3] * k[3] + alpha_t;
  *dlambda = Vec3f{};
  if (denom <= 0.f) return Vec3f{};
  if (rest_norm <= 0.f) {  // flat rest: linear vector constraint, exact in one step
    Vec3f dl = (v + lambda * alpha_t) * (-1.f / denom);
    *dlambda = dl;
    return dl;
  }
  float vn = length(v);
  if (vn <= 0.f) return Vec3f{};
  float dl = (-(vn - rest_norm) - alpha_t * lambda.x) / denom;
  *dlambda = Vec3f{dl, 0.f, 0.f};
  return v * (dl / vn);
}

/// Residual of a distance constraint after projection: |C + alpha~ lambda| (m).
CB_HD CB_INLINE float distance_residual(Vec3f xa, Vec3f xb, float rest, float alpha_t, float lambda) {
  return std::fabs(length(xb - xa) - rest + alpha_t * lambda);
}

/// Residual of a bending constraint: |C + alpha~ lambda| (m).
CB_HD CB_INLINE float bend_residual(const Vec3f x[4], const float k[4], float rest_norm, float alpha_t, Vec3f lambda) {
  Vec3f v = x[0] * k[0] + x[1] * k[1] + x[2] * k[2] + x[3] * k[3];
  if (rest_norm <= 0.f) return length(v + lambda * alpha_t);
  return std::fabs(length(v) - rest_norm + alpha_t * lambda.x);
}

}  // namespace cb::pbd
