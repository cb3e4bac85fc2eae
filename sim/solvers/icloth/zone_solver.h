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
//
// The membrane (an addition to the paper, whose objective has no cloth in it):
// with ZoneSettings::membrane > 0 the objective also holds a one-sided spring on
// each cloth edge at a zone vertex,
//   + k_e/2 sum_e max(|x_a - x_b| - l_e, 0)^2,   k_e = membrane * (mean vertex mass),
// l_e the edge's length at the free end positions (times 1 + the allowed
// strain), the far end fixed where it is not a zone vertex. Without it a zone
// moves its colliding vertices alone: a resting vertex hit by a falling sheet
// is pushed through its own sheet's membrane while its neighbours stay, and the
// edges between them end the step stretched (up to 1.9 x on the 58^2 funnel).
// The term is convex and has no multiplier: the impacts stay the constraints
// that must hold, the membrane only chooses among the positions that meet them.
//
// Written for a team of threads (Algorithm 3: one GPU thread block per zone):
// every loop over the zone's vertices or impacts is strided by the team, sums and
// maxima are team reductions, and the gradient is gathered per vertex through the
// zone's incidence list (vertex -> its (impact, corner) entries in increasing
// impact order), so no two threads write one value. SerialTeam runs the same code
// on one CPU thread, with the sums in the order of a plain loop; the CUDA team
// is in zone_batch.cu.
#pragma once

#include <cstdint>

#include "sim/core/hd.h"
#include "sim/core/math.h"
#include "sim/solvers/icloth/collision_defaults.h"

