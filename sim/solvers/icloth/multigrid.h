// Aggregation multigrid preconditioner for the PCG of the implicit system
// (opt-in: IClothParams::multigrid).
//
// Why: A = (1 + h alpha) M + (h beta + h^2) K is, for a stretch-stiff membrane, a
// mass-shifted elasticity operator whose condition number grows like
// h^2 k / m ~ 1 / dx^2: block-Jacobi PCG needs more iterations the finer the
// mesh, and at ~20,000 triangles every solve of the funnel stops at its cap
// (RESULTS.md). Jacobi removes the high-frequency error only; the smooth,
// large-scale stretch error is what a coarser grid sees as high-frequency.
//
// What: unsmoothed (plain) aggregation AMG. Level 0 is an explicit copy of A's
// blocks on the pattern (the grab's coupling between vertices left out, its
// diagonal part kept: still symmetric positive definite); each coarser level groups the nodes of the one below into
// aggregates (greedy: a node whose neighbours are all free takes them, leftovers
// join a neighbouring aggregate) and its operator is the Galerkin product
// P^T A P with P the 0/1 aggregate map (each coarse block the sum of the fine
// blocks between two aggregates). Levels until at most kCoarsest nodes. The
// cloth-cloth springs (SystemView::prox) couple vertices the pattern does not
// (two sheets pressed together); without them the hierarchy moved each sheet
// alone and the solves in a stack stopped at their caps as block Jacobi did.
// They are kept matrix-free on every level: P^T A_pairs P x at level l sums, over
// the vertices with springs in each node, their springs' rows evaluated at the
// vertices' nodes (composed aggregate maps), and the node's diagonal block gets
// the couplings that fall inside it. The
// preconditioner is one V-cycle: `kSweeps` damped block-Jacobi sweeps before and
// after the coarse correction (damping 4 / (3 lambda_max(D^-1 A)), lambda_max by
// power steps on each level), an exact solve at the coarsest level (a dense
// block matrix, springs included, Cholesky in one thread), starting from
// zero: a fixed, symmetric linear operator, so plain PCG stays valid. Pinned
// vertices are masked out (their rows and columns are zero at level 0, their
// output is 0). The structure is built once per pattern on the host; the values
// are rebuilt on the backend every solve from A (gathers only, as the assembly).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/solvers/icloth/mat3.h"
#include "sim/solvers/icloth/system.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// One coarse level's structure, built from the level below (host).
struct MgLevelPattern {
  int n = 0;                                      ///< nodes (aggregates of the level below)
  std::vector<uint32_t> row_offsets, cols, diag;  ///< CSR block pattern of this level's operator
  std::vector<int32_t> agg;                       ///< (nodes below) this level's node of each
  std::vector<uint32_t> member_off, members;      ///< (n + 1) the nodes below in each node
  std::vector<uint32_t> contrib_off, contrib;     ///< (nnz + 1) the blocks below summed into each block
};

/// Aggregates of a symmetric graph (CSR; self loops allowed): every node gets an
/// aggregate id in [0, *count); each aggregate is connected.
std::vector<int32_t> aggregate_graph(const std::vector<uint32_t>& row_offsets, const std::vector<uint32_t>& cols,
                                     int* count);

/// The levels above a fine CSR pattern (n nodes), coarsened until at most
/// `coarsest` nodes, `max_levels` levels or a level that shrinks by less than
/// a quarter.
std::vector<MgLevelPattern> build_mg_levels(int n, const std::vector<uint32_t>& row_offsets,
                                            const std::vector<uint32_t>& cols, int coarsest, int max_levels);

class Multigrid {
 public:
  /// Builds the hierarchy's structure for a block pattern given by its CSR
  /// structure (BlockPattern's row_offsets, cols, diag; once per model).
  void setup(const Context& ctx, const std::vector<uint32_t>& row_offsets, const std::vector<uint32_t>& cols,
             const std::vector<uint32_t>& diag);
  void setup(const Context& ctx, const BlockPattern& p) { setup(ctx, p.row_offsets, p.cols, p.diag); }
  bool ready() const { return !levels_.empty(); }
  /// This solve's operators from A (level 0 = A's blocks, then the Galerkin
  /// products) and the smoothers' damping.
  void update(const Context& ctx, const SystemView& A);
  /// z = one V-cycle applied to r (backend memory, nverts each; z = 0 at pinned vertices).
  void apply(const Context& ctx, const Vec3f* r, Vec3f* z);
  int num_levels() const { return int(levels_.size()); }
  /// y = A_l x on level l (backend memory, level_size(l) each), as the V-cycle
  /// sees it; with level_map, what tests compare with P^T A P.
  void apply_level(const Context& ctx, int l, const Vec3f* x, Vec3f* y);
  /// Level l's node of each vertex (host copy; level 0: the identity).
  std::vector<int32_t> level_map(int l) const;
  int level_size(int l) const { return levels_[size_t(l)].n; }
  size_t device_bytes() const;

 private:
  struct Level {
    int n = 0;
    DeviceBuffer<int32_t> map0;                       ///< (nverts) this level's node of each vertex (level >= 1)
    DeviceBuffer<uint32_t> pair_key, pair_vert, pair_start;  ///< vertices with springs grouped by node
    DeviceBuffer<uint32_t> row_offsets, cols, diag;
    DeviceBuffer<int32_t> agg;                        ///< (nodes below) empty at level 0
    DeviceBuffer<uint32_t> member_off, members, contrib_off, contrib;
    DeviceBuffer<M3> values, dinv;                    ///< (nnz) blocks, (n) inverse diagonal blocks
    DeviceBuffer<Vec3f> x, b, r;                      ///< (n) iterate, right-hand side, residual
  };
  void vcycle(const Context& ctx, size_t l);
  void sweep(const Context& ctx, size_t l);
  /// r = b - A x on level l (the springs' coupling included)
  void residual(const Context& ctx, size_t l, const Vec3f* x, const Vec3f* b, Vec3f* r);
  /// the vertices with springs, grouped by node on every level; the nodes' diagonal blocks get their inner couplings
  void gather_pairs(const Context& ctx);
  std::vector<Level> levels_;
  const float* inv_mass_ = nullptr;  ///< (nverts) of the last update: the pin mask
  DeviceBuffer<float> terms_;        ///< scratch of the eigenvalue estimate
  PairSprings prox_;                 ///< of the last update (null: none)
  float h_ = 0;                      ///< s, of the last update
  size_t npv_ = 0;                   ///< vertices with springs (free)
  DeviceBuffer<uint32_t> pv_flags_;  ///< scratch
  DeviceBuffer<Vec3f> pv_coupled_;   ///< (npv_) scratch: each spring vertex's coupling on a coarse level
  DeviceBuffer<M3> pv_inner_;        ///< (npv_) scratch: each spring vertex's share of its node's diagonal block
  DeviceBuffer<M3> dense_;           ///< (n x n) the coarsest level's operator, springs included
  DeviceBuffer<double> chol_;        ///< (3n x 3n) its Cholesky factor
  DeviceBuffer<double> chol_y_;      ///< (3n) scratch of the triangular solves
};

}  // namespace cb::icloth
