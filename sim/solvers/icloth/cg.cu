// Preconditioned conjugate gradient (see cg.h).
#include "sim/solvers/icloth/cg.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"
#include "sim/core/rows_sum.h"

namespace cb::icloth {

void CgScratch::resize(const Context& ctx, size_t n) {
  if (r.size() == n && r.context().backend == ctx.backend) return;
  r.resize(ctx, n);
  z.resize(ctx, n);
  p.resize(ctx, n);
  q.resize(ctx, n);
  p_next.resize(ctx, n);
  P.resize(ctx, split_blocks(n));  // in A's layout (block_jacobi)
  scalars.resize(ctx, 1);
}

namespace {

// The CG's per-row work is written as named functors, not CB_HD lambdas: on the
// CPU backend a lambda's indirect call per row cost about as much as a short
// row's arithmetic (parallel.h). Same arithmetic, same bits.

// r = S (b - A x); z = P r; p = z; the row's r.z (S: the pin filter)
struct StartRow {
  SystemView a;
  const Vec3f *b, *x;
  const M3* P;
  Vec3f *r, *z, *p;
  CB_HD float operator()(int i) const {
    const Vec3f ri = a.inv_mass[i] == 0.f ? Vec3f{} : b[i] - system_row(a, x, i);
    r[i] = ri;
    z[i] = load_block(P, uint32_t(i), a.pat.split) * ri;
    p[i] = z[i];
    return dot(ri, z[i]);
  }
};

// Lanes threads a row (rows_sum_lanes): lane l's share of q = A p
template <int Lanes>
struct ProductPart {
  SystemView a;
  const Vec3f* p;
  const CgScalars* sc;
  CB_HD Vec3f operator()(int i, int lane) const {
    return sc->done ? Vec3f{} : system_row_part(a, p, i, uint32_t(lane), uint32_t(Lanes));
  }
};

// the shares' sum q_i stored; the row's p.q (0 once the solve is done)
struct ProductSum {
  const Vec3f* p;
  Vec3f* q;
  const CgScalars* sc;
  CB_HD float operator()(int i, Vec3f qi) const {
    if (sc->done) return 0.f;
    q[i] = qi;
    return dot(p[i], qi);
  }
};

// q = A p one thread a row (rows_sum): the one share, stored; the row's p.q
struct ProductRow {
  ProductPart<1> part;
  ProductSum sum;
  CB_HD float operator()(int i) const { return sum(i, part(i, 0)); }
};

// x += a p; r -= a q with a = r.z / p.q; without a multigrid z = P r; the row's r.P r
struct UpdateRow {
  Vec3f* x;
  const Vec3f *p, *q;
  const M3* P;
  Vec3f *r, *z;
  const CgScalars* sc;
  bool multigrid;
  bool split;  ///< P split by component (block_jacobi)
  CB_HD float operator()(int i) const {
    if (sc->done) return 0.f;
    const float a = float(sc->rz / sc->pq);
    x[i] += p[i] * a;
    r[i] -= q[i] * a;
    const Vec3f zi = load_block(P, uint32_t(i), split) * r[i];
    if (!multigrid) z[i] = zi;
    return dot(r[i], zi);
  }
};

// p_next = z + beta p (skipped once done: the direction is not used again).
// With springs (ps.count > 0; p_next apart from p), the threads past n write
// each listed spring pair's shares for p_next: the next product's
// prepare_system_rows without a launch of its own. They compute the corners'
// p_next from z and p, which no thread of the launch writes, by the same
// expression (`next`): the same shares, bit for bit.
struct DirectionRow {
  const Vec3f* z;
  const Vec3f* p;
  Vec3f* p_next;
  const CgScalars* sc;
  int n;
  PairSprings ps;
  float h;
  CB_HD void operator()(int i) const {
    if (sc->done) return;
    const float beta = float(sc->beta);
    const Vec3f *zz = z, *pp = p;
    const auto next = [=](int v) { return zz[v] + pp[v] * beta; };  // vertex v's new direction
    if (i < n)
      p_next[i] = next(i);
    else
      write_spring_shares(ps, uint32_t(i - n), next, h);
  }
};

// r = S (b - A x); z = P r; p = z; then rz = r.z
void cg_start(const Context& ctx, const SystemView& A, const Vec3f* b, const Vec3f* x, CgScratch& s) {
  CgScalars* sc = s.scalars.data();
  prepare_system_rows(ctx, A, x);
  rows_sum(ctx, A.pat.nverts, StartRow{A, b, x, s.P.data(), s.r.data(), s.z.data(), s.p.data()},
           [=] CB_HD(double rz) { sc->rz = rz; }, s.sum);
}

// a start with residual norm r0 (r.P r) needs no iteration: within tol2, zero,
// or no iteration allowed (sc's tol2 and max_iterations set)
CB_HD CB_INLINE int done_at_start(double r0, const CgScalars& sc) {
  return !(r0 > sc.tol2 && r0 > 0) || sc.max_iterations <= 0;
}

// after a new start x (the scale kept): r, z, p and rz of x, and the stopping
// test against the kept tol2
void cg_restart(const Context& ctx, const SystemView& A, const Vec3f* b, const Vec3f* x, CgScratch& s) {
  CgScalars* sc = s.scalars.data();
  prepare_system_rows(ctx, A, x);
  rows_sum(ctx, A.pat.nverts, StartRow{A, b, x, s.P.data(), s.r.data(), s.z.data(), s.p.data()},
           [=] CB_HD(double rz) {
             sc->rz = rz;
             sc->done = done_at_start(rz, *sc);
           },
           s.sum);
}

// the tolerance's scale rz0 = max(min(r.P r, b.(P S b)), floor) (cg.h), then the
// stopping state; r.P r is the starting residual's (from cg_start: rz; with a
// multigrid, from mg_start: rzj)
void cg_init_scalars(const Context& ctx, const SystemView& A, const Vec3f* b, CgScratch& s, int max_iter, float tol,
                     double floor, bool multigrid = false) {
  const float* w = A.inv_mass;
  const M3* P = s.P.data();
  const bool split = A.pat.split;
  CgScalars* sc = s.scalars.data();
  rows_sum(ctx, A.pat.nverts,
           [=] CB_HD(int i) { return w[i] == 0.f ? 0.f : dot(b[i], load_block(P, uint32_t(i), split) * b[i]); },
           [=] CB_HD(double bb) {
             const double r0 = multigrid ? sc->rzj : sc->rz;
             const double scale = r0 < bb ? r0 : bb;
             sc->rz0 = scale > floor ? scale : floor;
             sc->tol2 = double(tol) * double(tol) * sc->rz0;
             sc->iterations = 0;
             sc->max_iterations = max_iter;
             sc->done = done_at_start(r0, *sc);
           },
           s.sum);
}

// q = A p, then pq = p.q; stop when A is not positive definite along p (or p = 0);
// A.lanes threads a row. With `prepare`, the springs' shares of p first
// (without, the direction's launch wrote them: DirectionRow).
void cg_product(const Context& ctx, const SystemView& A, CgScratch& s, const Vec3f* p, bool prepare) {
  CgScalars* sc = s.scalars.data();
  const int n = A.pat.nverts;
  if (prepare) prepare_system_rows(ctx, A, p, &sc->done);
  const auto finish = [=] CB_HD(double pq) {
    if (sc->done) return;
    sc->pq = pq;
    if (!(pq > 0)) sc->done = 1;
  };
  const ProductSum sum{p, s.q.data(), sc};
  switch (A.lanes) {
    case 2: rows_sum_lanes<2>(ctx, n, ProductPart<2>{A, p, sc}, sum, finish, s.sum); break;
    case 4: rows_sum_lanes<4>(ctx, n, ProductPart<4>{A, p, sc}, sum, finish, s.sum); break;
    default: rows_sum(ctx, n, ProductRow{ProductPart<1>{A, p, sc}, sum}, finish, s.sum);
  }
}

// x += a p; r -= a q with a = r.z / p.q; then the new r.P r (P block Jacobi):
// without a multigrid z = P r and it is the new r.z, which gives beta, the count
// and the convergence test; with one it is rzj, the count and the test (z and
// beta come from the V-cycle, mg_precondition)
void cg_update(const Context& ctx, const SystemView& A, Vec3f* x, CgScratch& s, const Vec3f* p,
               bool multigrid = false) {
  const int n = A.pat.nverts;
  const bool split = A.pat.split;
  CgScalars* sc = s.scalars.data();
  const UpdateRow row{x, p, s.q.data(), s.P.data(), s.r.data(), s.z.data(), sc, multigrid, split};
  rows_sum(ctx, n, row, [=] CB_HD(double rpr) {
    if (sc->done) return;
    if (multigrid) {
      sc->rzj = rpr;
    } else {
      sc->beta = rpr / sc->rz;
      sc->rz = rpr;
    }
    sc->iterations++;
    const double test = multigrid ? sc->rzj : sc->rz;
    if (sc->iterations >= sc->max_iterations || !(test > sc->tol2 && test > 0)) sc->done = 2;
  }, s.sum);
}

// p_next = z + beta p (in place where p_next is p), and with springs and p_next
// apart from p the springs' shares of p_next (DirectionRow)
void cg_direction(const Context& ctx, const SystemView& A, CgScratch& s, const Vec3f* p, Vec3f* p_next) {
  const int n = A.pat.nverts;
  PairSprings ps = A.prox;
  if (!ps.k || p_next == p) ps.count = 0;
  parallel_for(ctx, n + int(ps.count), DirectionRow{s.z.data(), p, p_next, s.scalars.data(), n, ps, A.h});
}

// --- multigrid-preconditioned path (pcg_solve with a Multigrid). The stopping
// test stays in the block-Jacobi norm (rzj = r.P r, the scale of cg_init_scalars),
// so both preconditioners stop at the same accuracy; alpha and beta use r.z with
// z = the V-cycle of r.

// r = S (b - A x); rzj = r.P r; with `restart` (a new start x, the scale kept:
// cg_restart's counterpart) also the stopping test against the kept tol2
void mg_start(const Context& ctx, const SystemView& A, const Vec3f* b, const Vec3f* x, CgScratch& s,
              bool restart = false) {
  const SystemView a = A;
  const M3* P = s.P.data();
  Vec3f* r = s.r.data();
  CgScalars* sc = s.scalars.data();
  prepare_system_rows(ctx, A, x);
  rows_sum(ctx, A.pat.nverts, [=] CB_HD(int i) {
    const Vec3f ri = a.inv_mass[i] == 0.f ? Vec3f{} : b[i] - system_row(a, x, i);
    r[i] = ri;
    return dot(ri, load_block(P, uint32_t(i), a.pat.split) * ri);
  }, [=] CB_HD(double rzj) {
    sc->rzj = rzj;
    if (restart) sc->done = done_at_start(rzj, *sc);
  }, s.sum);
}

// the start redone at x with the scale kept; host: the scalars, read back again
void restart_at(const Context& ctx, const SystemView& A, const Vec3f* b, const Vec3f* x, CgScratch& s,
                std::vector<CgScalars>& host, bool multigrid) {
  if (multigrid)
    mg_start(ctx, A, b, x, s, true);
  else
    cg_restart(ctx, A, b, x, s);
  s.scalars.download(host);
}

// With `coarse`, x moves by the coarse correction (coarse_start.h) computed
// from the start's residual s.r (cg_start's or mg_start's), and the start is
// redone at the new x with the scale kept; host: the scalars, read back again.
CoarseResult start_coarse(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s,
                          const CoarseStart* coarse, std::vector<CgScalars>& host, bool multigrid) {
  if (!coarse || host[0].done) return {};
  const CoarseResult res = coarse_start(ctx, A, s.r.data(), x, *coarse->pieces, *coarse->scratch);
  if (res.pieces > 0) restart_at(ctx, A, b, x, s, host, multigrid);
  return res;
}

// With `shift`, the iteration starts from x + shift (free vertices) with the
// scale kept, as in start_coarse, where that start's residual (r.P r) is below
// x's: a guess that does not repeat (a sheet thrown by an impact, springing
// back) starts worse than x, and the PCG then stopped at its cap further from
// the answer. Otherwise the start is x's again, bit for bit. A start that
// already meets the tolerance is left as it is. The trial start lives in s.q,
// which the first product overwrites.
bool start_shifted(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s,
                   const Vec3f* shift, std::vector<CgScalars>& host, bool multigrid) {
  if (!shift || host[0].done) return false;
  const auto residual = [multigrid](const CgScalars& c) { return multigrid ? c.rzj : c.rz; };
  const double cold = residual(host[0]);
  const float* w = A.inv_mass;
  Vec3f* trial = s.q.data();
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) { trial[i] = w[i] != 0.f ? x[i] + shift[i] : x[i]; });
  restart_at(ctx, A, b, trial, s, host, multigrid);
  if (residual(host[0]) <= cold) {
    parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) { x[i] = trial[i]; });
    return true;
  }
  restart_at(ctx, A, b, x, s, host, multigrid);
  return false;
}

