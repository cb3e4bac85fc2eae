// Jacobi-preconditioned conjugate gradient on the backend for the filtered
// implicit system (Baraff & Witkin 1998, Sec. 5.3 "modified PCG": pinned
// vertices are projected out of the residual and the search directions).
//
// The scalars of the iteration (r.z, p.q, the step lengths, the count) live on
// the backend, and the kernels of an iteration read them there. An iteration is
// three launches (rows_sum.h): q = A p with p.q, the x/r/z update with the new
// r.z and beta, the new direction. The host launches
// kCgBatch iterations at a time and reads the scalars once per batch. Once the
// solve has converged (or stopped) on the device, the remaining launches of the
// batch do nothing, so the answer is the one a check after every iteration gives.
// (One host read-back per iteration cost ~0.1 ms per iteration on an H100,
// whatever the size.)
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/rows_sum.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// Iterations launched between two reads of the scalars by the host.
constexpr int kCgBatch = 8;

/// The iteration's scalars (backend memory).
struct CgScalars {
  double rz = 0, rz0 = 0, pq = 0, beta = 0;  ///< r.z, b.Pb of the rhs, p.q, the new direction's weight
  double tol2 = 0;                           ///< tol^2 rz0: converged when rz <= tol2
  int iterations = 0, max_iterations = 0;
  int done = 0;                              ///< converged, stopped at p.q <= 0, or out of iterations
};

/// Scratch vectors of the solver, resized on demand.
struct CgScratch {
  DeviceBuffer<Vec3f> r, z, p, q;
  DeviceBuffer<M3> P;
  RowsSumScratch sum;            ///< the fused update-and-dot launches
  DeviceBuffer<CgScalars> scalars;
  void resize(const Context& ctx, size_t n);
  size_t bytes() const { return r.bytes() * 4 + P.bytes() + sum.bytes() + scalars.bytes(); }
};

struct CgResult {
  int iterations = 0;
  double rel_residual = 0;  ///< sqrt(r.z / b.Pb) at exit (preconditioned norms)
};

/// Solves A x = b (b, x: (nverts) backend memory; x holds the initial guess and is
/// left unchanged at pinned vertices). Stops when the preconditioned residual
/// norm falls below `tol` times that of the (filtered) right-hand side, or after
/// `max_iter` iterations.
CgResult pcg_solve(const Context& ctx, const SystemView& A, const Vec3f* b, Vec3f* x, CgScratch& s, int max_iter,
                   float tol);

}  // namespace cb::icloth
