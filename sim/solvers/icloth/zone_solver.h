// The non-linear impact-zone solver of I-Cloth (Tang et al. 2018, Sec. 4).
// For the vertices of one zone, find the positions x closest to the
// unconstrained end-of-step positions x~ in the mass norm, subject to the
// linearised non-penetration constraints of its impacts (Eq. 1-3)
//   c_j(x) = n_j . sum_k w_jk x_jk - d_j >= 0
// (VF: w = (1, -b_a, -b_b, -b_c) for the vertex and the triangle's barycentrics;
//  EE: w = (1-s, s, -(1-t), -t); n_j the contact normal at the time of impact).
// Augmented Lagrangian (Eq. 5-6):
//   f(x) = 1/2 sum_i m_i |x_i - x~_i|^2 + mu/2 sum_j c~_j^2,  c~_j = min(c_j - lambda_j / mu, 0),
// where mu = mu_rel * (mean vertex mass of the zone): the paper's mu = 1e3 is
// taken relative to the masses so that the same value works for any cloth density.
// minimised by Jacobi-preconditioned gradient descent with a backtracking line
// search (Eq. 7) and Chebyshev acceleration from iteration 10 (Eq. 8); the
// multipliers are updated lambda_j <- -mu c~_j when the descent stalls and every
// 10 iterations. Stops after max_iterations, or when the constraints hold and the
// step is below min_step (1e-12 m as in the paper) or, since positions are
// floats, below rel_step times the largest correction made.
// Points of an impact that are not zone vertices (obstacle vertices, pins) are fixed.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/math.h"

