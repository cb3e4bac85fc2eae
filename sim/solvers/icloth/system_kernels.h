// Kernels that evaluate the cloth elements and assemble the implicit system
//   A v_new = M v + h f,   A = (1 + h alpha) M + (h beta + h^2) K + h^2 (E + G)
// (Baraff & Witkin 1998 backward Euler linearised once per step, solved for the
// new velocity; K = the projected elastic stiffness, E = per-vertex contact
// stiffness blocks, G = the grab spring, alpha/beta = mass/stiffness damping).
#pragma once

#include "sim/core/backend.h"
#include "sim/scene/grab.h"
#include "sim/solvers/icloth/repulsion.h"
#include "sim/solvers/icloth/stiffness_row_sse.h"
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

/// K blocks (N/m) gathered from the element Hessians. K: (stored blocks of the
/// pattern), in its stored order.
void gather_stiffness(const Context& ctx, const PatternView& pat, const ElementIn& in, const ElementOut& el, M3* K);

/// Everything the product A p needs (backend pointers; values by copy). K is in
/// the pattern's stored order (PatternView).
struct SystemView {
  PatternView pat;
  const M3* K = nullptr;         ///< (nnz) elastic stiffness blocks
  const float* mass = nullptr;   ///< (nverts) kg
  const float* alpha = nullptr;  ///< (nverts) 1/s, mass damping
  const M3* extra = nullptr;     ///< (nverts) N/m contact stiffness, or nullptr
  PairSprings prox;              ///< cloth-cloth proximity springs (null: none)
  const float* inv_mass = nullptr;  ///< (nverts) 0 = pinned (filtered)
  float h = 0;                   ///< s, time step
  float beta = 0;                ///< s, stiffness damping
  Grab grab;                     ///< inactive when not grabbing
  float grab_k = 0;              ///< N/m, grab spring stiffness
  /// K p as sum_j K_ij (p_j - p_i) (add_stiffness_row): exact for a rigid motion
  /// (IClothParams::stiffness_on_differences)
  bool k_differences = false;
  /// threads a row in the PCG's product (1, 2 or 4; cg.cu, system_row_part):
  /// the same sums on both backends, in another order than one thread's
  int lanes = 1;
};

/// Barycentric weight of vertex i in the grab, 0 when not grabbed.
CB_HD inline float grab_weight(const Grab& g, int i) {
  if (!g.active) return 0.f;
  return (g.verts.a == i ? g.bary.x : 0.f) + (g.verts.b == i ? g.bary.y : 0.f) + (g.verts.c == i ? g.bary.z : 0.f);
}

/// (1 + h alpha) m at vertex i (kg): the mass part of A's diagonal block.
CB_HD inline float mass_diagonal(const SystemView& A, int i) { return (1.f + A.h * A.alpha[i]) * A.mass[i]; }

/// (h beta + h^2) K_ii (kg): the stiffness part of A's diagonal block at vertex i.
CB_HD inline M3 stiffness_diagonal(const SystemView& A, int i) {
  return A.pat.load(A.K, A.pat.stored(i, A.pat.diag[i])) * (A.h * A.beta + A.h * A.h);
}

/// A scalar size of A's diagonal block at vertex i without contact terms (kg),
/// (1 + h alpha) m + tr((h beta + h^2) K_ii) / 3 (for contact springs scaled to it).
CB_HD inline float scalar_diagonal(const SystemView& A, int i) {
  const M3 Kd = stiffness_diagonal(A, i);
  return mass_diagonal(A, i) + (Kd.m[0][0] + Kd.m[1][1] + Kd.m[2][2]) / 3.f;
}

/// Pair pr's part of the proximity springs' product (N/m times p's unit):
/// t = k sn (sn . g) + (c / h) (g - sn (sn . g)), g = sum_k w_k u(v_k) with u(v)
/// the velocity of vertex v; vertex k of the pair gets w_k t (times h^2 in A:
/// the spring's h^2 k and the drag's h c). 0 for a released spring (k = 0, and
/// then c = 0).
template <class U>
CB_HD inline Vec3f spring_pair_product(const PairSprings& ps, U u, uint32_t pr, float h) {
  const float k = ps.k[pr];
  if (k == 0.f) return Vec3f{0, 0, 0};
  const ProxPair& q = ps.pairs[pr];
  const Vec3f g = pair_sum_of(q, u);
  const float gn = dot(q.sn, g);
  return q.sn * (k * gn) + (g - q.sn * gn) * (ps.c[pr] / h);
}

