// Preconditioned conjugate gradient (see cg.h).
#include "sim/solvers/icloth/cg.h"

#include <algorithm>
#include <cmath>

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
}

double dot3(const Context& ctx, const Vec3f* a, const Vec3f* b, int n, float* scratch) {
  parallel_for(ctx, n, [=] CB_HD(int i) { scratch[i] = dot(a[i], b[i]); });
  return reduce_sum(ctx, scratch, size_t(n));
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

// x += a p; r -= a q; z = P r
void cg_update(const Context& ctx, int n, float a, const Vec3f* p, const Vec3f* q, const M3* P, Vec3f* x, Vec3f* r,
               Vec3f* z) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    x[i] += p[i] * a;
    r[i] -= q[i] * a;
    z[i] = P[i] * r[i];
  });
}

// y = P S b
void block_times(const Context& ctx, int n, const M3* P, const Vec3f* b, const float* w, Vec3f* y) {
  parallel_for(ctx, n, [=] CB_HD(int i) { y[i] = w[i] == 0.f ? Vec3f{} : P[i] * b[i]; });
}

void cg_direction(const Context& ctx, int n, float beta, const Vec3f* z, Vec3f* p) {
  parallel_for(ctx, n, [=] CB_HD(int i) { p[i] = z[i] + p[i] * beta; });
}

}  // namespace

CgResult pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                   float tol) {
  const int n = A.pat.nverts;
  s.resize(ctx, size_t(n));
  block_jacobi(ctx, A, s.P.data());
  apply_system(ctx, A, x, s.q.data());
  cg_start(ctx, n, b, s.q.data(), A.inv_mass, s.P.data(), s.r.data(), s.z.data(), s.p.data());
  double rz = dot3(ctx, s.r.data(), s.z.data(), n, s.dots.data());
  // the tolerance is relative to the right-hand side (P-norm of S b), so that a
  // guess that is already good (a cloth at rest) costs no iterations
  block_times(ctx, n, s.P.data(), b, A.inv_mass, s.q.data());
  const double rz0 = dot3(ctx, b, s.q.data(), n, s.dots.data());
  CgResult res;
  while (res.iterations < max_iter && rz > double(tol) * double(tol) * rz0 && rz > 0) {
    apply_system(ctx, A, s.p.data(), s.q.data());
    double pq = dot3(ctx, s.p.data(), s.q.data(), n, s.dots.data());
    if (!(pq > 0)) break;  // not positive definite along p (or zero): stop with what we have
    cg_update(ctx, n, float(rz / pq), s.p.data(), s.q.data(), s.P.data(), x, s.r.data(), s.z.data());
    double rz_new = dot3(ctx, s.r.data(), s.z.data(), n, s.dots.data());
    cg_direction(ctx, n, float(rz_new / rz), s.z.data(), s.p.data());
    rz = rz_new;
    res.iterations++;
  }
  res.rel_residual = rz0 > 0 ? std::sqrt(std::max(rz, 0.0) / rz0) : 0.0;
  return res;
}

}  // namespace cb::icloth