// z = M^-1 r by the V-cycle; rz = r.z; beta = rz / the last rz (first: p = z)
void mg_precondition(const Context& ctx, int n, Multigrid& mg, CgScratch& s, bool first) {
  mg.apply(ctx, s.r.data(), s.z.data());
  const Vec3f *r = s.r.data(), *z = s.z.data();
  Vec3f* p = s.p.data();
  CgScalars* sc = s.scalars.data();
  rows_sum(ctx, n, [=] CB_HD(int i) {
    if (first) p[i] = z[i];
    return dot(r[i], z[i]);
  }, [=] CB_HD(double rz) {
    if (!first) sc->beta = rz / sc->rz;
    sc->rz = rz;
  }, s.sum);
}

// the solve's result from its final scalars; r_norm is the residual's r.P r
// (block-Jacobi norm: rz without a multigrid, rzj with one)
CgResult solve_result(const CgScalars& sc, double r_norm, const CoarseResult& coarse, bool shifted) {
  CgResult res;
  res.iterations = sc.iterations;
  res.scale = sc.rz0;
  res.rel_residual = sc.rz0 > 0 ? std::sqrt(std::max(r_norm, 0.0) / sc.rz0) : 0.0;
  res.coarse = coarse;
  res.shifted = shifted;
  return res;
}

