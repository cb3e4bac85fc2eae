// Kernels that evaluate the cloth elements and assemble the implicit system
//   A v_new = M v + h f,   A = (1 + h alpha) M + (h beta + h^2) K + h^2 (E + G)
// (Baraff & Witkin 1998 backward Euler linearised once per step, solved for the
// new velocity; K = the projected elastic stiffness, E = per-vertex contact
// stiffness blocks, G = the grab spring, alpha/beta = mass/stiffness damping).
#pragma once

#include "sim/core/backend.h"
#include "sim/scene/grab.h"
#include "sim/solvers/icloth/system.h"

namespace cb::icloth {

/// Per-element results of one evaluation (backend memory).
struct ElementOut {
  Vec3f* tri_grad = nullptr;      ///< (3 ntris) J/m, dE/dx per corner
  MembraneW<float>* tri_hw = nullptr;  ///< (ntris) projected w-space Hessians
  Vec3f* bend_grad = nullptr;     ///< (4 nbends) J/m
  Vec3f* bend_gt = nullptr;       ///< (4 nbends) 1/m, d theta / dx
  float* bend_hs = nullptr;       ///< (nbends) J/rad^2, Gauss-Newton scale 2 k_b
};

/// Element inputs (backend memory).
struct ElementIn {
  const Int3* tris = nullptr;
  const TriRest* tri_rest = nullptr;
  int ntris = 0;
  const Int4* bends = nullptr;
  const BendRest* bend_rest = nullptr;
  int nbends = 0;
};

/// Evaluates every triangle and hinge at positions x.
void eval_elements(const Context& ctx, const ElementIn& in, const Vec3f* x, const ElementOut& out);

/// f[i] = -(sum of element gradients at i) (N), gathered.
void gather_elastic_forces(const Context& ctx, const PatternView& pat, const ElementOut& el, Vec3f* f);

/// K blocks (N/m) gathered from the element Hessians. K: (nnz).
void gather_stiffness(const Context& ctx, const PatternView& pat, const ElementIn& in, const ElementOut& el, M3* K);

/// Everything the product A p needs (backend pointers; values by copy).
struct SystemView {
  PatternView pat;
  const M3* K = nullptr;         ///< (nnz) elastic stiffness blocks
  const float* mass = nullptr;   ///< (nverts) kg
  const float* alpha = nullptr;  ///< (nverts) 1/s, mass damping
  const M3* extra = nullptr;     ///< (nverts) N/m contact stiffness, or nullptr
  const float* inv_mass = nullptr;  ///< (nverts) 0 = pinned (filtered)
  float h = 0;                   ///< s, time step
  float beta = 0;                ///< s, stiffness damping
  Grab grab;                     ///< inactive when not grabbing
  float grab_k = 0;              ///< N/m, grab spring stiffness
};

/// y = A p (filtered: y = 0 at pinned vertices).
void apply_system(const Context& ctx, const SystemView& A, const Vec3f* p, Vec3f* y);

/// Block-Jacobi preconditioner: P[i] = inverse of A's diagonal block (0 at pins).
void block_jacobi(const Context& ctx, const SystemView& A, M3* P);

}  // namespace cb::icloth