/// Listed spring pair j's shares, w_k t (spring_pair_product for velocities
/// u(v)), into its corners' entries of ps.t.
template <class U>
CB_HD inline void write_spring_shares(const PairSprings& ps, uint32_t j, U u, float h) {
  const uint32_t pr = ps.list[j];
  const Vec3f t = spring_pair_product(ps, u, pr, h);
  const ProxPair& q = ps.pairs[pr];
  for (uint32_t k = 0; k < 4; ++k) ps.t[ps.slot[4 * pr + k]] = SpringShare{t * q.w[k]};
}

/// Row i of the proximity springs' product: the sum over vertex i's spring
/// entries, in order, of w_i t (spring_pair_product), as the last
/// prepare_system_rows call wrote them into PairSprings::t. Computed per pair
/// first, the pair's four velocities are read once per product instead of once
/// per corner (on the 200k-triangle funnel on an H200 the per-corner form made
/// a PCG iteration 175 us against 37 without springs; 67 us with a per-pair t).
/// Written per entry, a vertex's run is read in a row with no load waiting on
/// another (a per-pair t gathered through entry[] chained two loads per entry;
/// the rows inside a stack, with tens of entries, set a launch's time): a PCG
/// iteration 71 -> 65 us on that funnel (RESULTS.md, thirty-fourth session).
CB_HD inline Vec3f prox_row(const PairSprings& ps, int i, uint32_t lane = 0, uint32_t lanes = 1) {
  Vec3f acc{0, 0, 0};  // with lanes > 1: lane `lane`'s share, entries lane, lane + lanes, ...
  for (uint32_t e = ps.off[i] + lane; e < ps.off[i + 1]; e += lanes) {
    const SpringShare s = ps.t[e];  // one 16-byte load
    acc += s.t;
  }
  return acc;
}

/// s + row i of c K p (K: the elastic stiffness alone, N/m), each block's
/// product scaled by c and added to s in turn (the order A p rounds in); on
/// the differences p_j - p_i with A.k_differences. With lanes > 1 only the
/// row's blocks lane, lane + lanes, ... (system_row_part).
CB_HD inline Vec3f add_stiffness_row(const SystemView& A, const Vec3f* p, int i, float c, Vec3f s, uint32_t lane = 0,
                                     uint32_t lanes = 1) {
  const uint32_t len = A.pat.row_len(i), start = A.pat.row_start(i), stride = A.pat.row_stride();
  // K's block rows sum to zero (every element's energy is translation
  // invariant), so K p = sum_j K_ij (p_j - p_i). Summed as K_ii p_i + sum K_ij
  // p_j, each row carries the float assembly's row-sum error (~1e-6 of the
  // largest entry) times |p|: on the 183 x 183 funnel sheets up to 30 % of a
  // vertex's mass term for a uniform velocity, and the error grows with the
  // cloth's speed, not with its deformation. On differences the rounding
  // follows p_j - p_i instead. Subtracting a zero pi leaves every product as it
  // was, bit for bit.
  const Vec3f pi = A.k_differences ? p[i] : Vec3f{0.f, 0.f, 0.f};
#ifdef CB_STIFFNESS_ROW_SSE
  if (!A.pat.slice_off && lanes == 1)  // CSR: whole blocks (SELL splits them, PatternView)
    return add_stiffness_row_sse(A.K, A.pat.cols_stored, start, len, p, pi, c, s);  // same rounding
#endif
  for (uint32_t b = lane; b < len; b += lanes) {
    const uint32_t k = start + b * stride;
    s += (A.pat.load(A.K, k) * (p[A.pat.cols_stored[k]] - pi)) * c;
  }
  return s;
}

