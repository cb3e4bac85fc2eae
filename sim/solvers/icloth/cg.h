// Jacobi-preconditioned conjugate gradient on the backend for the filtered
// implicit system (Baraff & Witkin 1998, Sec. 5.3 "modified PCG": pinned
// vertices are projected out of the residual and the search directions).
#pragma once

#include "sim/core/buffer.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// Scratch vectors of the solver, resized on demand.
struct CgScratch {
  DeviceBuffer<Vec3f> r, z, p, q;
  DeviceBuffer<M3> P;
  DeviceBuffer<float> dots;
  void resize(const Context& ctx, size_t n);
  size_t bytes() const { return r.bytes() * 4 + P.bytes() + dots.bytes(); }
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

/// sum_i dot(a[i], b[i]) with a fixed summation order on the CPU.
double dot3(const Context& ctx, const Vec3f* a, const Vec3f* b, int n, float* scratch);

}  // namespace cb::icloth
