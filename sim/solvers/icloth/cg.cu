// Preconditioned conjugate gradient (see cg.h).
#include "sim/solvers/icloth/cg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb::icloth {

void CgScratch::resize(const Context& ctx, size_t n) {
  if (r.size() == n && r.context().backend == ctx.backend) return;
  r.resize(ctx, n);
  z.resize(ctx, n);
  p.resize(ctx, n);
  q.resize(ctx, n);
  P.resize(ctx, n);
  dots.resize(ctx, n);
  scalars.resize(ctx, 1);
}

void dot3(const Context& ctx, const Vec3f* a, const Vec3f* b, int n, CgScratch& s, double* out) {
  float* d = s.dots.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { d[i] = dot(a[i], b[i]); });
  reduce_sum_to(ctx, d, size_t(n), out, s.reduce);
}

namespace {

// r = S (b - A x); z = P r; p = z
void cg_start(const Context& ctx, int n, const Vec3f* b, const Vec3f* ax, const float* w, const M3* P, Vec3f* r,
              Vec3f* z, Vec3f* p) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Vec3f ri = w[i] == 0.f ? Vec3f{} : b[i] - ax[i];
    r[i] = ri;
    z[i] = P[i] * ri;
    p[i] = z[i];
  });
}

// y = P S b
void block_times(const Context& ctx, int n, const M3* P, const Vec3f* b, const float* w, Vec3f* y) {
  parallel_for(ctx, n, [=] CB_HD(int i) { y[i] = w[i] == 0.f ? Vec3f{} : P[i] * b[i]; });
}

// the tolerance is relative to the right-hand side (P-norm of S b), so that a
// guess that is already good (a cloth at rest) costs no iterations
void cg_init_scalars(const Context& ctx, CgScalars* s, int max_iter, float tol) {
  parallel_for(ctx, 1, [=] CB_HD(int) {
    s->tol2 = double(tol) * double(tol) * s->rz0;
    s->iterations = 0;
    s->max_iterations = max_iter;
    s->done = !(s->rz > s->tol2 && s->rz > 0) || max_iter <= 0;
  });
}

// after p.q: stop when A is not positive definite along p (or p = 0)
void cg_check_pq(const Context& ctx, CgScalars* s) {
  parallel_for(ctx, 1, [=] CB_HD(int) {
    if (!s->done && !(s->pq > 0)) s->done = 1;
  });
}

// x += a p; r -= a q; z = P r with a = r.z / p.q
void cg_update(const Context& ctx, int n, const CgScalars* s, const Vec3f* p, const Vec3f* q, const M3* P, Vec3f* x,
               Vec3f* r, Vec3f* z) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (s->done) return;
    const float a = float(s->rz / s->pq);
    x[i] += p[i] * a;
    r[i] -= q[i] * a;
    z[i] = P[i] * r[i];
  });
}

// after the new r.z (in *rz_new): beta, the count, the convergence test
void cg_advance(const Context& ctx, CgScalars* s, const double* rz_new) {
  parallel_for(ctx, 1, [=] CB_HD(int) {
    if (s->done) return;
    const double rz = *rz_new;  // rz_new may alias beta
    s->beta = rz / s->rz;
    s->rz = rz;
    s->iterations++;
    if (s->iterations >= s->max_iterations || !(s->rz > s->tol2 && s->rz > 0)) s->done = 2;
  });
}

// p = z + beta p (skipped once done: the direction is not used again)
void cg_direction(const Context& ctx, int n, const CgScalars* s, const Vec3f* z, Vec3f* p) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (s->done) return;
    p[i] = z[i] + p[i] * float(s->beta);
  });
}

}  // namespace

CgResult pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                   float tol) {
  const int n = A.pat.nverts;
  s.resize(ctx, size_t(n));
  CgScalars* sc = s.scalars.data();
  block_jacobi(ctx, A, s.P.data());
  apply_system(ctx, A, x, s.q.data());
  cg_start(ctx, n, b, s.q.data(), A.inv_mass, s.P.data(), s.r.data(), s.z.data(), s.p.data());
  dot3(ctx, s.r.data(), s.z.data(), n, s, &sc->rz);
  block_times(ctx, n, s.P.data(), b, A.inv_mass, s.q.data());
  dot3(ctx, b, s.q.data(), n, s, &sc->rz0);
  cg_init_scalars(ctx, sc, max_iter, tol);
  // rz_new goes to beta's slot first; cg_advance turns it into beta
  double* rz_new = &sc->beta;
  std::vector<CgScalars> host = s.scalars.to_host();
  for (int launched = 0; !host[0].done && launched < max_iter; launched += kCgBatch) {
    for (int k = 0; k < kCgBatch; ++k) {
      apply_system(ctx, A, s.p.data(), s.q.data());
      dot3(ctx, s.p.data(), s.q.data(), n, s, &sc->pq);
      cg_check_pq(ctx, sc);
      cg_update(ctx, n, sc, s.p.data(), s.q.data(), s.P.data(), x, s.r.data(), s.z.data());
      dot3(ctx, s.r.data(), s.z.data(), n, s, rz_new);
      cg_advance(ctx, sc, rz_new);
      cg_direction(ctx, n, sc, s.z.data(), s.p.data());
    }
    s.scalars.download(host);
  }
  CgResult res;
  res.iterations = host[0].iterations;
  res.rel_residual = host[0].rz0 > 0 ? std::sqrt(std::max(host[0].rz, 0.0) / host[0].rz0) : 0.0;
  return res;
}

}  // namespace cb::icloth