/// Lane `lane`'s share of row i of A p when `lanes` threads share the row
/// (rows_sum_lanes, the CUDA product with IClothParams::product_lanes): K's
/// blocks and the springs' entries lane, lane + lanes, ... of the row; lane 0
/// also the mass, contact and grab terms. The shares summed in lane order give
/// system_row up to rounding; with lanes = 1 the one share is system_row.
/// 0 at pinned vertices. With proximity springs, prepare_system_rows(A, p) must
/// have run for this p.
CB_HD inline Vec3f system_row_part(const SystemView& A, const Vec3f* p, int i, uint32_t lane, uint32_t lanes) {
  if (A.inv_mass[i] == 0.f) return Vec3f{};
  const float h = A.h;
  const Vec3f start = lane == 0 ? p[i] * mass_diagonal(A, i) : Vec3f{};
  Vec3f s = add_stiffness_row(A, p, i, h * A.beta + h * h, start, lane, lanes);
  if (lane == 0 && A.extra) s += (A.extra[i] * p[i]) * (h * h);
  if (A.prox.k) s += prox_row(A.prox, i, lane, lanes) * (h * h);
  if (lane != 0) return s;
  const float gw = grab_weight(A.grab, i);
  if (gw != 0.f) {
    const Grab& g = A.grab;
    const Vec3f q = p[g.verts.a] * g.bary.x + p[g.verts.b] * g.bary.y + p[g.verts.c] * g.bary.z;
    s += q * (h * h * A.grab_k * gw);
  }
  return s;
}

/// Row i of A p (A in kg: kg m/s for p in m/s); 0 at pinned vertices. With
/// proximity springs, prepare_system_rows(A, p) must have run for this p.
CB_HD inline Vec3f system_row(const SystemView& A, const Vec3f* p, int i) { return system_row_part(A, p, i, 0, 1); }

/// A's diagonal block at free vertex i (kg): mass, stiffness, contact springs,
/// the proximity springs' own part and the grab's.
CB_HD inline M3 diagonal_block(const SystemView& A, int i) {
  const float h = A.h;
  M3 d = stiffness_diagonal(A, i);
  const float gw = grab_weight(A.grab, i);
  d += M3::identity(mass_diagonal(A, i) + h * h * A.grab_k * gw * gw);
  if (A.extra) d += A.extra[i] * (h * h);
  if (A.prox.k)
    for (uint32_t e = A.prox.off[i]; e < A.prox.off[i + 1]; ++e) {
      const uint32_t ent = A.prox.entry[e], c = ent & 3u;
      const ProxPair& q = A.prox.pairs[ent >> 2];
      const float w2 = q.w[c] * q.w[c], kn = h * h * A.prox.k[ent >> 2] * w2, kt = h * A.prox.c[ent >> 2] * w2;
      d += M3::identity(kt);
      add_outer(d, kn - kt, q.sn, q.sn);
    }
  return d;
}

/// The part of A p shared between rows, for system_row over p: each spring
/// pair's spring_pair_product, times each corner's weight, into its corners'
/// entries of A.prox.t (nothing without springs; write_spring_shares; the
/// PCG writes them for its directions in the direction's launch, cg.cu). Skipped
/// where `skip` (a backend pointer, or null) holds nonzero: a finished PCG's
/// later launches.
void prepare_system_rows(const Context& ctx, const SystemView& A, const Vec3f* p, const int* skip = nullptr);

/// y = K p (add_stiffness_row), every row.
void stiffness_product(const Context& ctx, const SystemView& A, const Vec3f* p, Vec3f* y);

/// The right-hand side of the step linearised at x* = x + h v* (Newton iteration,
/// solver.cpp): rhs = b0 + h (f* - f0) + h^2 kv, with b0 the step's right-hand
/// side at x (kg m/s), f0 / f* the elastic forces at x / x* (N) and kv = K* v*
/// (N/s). n vectors each.
void relinearised_rhs(const Context& ctx, int n, float h, const Vec3f* b0, const Vec3f* f0, const Vec3f* f_star,
                      const Vec3f* kv, Vec3f* rhs);

/// y = A p (filtered: y = 0 at pinned vertices).
void apply_system(const Context& ctx, const SystemView& A, const Vec3f* p, Vec3f* y);

/// B[i] (kg): A's diagonal block at vertex i without contact terms,
/// (1 + h alpha) m I + (h beta + h^2) K_ii. Along a direction u, u . B u is how
/// hard the vertex resists moving along u alone; for a flat membrane that is
/// about its mass across the sheet and its stiffness along it.
void system_diagonal_blocks(const Context& ctx, const SystemView& A, M3* B);

/// Block-Jacobi preconditioner: block i of P = inverse of A's diagonal block (0 at
/// pins). Where K is split by component (A.pat.split) so is P, by row
/// (load_block(P, i, true)); it takes split_blocks(nverts) blocks.
void block_jacobi(const Context& ctx, const SystemView& A, M3* P);

}  // namespace cb::icloth