CgResult mg_pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                      float tol, double floor, Multigrid& mg, const CoarseStart* coarse, const Vec3f* shift) {
  const int n = A.pat.nverts;
  mg.update(ctx, A);
  mg_start(ctx, A, b, x, s);
  cg_init_scalars(ctx, A, b, s, max_iter, tol, floor, true);
  std::vector<CgScalars> host = s.scalars.to_host();
  const bool shifted = start_shifted(ctx, A, b, x, s, shift, host, true);
  const CoarseResult coarse_res = start_coarse(ctx, A, b, x, s, coarse, host, true);
  if (!host[0].done) mg_precondition(ctx, n, mg, s, true);
  while (!host[0].done) {  // one read-back an iteration: a V-cycle is many launches anyway
    cg_product(ctx, A, s, s.p.data(), true);
    cg_update(ctx, A, x, s, s.p.data(), true);
    s.scalars.download(host);
    if (host[0].done) break;
    mg_precondition(ctx, n, mg, s, false);
    cg_direction(ctx, A, s, s.p.data(), s.p.data());
  }
  return solve_result(host[0], host[0].rzj, coarse_res, shifted);
}

}  // namespace

int cg_batch(const Context& ctx, const CgScalars& before, const CgScalars& now, int left) {
  if (!ctx.is_cuda()) return std::min(1, left);
  int batch = kCgBatch;
  const int its = now.iterations - before.iterations;
  if (its > 0 && before.rz > 0 && now.rz > 0 && now.rz < before.rz && now.tol2 > 0 && now.tol2 < now.rz) {
    const double log_rate = std::log(now.rz / before.rz) / its;  // < 0: the log of the rate an iteration
    const double needed = std::log(now.tol2 / now.rz) / log_rate;
    batch = int(std::clamp(std::ceil(0.5 * needed), double(kCgBatch), double(kCgMaxBatch)));
  }
  return std::min(batch, left);
}