namespace cb::icloth {

/// One impact inside a zone: local vertex ids (-1 = a fixed point).
struct ZoneImpact {
  int32_t lv[4] = {-1, -1, -1, -1};
  float w[4] = {0, 0, 0, 0};
  Vec3f fixed[4];  ///< m, position of each fixed point (lv < 0)
  Vec3f n;         ///< unit normal
  float d = 0;     ///< m, separation to reach
};

/// One cloth edge at a zone vertex (the membrane term): lv[0] is a zone vertex,
/// lv[1] another one or -1 for a fixed end at `fixed`.
struct ZoneEdge {
  int32_t lv[2] = {-1, -1};
  Vec3f fixed;     ///< m, the far end's position where lv[1] < 0
  float len = 0;   ///< m, the length beyond which the edge pulls back
};

/// Pointers to one zone's slice of the batch arrays.
struct ZoneView {
  int nv = 0, ni = 0, ne = 0;
  Vec3f* x = nullptr;              ///< (nv) m, in: the start guess (usually x~), out: the solution
  const Vec3f* xt = nullptr;       ///< (nv) m, x~: the unconstrained end positions
  const float* m = nullptr;        ///< (nv) kg
  const ZoneImpact* imp = nullptr; ///< (ni)
  const int* inc_off = nullptr;    ///< (nv + 1) vertex i's entries are inc[inc_off[i] - inc_off[0] ...)
  const ZoneEdge* edges = nullptr; ///< (ne) the membrane's edges
  /// entries 4 j + k (impact j, corner k), j increasing per vertex, then
  /// -(2 e + k) - 1 (edge e, end k), e increasing
  const int* inc = nullptr;
  float* lambda = nullptr;         ///< (ni) scratch
  float* ct = nullptr;             ///< (ni) scratch: c~_j of the current gradient
  Vec3f* g = nullptr;              ///< (nv) scratch
  Vec3f* xprev = nullptr;          ///< (nv) scratch
  Vec3f* xtry = nullptr;           ///< (nv) scratch
  float* D = nullptr;              ///< (nv) scratch
};

struct ZoneSettings {
  float mu = kZoneMu;         ///< penalty (Eq. 5), relative to the zone's mean vertex mass
  int max_iterations = kZoneIterations;
  float rho = kChebyshevRho;  ///< Chebyshev spectral radius (0 = off)
  int chebyshev_start = 10;
  float min_step = 1e-12f;    ///< m, max vertex displacement below which the descent stalls
  float rel_step = 1e-3f;     ///< ... or below this fraction of the largest correction (float positions)
  float tolerance = 0.1f;     ///< converged when every c_j >= -tolerance * d_j
  float membrane = 0.f;       ///< k_e of the membrane's edges, relative to the zone's mean vertex mass (0 = off)
};

struct ZoneResult {
  int iterations = 0;
  int restarts = 0;       ///< Chebyshev restarts (the extrapolation raised f)
  float min_c = 0;        ///< m, smallest c_j at exit
  bool converged = false;
};

/// A team of one: the CPU path (and the reference order of every sum).
struct SerialTeam {
  CB_HD int rank() const { return 0; }
  CB_HD int size() const { return 1; }
  CB_HD void sync() const {}
  CB_HD double sum(double v) const { return v; }
  CB_HD float max(float v) const { return v; }
  CB_HD float min(float v) const { return v; }
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

// edge e's vector x_a - x_b (b: the other zone vertex or the fixed end)
CB_HD inline Vec3f edge_vector(const Vec3f* x, const ZoneEdge& e) {
  return x[e.lv[0]] - (e.lv[1] >= 0 ? x[e.lv[1]] : e.fixed);
}

// the membrane's one-sided spring: its stretch beyond len (0 when within)
CB_HD inline float edge_stretch(const Vec3f& d, const ZoneEdge& e) {
  const float s = length(d) - e.len;
  return s > 0.f ? s : 0.f;
}

// f(x) of Eq. 5 plus the membrane (x: every vertex of the zone, synced)
template <class Team>
CB_HD inline double objective(const ZoneView& z, const Vec3f* x, float mu, float ke, const Team& t) {
  double f = 0;
  for (int i = t.rank(); i < z.nv; i += t.size()) f += 0.5 * double(z.m[i]) * double(length2(x[i] - z.xt[i]));
  for (int j = t.rank(); j < z.ni; j += t.size()) {
    double ct = ctilde(constraint(x, z.imp[j]), z.lambda[j], mu);
    f += 0.5 * double(mu) * ct * ct;
  }
  for (int e = t.rank(); e < z.ne; e += t.size()) {
    const double s = edge_stretch(edge_vector(x, z.edges[e]), z.edges[e]);
    f += 0.5 * double(ke) * s * s;
  }
  return t.sum(f);
}

// one membrane entry's gradient on its end k and its Jacobi diagonal term
// (k_e: the Gauss-Newton block k_e u u^T bounded by k_e I)
CB_HD inline void add_edge_gradient(const ZoneView& z, int entry, float ke, Vec3f& g, float& D) {
  const int code = -entry - 1, e = code >> 1, k = code & 1;
  const ZoneEdge& ed = z.edges[e];
  const Vec3f d = edge_vector(z.x, ed);
  const float s = edge_stretch(d, ed);
  if (s == 0.f) return;
  const float len = length(d);
  g += d * ((k == 0 ? ke : -ke) * s / len);
  D += ke;
}

// g = grad f, D = Jacobi diagonal of the Hessian: c~ per impact, then each
// vertex gathers its impacts' terms in increasing impact order
template <class Team>
CB_HD inline void gradient(const ZoneView& z, float mu, float ke, const Team& t) {
  for (int j = t.rank(); j < z.ni; j += t.size()) z.ct[j] = ctilde(constraint(z.x, z.imp[j]), z.lambda[j], mu);
  t.sync();
  const int base = z.inc_off[0];
  for (int i = t.rank(); i < z.nv; i += t.size()) {
    Vec3f g = (z.x[i] - z.xt[i]) * z.m[i];
    float D = z.m[i];
    for (int e = z.inc_off[i] - base; e < z.inc_off[i + 1] - base; ++e) {
      if (z.inc[e] < 0) {
        add_edge_gradient(z, z.inc[e], ke, g, D);
        continue;
      }
      const int j = z.inc[e] >> 2, k = z.inc[e] & 3;
      const float ct = z.ct[j];
      if (ct == 0.f) continue;
      const ZoneImpact& im = z.imp[j];
      g += im.n * (mu * ct * im.w[k]);
      D += mu * im.w[k] * im.w[k];
    }
    z.g[i] = g;
    z.D[i] = D;
  }
  t.sync();
}

// smallest c_j; *ok = every c_j >= -tol d_j
template <class Team>
CB_HD inline float min_constraint(const ZoneView& z, const Vec3f* x, float tol, bool* ok, const Team& t) {
  float mc = 1e30f, bad = 0.f;
  for (int j = t.rank(); j < z.ni; j += t.size()) {
    float c = constraint(x, z.imp[j]);
    mc = c < mc ? c : mc;
    if (c < -tol * z.imp[j].d) bad = 1.f;
  }
  mc = t.min(mc);
  *ok = t.max(bad) == 0.f;
  return z.ni ? mc : 0.f;
}

// one preconditioned descent step with backtracking; returns the max displacement
template <class Team>
CB_HD inline float descent_step(const ZoneView& z, float mu, float ke, const Team& t) {
  gradient(z, mu, ke, t);
  const double f0 = objective(z, z.x, mu, ke, t);
  double gd = 0;
  for (int i = t.rank(); i < z.nv; i += t.size()) gd -= double(length2(z.g[i])) / double(z.D[i]);
  gd = t.sum(gd);
  float alpha = 1.f;
  for (int ls = 0; ls < 30; ++ls, alpha *= 0.5f) {
    for (int i = t.rank(); i < z.nv; i += t.size()) z.xtry[i] = z.x[i] - z.g[i] * (alpha / z.D[i]);
    t.sync();
    if (objective(z, z.xtry, mu, ke, t) <= f0 + 1e-4 * double(alpha) * gd) break;
  }
  float step = 0;
  for (int i = t.rank(); i < z.nv; i += t.size()) {
    float s = length(z.xtry[i] - z.x[i]);
    step = s > step ? s : step;
  }
  return t.max(step);
}

}  // namespace zone_detail

/// Solves one zone in place with team t (z.x starts as x~ when the caller copies
/// it there). Stops early once every constraint holds (c_j >= 0) at a
/// multiplier update. Every member of the team returns the same result.
template <class Team>
CB_HD inline ZoneResult solve_zone(const ZoneView& z, const ZoneSettings& s, const Team& t) {
  using namespace zone_detail;
  ZoneResult r;
  float mean_mass = 0.f;
  for (int i = t.rank(); i < z.nv; i += t.size()) mean_mass += z.m[i] / float(z.nv);
  mean_mass = float(t.sum(mean_mass));
  const float mu = s.mu * (mean_mass > 0.f ? mean_mass : 1.f);
  const float ke = s.membrane * (mean_mass > 0.f ? mean_mass : 1.f);
  for (int j = t.rank(); j < z.ni; j += t.size()) z.lambda[j] = 0.f;
  for (int i = t.rank(); i < z.nv; i += t.size()) z.xprev[i] = z.x[i];
  t.sync();
  float omega = 1.f;
  int cheb_from = s.chebyshev_start;
  bool ok = false;
  for (int it = 0; it < s.max_iterations; ++it) {
    r.iterations = it + 1;
    float step = descent_step(z, mu, ke, t);  // x_try = x - alpha D^-1 g
    // Chebyshev semi-iteration (Eq. 8) on top of the descent step; when the
    // extrapolated point raises f, it is dropped and the sequence restarts
    if (s.rho > 0.f && it >= cheb_from) {
      omega = it == cheb_from ? 2.f / (2.f - s.rho * s.rho) : 4.f / (4.f - s.rho * s.rho * omega);
      const double f_try = objective(z, z.xtry, mu, ke, t);
      for (int i = t.rank(); i < z.nv; i += t.size()) z.g[i] = (z.xtry[i] - z.xprev[i]) * omega + z.xprev[i];
      t.sync();
      if (objective(z, z.g, mu, ke, t) <= f_try) {
        for (int i = t.rank(); i < z.nv; i += t.size()) z.xtry[i] = z.g[i];
      } else {
        cheb_from = it + 1 + s.chebyshev_start;
        r.restarts++;
      }
    }
    float moved = 0.f;  // largest correction so far, the scale for "the step is small"
    for (int i = t.rank(); i < z.nv; i += t.size()) {
      z.xprev[i] = z.x[i];
      z.x[i] = z.xtry[i];
      moved = fmaxf(moved, length(z.x[i] - z.xt[i]));
    }
    moved = t.max(moved);  // (also syncs the new x)
    const bool stalled = step < s.min_step || step < s.rel_step * moved;
    if (stalled || (it + 1) % 10 == 0) {  // multiplier update lambda <- -mu c~
      for (int j = t.rank(); j < z.ni; j += t.size())
        z.lambda[j] = -mu * ctilde(constraint(z.x, z.imp[j]), z.lambda[j], mu);
      t.sync();
      float mc = min_constraint(z, z.x, s.tolerance, &ok, t);
      if (stalled && (ok || mc >= 0.f)) break;
    }
  }
  r.min_c = min_constraint(z, z.x, s.tolerance, &ok, t);
  r.converged = ok;
  return r;
}

}  // namespace cb::icloth
