// Jacobi-preconditioned conjugate gradient on the backend for the filtered
// implicit system (Baraff & Witkin 1998, Sec. 5.3 "modified PCG": pinned
// vertices are projected out of the residual and the search directions).
//
// The scalars of the iteration (r.z, p.q, the step lengths, the count) live on
// the backend, and the kernels of an iteration read them there. An iteration is
// three launches (rows_sum.h): q = A p with p.q, the x/r/z update with the new
// r.z and beta, the new direction (with the proximity springs' shares of it for
// the next product, system_kernels.h). On CUDA the host launches a batch of
// iterations and reads the scalars once per batch (cg_batch: kCgBatch at first,
// then about half of what the rate of convergence says is left). Once the solve
// has converged (or stopped) on the device, the remaining launches of the batch
// do nothing, so the answer is the one a check after every iteration gives,
// whatever the batches. (One host read-back per iteration cost ~0.1 ms per
// iteration on an H100, whatever the size.) On the CPU a read costs nothing and
// the host checks after every iteration.
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/rows_sum.h"
#include "sim/solvers/icloth/coarse_start.h"
#include "sim/solvers/icloth/multigrid.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// Iterations launched between two reads of the scalars by the host on CUDA:
/// the first batch, and the least of any batch (cg_batch).
constexpr int kCgBatch = 8;
/// The most iterations of one batch on CUDA (cg_batch).
constexpr int kCgMaxBatch = 64;

/// The iteration's scalars (backend memory).
struct CgScalars {
  double rz = 0, pq = 0, beta = 0;  ///< r.z, p.q, the new direction's weight
  double rz0 = 0;                   ///< the tolerance's scale (pcg_solve)
  double rzj = 0;                   ///< r.P r with P block-Jacobi: the stopping test with a multigrid
  double tol2 = 0;                  ///< tol^2 rz0: converged when rz <= tol2
  int iterations = 0, max_iterations = 0;
  int done = 0;                              ///< converged, stopped at p.q <= 0, or out of iterations
};

/// Scratch vectors of the solver, resized on demand.
struct CgScratch {
  DeviceBuffer<Vec3f> r, z, p, q;
  DeviceBuffer<Vec3f> p_next;  ///< the next direction (block Jacobi: p and p_next alternate)
  DeviceBuffer<M3> P;
  RowsSumScratch sum;            ///< the fused update-and-dot launches
  DeviceBuffer<CgScalars> scalars;
  void resize(const Context& ctx, size_t n);
  size_t bytes() const { return r.bytes() * 5 + P.bytes() + sum.bytes() + scalars.bytes(); }
};

/// Iterations to launch before the host next reads the scalars, `left` of the
/// cap still to go, `before` and `now` the scalars at the last two reads. CPU:
/// one. CUDA: a read idles the device for a round trip (~20-30 us) and an
/// iteration launched past convergence costs ~10 us of launches that do
/// nothing; so half the iterations still needed at the last batch's rate of
/// convergence, (rz_now / rz_before)^(1 / its) per iteration, within
/// [kCgBatch, kCgMaxBatch] (kCgBatch without progress, as at the first batch,
/// where `before` is `now`), and never past the cap.
int cg_batch(const Context& ctx, const CgScalars& before, const CgScalars& now, int left);

struct CgResult {
  int iterations = 0;
  double rel_residual = 0;  ///< sqrt(r.z / rz0) at exit (preconditioned norms, CgScalars::rz0)
  double scale = 0;         ///< rz0, the tolerance's scale
  CoarseResult coarse;      ///< the coarse start's work (pcg_solve's `coarse`)
  bool shifted = false;     ///< started from x + shift (pcg_solve's `shift`, kept)
};

/// A coarse start for pcg_solve (coarse_start.h): the pieces and the scratch.
struct CoarseStart {
  const std::vector<CoarsePiece>* pieces = nullptr;
  CoarseScratch* scratch = nullptr;
};

/// Solves A x = b (b, x: (nverts) backend memory; x holds the initial guess and is
/// left unchanged at pinned vertices). Stops after `max_iter` iterations or when
/// the preconditioned residual norm sqrt(r.P r) falls below `tol` times a scale:
/// the smaller of the (filtered) right-hand side's and the starting residual's
/// norms, but not below sqrt(floor) (the same units as r.P r: kg m^2/s^2 for an
/// impulse residual). For the implicit step's velocities b holds the cloth's
/// momentum M v, so b alone loosens the solve of a fast cloth (the skirt at the
/// kick's start stopped after 20 iterations and overstretched); the starting
/// residual alone is loosened by stiff contact springs (the sheet on a slope
/// then stuck); the floor keeps a cloth at rest from chasing round-off.
/// A zero scale costs no iteration. With a ready multigrid `mg` (multigrid.h)
/// the preconditioner is its V-cycle, rebuilt from A; the stopping test is the
/// same (in the block-Jacobi norm), so only the number of iterations to it changes.
/// With `coarse` (either preconditioner), the iteration starts from x moved by the
/// coarse correction (coarse_start.h) while the scale stays the one of x as
/// given: the start changes, the accuracy asked for does not. With `shift`
/// ((nverts) backend memory), likewise from x + shift (a warm start), unless x
/// as given already meets the tolerance; before the coarse correction when
/// both are given.
CgResult pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                   float tol, double floor = 0, Multigrid* mg = nullptr, const CoarseStart* coarse = nullptr,
                   const Vec3f* shift = nullptr);

}  // namespace cb::icloth