CgResult pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                   float tol, double floor, Multigrid* mg, const CoarseStart* coarse, const Vec3f* shift) {
  const int n = A.pat.nverts;
  s.resize(ctx, size_t(n));
  block_jacobi(ctx, A, s.P.data());
  if (mg && mg->ready()) return mg_pcg_solve(ctx, A, b, x, s, max_iter, tol, floor, *mg, coarse, shift);
  cg_start(ctx, A, b, x, s);
  cg_init_scalars(ctx, A, b, s, max_iter, tol, floor);
  std::vector<CgScalars> host = s.scalars.to_host();
  const bool shifted = start_shifted(ctx, A, b, x, s, shift, host, false);
  const CoarseResult coarse_res = start_coarse(ctx, A, b, x, s, coarse, host, false);
  // the springs' shares of the first direction; each later direction's come
  // with it (cg_direction), and the directions alternate between two buffers
  prepare_system_rows(ctx, A, s.p.data(), &s.scalars.data()->done);
  Vec3f *p = s.p.data(), *p_next = s.p_next.data();
  CgScalars before = host[0];
  for (int launched = 0; !host[0].done && launched < max_iter;) {
    const int batch = cg_batch(ctx, before, host[0], max_iter - launched);  // the first: no rate yet
    for (int k = 0; k < batch; ++k) {  // three launches an iteration
      cg_product(ctx, A, s, p, false);
      cg_update(ctx, A, x, s, p);
      cg_direction(ctx, A, s, p, p_next);
      std::swap(p, p_next);
    }
    launched += batch;
    before = host[0];
    s.scalars.download(host);
  }
  return solve_result(host[0], host[0].rz, coarse_res, shifted);
}

}  // namespace cb::icloth