namespace cb::icloth {

/// One impact inside a zone: local vertex ids (-1 = a fixed point).
struct ZoneImpact {
  int32_t lv[4] = {-1, -1, -1, -1};
  float w[4] = {0, 0, 0, 0};
  Vec3f fixed[4];  ///< m, position of each fixed point (lv < 0)
  Vec3f n;         ///< unit normal
  float d = 0;     ///< m, separation to reach
};

/// Pointers to one zone's slice of the batch arrays.
struct ZoneView {
  int nv = 0, ni = 0;
  Vec3f* x = nullptr;              ///< (nv) m, out: the solution
  const Vec3f* xt = nullptr;       ///< (nv) m, x~: the unconstrained end positions
  const float* m = nullptr;        ///< (nv) kg
  const ZoneImpact* imp = nullptr; ///< (ni)
  float* lambda = nullptr;         ///< (ni) scratch
  Vec3f* g = nullptr;              ///< (nv) scratch
  Vec3f* xprev = nullptr;          ///< (nv) scratch
  Vec3f* xtry = nullptr;           ///< (nv) scratch
  float* D = nullptr;              ///< (nv) scratch
};

struct ZoneSettings {
  float mu = 1e3f;            ///< penalty (Eq. 5), relative to the zone's mean vertex mass
  int max_iterations = 100;
  float rho = 0.9992f;        ///< Chebyshev spectral radius (0 = off)
  int chebyshev_start = 10;
  float min_step = 1e-12f;    ///< m, max vertex displacement below which the descent stalls
  float rel_step = 1e-3f;     ///< ... or below this fraction of the largest correction (float positions)
  float tolerance = 0.1f;     ///< converged when every c_j >= -tolerance * d_j
};

struct ZoneResult {
  int iterations = 0;
  int restarts = 0;       ///< Chebyshev restarts (the extrapolation raised f)
  float min_c = 0;        ///< m, smallest c_j at exit
  bool converged = false;
};

namespace zone_detail {

CB_HD inline Vec3f point(const Vec3f* x, const ZoneImpact& im, int k) {
  return im.lv[k] >= 0 ? x[im.lv[k]] : im.fixed[k];
}

CB_HD inline float constraint(const Vec3f* x, const ZoneImpact& im) {
  Vec3f s{};
  for (int k = 0; k < 4; ++k)
    if (im.w[k] != 0.f) s += point(x, im, k) * im.w[k];
  return dot(im.n, s) - im.d;
}

CB_HD inline float ctilde(float c, float lambda, float mu) {
  float v = c - lambda / mu;
  return v < 0.f ? v : 0.f;
}

CB_HD inline double objective(const ZoneView& z, const Vec3f* x, float mu) {
  double f = 0;
  for (int i = 0; i < z.nv; ++i) f += 0.5 * double(z.m[i]) * double(length2(x[i] - z.xt[i]));
  for (int j = 0; j < z.ni; ++j) {
    double ct = ctilde(constraint(x, z.imp[j]), z.lambda[j], mu);
    f += 0.5 * double(mu) * ct * ct;
  }
  return f;
}

// g = grad f, D = Jacobi diagonal of the Hessian
CB_HD inline void gradient(const ZoneView& z, float mu) {
  for (int i = 0; i < z.nv; ++i) {
    z.g[i] = (z.x[i] - z.xt[i]) * z.m[i];
    z.D[i] = z.m[i];
  }
  for (int j = 0; j < z.ni; ++j) {
    const ZoneImpact& im = z.imp[j];
    float ct = ctilde(constraint(z.x, im), z.lambda[j], mu);
    if (ct == 0.f) continue;
    for (int k = 0; k < 4; ++k)
      if (im.lv[k] >= 0) {
        z.g[im.lv[k]] += im.n * (mu * ct * im.w[k]);
        z.D[im.lv[k]] += mu * im.w[k] * im.w[k];
      }
  }
}

// smallest c_j; *ok = every c_j >= -tol d_j
CB_HD inline float min_constraint(const ZoneView& z, const Vec3f* x, float tol, bool* ok) {
  float mc = 1e30f;
  *ok = true;
  for (int j = 0; j < z.ni; ++j) {
    float c = constraint(x, z.imp[j]);
    mc = c < mc ? c : mc;
    if (c < -tol * z.imp[j].d) *ok = false;
  }
  return z.ni ? mc : 0.f;
}

// one preconditioned descent step with backtracking; returns the max displacement
CB_HD inline float descent_step(const ZoneView& z, float mu) {
  gradient(z, mu);
  const double f0 = objective(z, z.x, mu);
  double gd = 0;
  for (int i = 0; i < z.nv; ++i) gd -= double(length2(z.g[i])) / double(z.D[i]);
  float alpha = 1.f;
  for (int ls = 0; ls < 30; ++ls, alpha *= 0.5f) {
    for (int i = 0; i < z.nv; ++i) z.xtry[i] = z.x[i] - z.g[i] * (alpha / z.D[i]);
    if (objective(z, z.xtry, mu) <= f0 + 1e-4 * double(alpha) * gd) break;
  }
  float step = 0;
  for (int i = 0; i < z.nv; ++i) {
    float s = length(z.xtry[i] - z.x[i]);
    step = s > step ? s : step;
  }
  return step;
}

}  // namespace zone_detail

/// Solves one zone in place (z.x starts as x~ when the caller copies it there).
/// Stops early once every constraint holds (c_j >= 0) at a multiplier update.
CB_HD inline ZoneResult solve_zone(const ZoneView& z, const ZoneSettings& s) {
  using namespace zone_detail;
  ZoneResult r;
  float mean_mass = 0.f;
  for (int i = 0; i < z.nv; ++i) mean_mass += z.m[i] / float(z.nv);
  const float mu = s.mu * (mean_mass > 0.f ? mean_mass : 1.f);
  for (int j = 0; j < z.ni; ++j) z.lambda[j] = 0.f;
  for (int i = 0; i < z.nv; ++i) z.xprev[i] = z.x[i];
  float omega = 1.f;
  int cheb_from = s.chebyshev_start;
  bool ok = false;
  for (int it = 0; it < s.max_iterations; ++it) {
    r.iterations = it + 1;
    float step = descent_step(z, mu);  // x_try = x - alpha D^-1 g
    // Chebyshev semi-iteration (Eq. 8) on top of the descent step; when the
    // extrapolated point raises f, it is dropped and the sequence restarts
    if (s.rho > 0.f && it >= cheb_from) {
      omega = it == cheb_from ? 2.f / (2.f - s.rho * s.rho) : 4.f / (4.f - s.rho * s.rho * omega);
      const double f_try = objective(z, z.xtry, mu);
      for (int i = 0; i < z.nv; ++i) z.g[i] = (z.xtry[i] - z.xprev[i]) * omega + z.xprev[i];
      if (objective(z, z.g, mu) <= f_try) {
        for (int i = 0; i < z.nv; ++i) z.xtry[i] = z.g[i];
      } else {
        cheb_from = it + 1 + s.chebyshev_start;
        r.restarts++;
      }
    }
    for (int i = 0; i < z.nv; ++i) {
      z.xprev[i] = z.x[i];
      z.x[i] = z.xtry[i];
    }
    float moved = 0.f;  // largest correction so far, the scale for "the step is small"
    for (int i = 0; i < z.nv; ++i) moved = fmaxf(moved, length(z.x[i] - z.xt[i]));
    const bool stalled = step < s.min_step || step < s.rel_step * moved;
    if (stalled || (it + 1) % 10 == 0) {  // multiplier update lambda <- -mu c~
      for (int j = 0; j < z.ni; ++j) z.lambda[j] = -mu * ctilde(constraint(z.x, z.imp[j]), z.lambda[j], mu);
      float mc = min_constraint(z, z.x, s.tolerance, &ok);
      if (stalled && (ok || mc >= 0.f)) break;
    }
  }
  r.min_c = min_constraint(z, z.x, s.tolerance, &ok);
  r.converged = ok;
  return r;
}

}  // namespace cb::icloth
