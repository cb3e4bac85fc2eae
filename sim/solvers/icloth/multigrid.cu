// Aggregation multigrid preconditioner: values and V-cycle on the backend (see multigrid.h).
#include "sim/solvers/icloth/multigrid.h"

#include <functional>

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb::icloth {
namespace {

/// At most this many nodes at the coarsest level.
constexpr int kCoarsest = 32;
/// Levels at most (level 0 included).
constexpr int kMaxLevels = 12;
/// Damped block-Jacobi sweeps before and after the coarse correction.
constexpr int kSweeps = 1;
/// Sweeps when level 0 is the only level (a mesh of at most kCoarsest vertices);
/// a coarser coarsest level is solved exactly (dense Cholesky).
constexpr int kCoarseSweeps = 20;
/// Power steps of the estimate of lambda_max(D^-1 A) on each level, every update
/// (the sweeps' damping: omega = 4 / (3 lambda_max), the classic choice for
/// Jacobi smoothing).
constexpr int kPowerSteps = 10;
/// Power steps between two normalisations of the iterate.
constexpr int kNormalizeEvery = 5;
/// lambda_max is underestimated by the power steps' Rayleigh quotient: raised by this.
constexpr float kLambdaSafety = 1.1f;

// level 0: A's blocks in CSR order, rows and columns of pinned vertices zeroed;
// the diagonal block is A's whole (diagonal_block), the others (h beta + h^2) K_ij
void level0_values(const Context& ctx, const SystemView& A, const uint32_t* diag, M3* out) {
  const SystemView a = A;
  const float ck = A.h * A.beta + A.h * A.h;
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) {
    const uint32_t start = a.pat.row_offsets[i], end = a.pat.row_offsets[i + 1];
    const bool free_i = a.inv_mass[i] != 0.f;
    for (uint32_t k = start; k < end; ++k) {
      const uint32_t j = a.pat.cols[k];
      if (!free_i || a.inv_mass[j] == 0.f) {
        out[k] = M3{};
      } else if (k == diag[i]) {
        out[k] = diagonal_block(a, i);
      } else {
        out[k] = a.pat.load(a.K, a.pat.stored(i, k)) * ck;
      }
    }
  });
}

// coarse blocks: each the sum of its listed blocks below (P^T A P, P = 0/1)
void galerkin(const Context& ctx, int nnz, const uint32_t* off, const uint32_t* list, const M3* below, M3* out) {
  parallel_for(ctx, nnz, [=] CB_HD(int k) {
    M3 s{};
    for (uint32_t e = off[k]; e < off[k + 1]; ++e) s += below[list[e]];
    out[k] = s;
  });
}

// inverse diagonal blocks; 0 where the block is zero (pinned rows, aggregates of pins)
void invert_diagonal(const Context& ctx, int n, const uint32_t* diag, const M3* values, M3* dinv) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const M3 d = values[diag[i]];
    const float scale = fabsf(d.m[0][0]) + fabsf(d.m[1][1]) + fabsf(d.m[2][2]);
    M3 inv;
    dinv[i] = scale > 0.f && invert(d, inv) ? inv : M3{};
  });
}

// r = b - A x on one level's explicit blocks (b = nullptr: 0)
void csr_residual(const Context& ctx, int n, const uint32_t* ro, const uint32_t* cols, const M3* v, const Vec3f* x,
                  const Vec3f* b, Vec3f* r) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    Vec3f s = b ? b[i] : Vec3f{0, 0, 0};
    for (uint32_t k = ro[i]; k < ro[i + 1]; ++k) s -= v[k] * x[cols[k]];
    r[i] = s;
  });
}

// x += dinv r (first: x = dinv r, the sweep from x = 0); dinv holds omega D^-1
void jacobi_step(const Context& ctx, int n, const M3* dinv, const Vec3f* r, Vec3f* x, bool first) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const Vec3f dx = dinv[i] * r[i];
    x[i] = first ? dx : x[i] + dx;
  });
}

// restriction P^T r: each coarse node sums its members' residuals
void restrict_sum(const Context& ctx, int nc, const uint32_t* off, const uint32_t* members, const Vec3f* r,
                  Vec3f* bc) {
  parallel_for(ctx, nc, [=] CB_HD(int I) {
    Vec3f s{0, 0, 0};
    for (uint32_t e = off[I]; e < off[I + 1]; ++e) s += r[members[e]];
    bc[I] = s;
  });
}

// prolongation x += P xc: each node takes its aggregate's correction
void prolong_add(const Context& ctx, int n, const int32_t* agg, const Vec3f* xc, Vec3f* x) {
  parallel_for(ctx, n, [=] CB_HD(int i) { x[i] += xc[agg[i]]; });
}

// z = x, 0 where w = 0 (pinned vertices); w = nullptr: a plain copy
void masked_copy(const Context& ctx, int n, const float* w, const Vec3f* x, Vec3f* z) {
  parallel_for(ctx, n, [=] CB_HD(int i) { z[i] = w && w[i] == 0.f ? Vec3f{} : x[i]; });
}

// lambda_max(D^-1 A) on a level (dinv = D^-1 here): power steps from a fixed
// scrambled start, then the Rayleigh quotient x.Ax / x.Dx (D^-1 A is self-adjoint
// in the D inner product; the quotient is at most lambda_max). neg_product(x, y):
// y = -A x (the level's residual for b = 0).
float max_eigenvalue(const Context& ctx, int n, const uint32_t* diag, const M3* v, const M3* dinv, Vec3f* x,
                     Vec3f* y, DeviceBuffer<float>& terms,
                     const std::function<void(const Vec3f*, Vec3f*)>& neg_product) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    const uint32_t h = uint32_t(i) * 2654435761u;
    const Vec3f v{float(h & 1023u) - 511.5f, float((h >> 10) & 1023u) - 511.5f, float((h >> 20) & 1023u) - 511.5f};
    x[i] = dinv[i] * (dinv[i] * v);  // 0 at dead nodes; scaled like D^-1 A x
  });
  for (int k = 0; k < kPowerSteps; ++k) {
    neg_product(x, y);
    parallel_for(ctx, n, [=] CB_HD(int i) { x[i] = -(dinv[i] * y[i]); });
    // the iterate grows like lambda^k: back to size 1 every kNormalizeEvery steps
    // (each is a read-back, a synchronisation on a GPU; float holds lambda^5 with
    // room to spare for the quotient's products)
    if ((k + 1) % kNormalizeEvery != 0) continue;
    terms.resize(ctx, size_t(n));
    float* t = terms.data();
    parallel_for(ctx, n, [=] CB_HD(int i) { t[i] = fmaxf(fabsf(x[i].x), fmaxf(fabsf(x[i].y), fabsf(x[i].z))); });
    const float m = reduce_max(ctx, t, size_t(n));
    if (!(m > 0.f)) return 0.f;
    const float inv = 1.f / m;
    parallel_for(ctx, n, [=] CB_HD(int i) { x[i] = x[i] * inv; });
  }
  neg_product(x, y);
  terms.resize(ctx, size_t(n));
  float* t = terms.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { t[i] = -dot(x[i], y[i]); });
  const double xax = reduce_sum(ctx, t, size_t(n));
  parallel_for(ctx, n, [=] CB_HD(int i) { t[i] = dot(x[i], v[diag[i]] * x[i]); });
  const double xdx = reduce_sum(ctx, t, size_t(n));
  return xdx > 0 ? float(xax / xdx) : 0.f;
}

// --- the cloth-cloth springs on every level (see multigrid.h)

// A's block between two corners of spring pair pr, divided by w_c w_t (kg):
// h^2 k sn sn^T + h c (I - sn sn^T) (prox_row times h^2)
CB_HD CB_INLINE M3 pair_block(const PairSprings& ps, uint32_t pr, float h) {
  const float k = ps.k[pr], c = ps.c[pr];
  M3 B = M3::identity(h * c);
  add_outer(B, h * h * k - h * c, ps.pairs[pr].sn, ps.pairs[pr].sn);
  return B;
}

// Vertex v's springs coupled to their other free corners, evaluated at x on the
// level whose node of vertex u is map[u] (nullptr: level 0, x per vertex);
// corners whose node is `self` are left out (they are in its diagonal block).
CB_HD inline Vec3f pair_coupling(const PairSprings& ps, const float* w, const int32_t* map, int32_t self,
                                 const Vec3f* x, int v, float h) {
  Vec3f acc{0, 0, 0};
  for (uint32_t e = ps.off[v]; e < ps.off[v + 1]; ++e) {
    const uint32_t ent = ps.entry[e], pr = ent >> 2;
    const int c = int(ent & 3u);
    if (ps.k[pr] == 0.f) continue;
    const ProxPair& q = ps.pairs[pr];
    Vec3f g{0, 0, 0};
    for (int t = 0; t < 4; ++t) {
      const int32_t u = pair_vertex(q, t);
      if (t == c || w[u] == 0.f) continue;
      const int32_t node = map ? map[u] : u;
      if (node == self) continue;
      g += x[node] * q.w[t];
    }
    acc += pair_block(ps, pr, h) * g * q.w[c];
  }
  return acc;
}

// f(pr, c, q) for every spring entry (pair pr, corner c; k != 0) of vertex v
template <class F>
CB_HD CB_INLINE void for_vertex_springs(const PairSprings& ps, int v, F f) {
  for (uint32_t e = ps.off[v]; e < ps.off[v + 1]; ++e) {
    const uint32_t ent = ps.entry[e], pr = ent >> 2;
    if (ps.k[pr] != 0.f) f(pr, int(ent & 3u), ps.pairs[pr]);
  }
}

// the same for every vertex with springs of node I (start/verts: the level's grouping)
template <class F>
CB_HD CB_INLINE void for_node_springs(const PairSprings& ps, const uint32_t* start, const uint32_t* verts, int I,
                                      F f) {
  for (uint32_t j = start[I]; j < start[I + 1]; ++j) for_vertex_springs(ps, int(verts[j]), f);
}

// level 0: r -= the springs' coupling of each free vertex
void pairs_residual0(const Context& ctx, int n, const PairSprings& ps, const float* w, float h, const Vec3f* x,
                     Vec3f* r) {
  parallel_for(ctx, n, [=] CB_HD(int i) {
    if (w[i] != 0.f) r[i] -= pair_coupling(ps, w, nullptr, -1, x, i, h);
  });
}

// level >= 1: r[I] -= the coupling of node I's vertices with springs to other
// nodes. Each vertex's coupling first, one thread a vertex (coupled[j] for
// verts[j], npv of them), then each node's sum of its run in the same order: the
// same sums as one thread a node walking its aggregate's springs, which on a
// coarse level of a few hundred nodes left the device nearly idle while a few
// threads walked thousands of springs each (RESULTS.md, H200 lease)
void pairs_residual(const Context& ctx, int n, const PairSprings& ps, const float* w, float h, const int32_t* map,
                    const uint32_t* start, const uint32_t* verts, size_t npv, const Vec3f* x, Vec3f* coupled,
                    Vec3f* r) {
  parallel_for(ctx, int(npv), [=] CB_HD(int j) {
    const int v = int(verts[j]);
    coupled[j] = pair_coupling(ps, w, map, map[v], x, v, h);
  });
  parallel_for(ctx, n, [=] CB_HD(int I) {
    Vec3f s{0, 0, 0};
    for (uint32_t j = start[I]; j < start[I + 1]; ++j) s += coupled[j];
    r[I] -= s;
  });
}

// node I's diagonal block += the couplings between its own vertices: each
// vertex's share first, one thread a vertex (inner[j] for verts[j]), then each
// node's run summed in order (pairs_residual's reason)
void pairs_inner_diagonal(const Context& ctx, int n, const PairSprings& ps, const float* w, float h,
                          const int32_t* map, const uint32_t* start, const uint32_t* verts, size_t npv, M3* inner,
                          const uint32_t* diag, M3* values) {
  parallel_for(ctx, int(npv), [=] CB_HD(int j) {
    const int v = int(verts[j]);
    const int32_t I = map[v];
    M3 d{};
    for_vertex_springs(ps, v, [&](uint32_t pr, int c, const ProxPair& q) {
      float wt = 0.f;
      for (int t = 0; t < 4; ++t) {
        const int32_t u = pair_vertex(q, t);
        if (t != c && w[u] != 0.f && map[u] == I) wt += q.w[t];
      }
      if (wt != 0.f) d += pair_block(ps, pr, h) * (q.w[c] * wt);
    });
    inner[j] = d;
  });
  parallel_for(ctx, n, [=] CB_HD(int I) {
    M3 d{};
    for (uint32_t j = start[I]; j < start[I + 1]; ++j) d += inner[j];
    values[diag[I]] += d;
  });
}

// out = in (ids)
void copy_ids(const Context& ctx, int n, const uint32_t* in, uint32_t* out) {
  parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = in[i]; });
}

// flags[v] = 1 for a free vertex with springs
void pair_vertex_flags(const Context& ctx, int n, const PairSprings& ps, const float* w, uint32_t* flags) {
  parallel_for(ctx, n, [=] CB_HD(int v) { flags[v] = w[v] != 0.f && ps.off[v + 1] > ps.off[v] ? 1u : 0u; });
}

// keys[j] = map[verts[j]]
void node_keys(const Context& ctx, int n, const int32_t* map, const uint32_t* verts, uint32_t* keys) {
  parallel_for(ctx, n, [=] CB_HD(int j) { keys[j] = uint32_t(map[verts[j]]); });
}

// the coarsest level as a dense n x n block matrix: its CSR blocks, then (rows
// with springs) the springs' couplings to other nodes; what dense_cholesky
// factors
void dense_coarsest(const Context& ctx, int n, const uint32_t* ro, const uint32_t* cols, const M3* values,
                    const PairSprings& ps, const float* w, float h, const int32_t* map, const uint32_t* start,
                    const uint32_t* verts, bool pairs, M3* dense) {
  parallel_for(ctx, n, [=] CB_HD(int I) {
    M3* row = dense + size_t(I) * size_t(n);
    for (int J = 0; J < n; ++J) row[J] = M3{};
    for (uint32_t k = ro[I]; k < ro[I + 1]; ++k) row[cols[k]] = values[k];
    if (!pairs) return;
    for_node_springs(ps, start, verts, I, [&](uint32_t pr, int c, const ProxPair& q) {
      const M3 B = pair_block(ps, pr, h);
      for (int t = 0; t < 4; ++t) {
        const int32_t u = pair_vertex(q, t);
        if (t != c && w[u] != 0.f && map[u] != I) row[map[u]] += B * (q.w[c] * q.w[t]);
      }
    });
  });
}

// r = b - A x with A dense (n x n blocks; b = nullptr: 0)
void dense_residual(const Context& ctx, int n, const M3* dense, const Vec3f* x, const Vec3f* b, Vec3f* r) {
  parallel_for(ctx, n, [=] CB_HD(int I) {
    Vec3f s = b ? b[I] : Vec3f{0, 0, 0};
    const M3* row = dense + size_t(I) * size_t(n);
    for (int J = 0; J < n; ++J) s -= row[J] * x[J];
    r[I] = s;
  });
}

// y = -y
void negate(const Context& ctx, int n, Vec3f* y) {
  parallel_for(ctx, n, [=] CB_HD(int i) { y[i] = -y[i]; });
}

// The coarsest level's Cholesky factor L (3n x 3n, row-major, lower; double),
// in one thread (n <= kCoarsest: at most 96 unknowns). A row whose pivot is not
// positive (a node of pinned vertices only: its blocks are zero) gets a unit
// pivot and no coupling, so its unknowns solve to 0.
void dense_cholesky(const Context& ctx, int n, const M3* dense, double* L) {
  parallel_for(ctx, 1, [=] CB_HD(int) {
    const int m = 3 * n;
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) L[i * m + j] = double(dense[(i / 3) * n + j / 3].m[i % 3][j % 3]);
    double scale = 0;
    for (int i = 0; i < m; ++i) scale = L[i * m + i] > scale ? L[i * m + i] : scale;
    for (int j = 0; j < m; ++j) {
      double d = L[j * m + j];
      for (int k = 0; k < j; ++k) d -= L[j * m + k] * L[j * m + k];
      const bool dead = !(d > 1e-12 * scale);
      L[j * m + j] = dead ? 1.0 : sqrt(d);
      for (int i = j + 1; i < m; ++i) {
        double v = L[i * m + j];
        for (int k = 0; k < j; ++k) v -= L[i * m + k] * L[j * m + k];
        L[i * m + j] = dead ? 0.0 : v / L[j * m + j];
      }
    }
  });
}

// x = (L L^T)^-1 b on the coarsest level, in one thread
void dense_solve(const Context& ctx, int n, const double* L, const Vec3f* b, Vec3f* x, double* y) {
  parallel_for(ctx, 1, [=] CB_HD(int) {
    const int m = 3 * n;
    for (int i = 0; i < m; ++i) {
      double v = double(i % 3 == 0 ? b[i / 3].x : (i % 3 == 1 ? b[i / 3].y : b[i / 3].z));
      for (int k = 0; k < i; ++k) v -= L[i * m + k] * y[k];
      y[i] = v / L[i * m + i];
    }
    for (int i = m - 1; i >= 0; --i) {
      double v = y[i];
      for (int k = i + 1; k < m; ++k) v -= L[k * m + i] * y[k];
      y[i] = v / L[i * m + i];
    }
    for (int i = 0; i < n; ++i) x[i] = Vec3f{float(y[3 * i]), float(y[3 * i + 1]), float(y[3 * i + 2])};
  });
}

// dinv *= omega
void scale_blocks(const Context& ctx, int n, float omega, M3* dinv) {
  parallel_for(ctx, n, [=] CB_HD(int i) { dinv[i] = dinv[i] * omega; });
}

}  // namespace

void Multigrid::setup(const Context& ctx, const std::vector<uint32_t>& row_offsets, const std::vector<uint32_t>& cols,
                      const std::vector<uint32_t>& diag) {
  const int n = int(row_offsets.size()) - 1;
  const std::vector<MgLevelPattern> coarse = build_mg_levels(n, row_offsets, cols, kCoarsest, kMaxLevels);
  levels_.clear();
  levels_.resize(coarse.size() + 1);
  Level& L0 = levels_[0];
  L0.n = n;
  L0.row_offsets.upload(ctx, row_offsets);
  L0.cols.upload(ctx, cols);
  L0.diag.upload(ctx, diag);
  std::vector<int32_t> map0(static_cast<size_t>(n));  // each vertex's node, composed level by level
  for (int v = 0; v < n; ++v) map0[size_t(v)] = v;
  for (size_t l = 0; l < coarse.size(); ++l) {
    const MgLevelPattern& P = coarse[l];
    Level& L = levels_[l + 1];
    L.n = P.n;
    for (int32_t& m : map0) m = P.agg[size_t(m)];
    L.map0.upload(ctx, map0);
    L.row_offsets.upload(ctx, P.row_offsets);
    L.cols.upload(ctx, P.cols);
    L.diag.upload(ctx, P.diag);
    L.agg.upload(ctx, P.agg);
    L.member_off.upload(ctx, P.member_off);
    L.members.upload(ctx, P.members);
    L.contrib_off.upload(ctx, P.contrib_off);
    L.contrib.upload(ctx, P.contrib);
  }
  if (levels_.size() > 1) {
    const size_t nc = size_t(levels_.back().n);
    dense_.resize(ctx, nc * nc);
    chol_.resize(ctx, 9 * nc * nc);
    chol_y_.resize(ctx, 3 * nc);
  }
  for (Level& L : levels_) {
    L.values.resize(ctx, L.cols.size());
    L.dinv.resize(ctx, size_t(L.n));
    L.x.resize(ctx, size_t(L.n));
    L.b.resize(ctx, size_t(L.n));
    L.r.resize(ctx, size_t(L.n));
  }
}

void Multigrid::update(const Context& ctx, const SystemView& A) {
  inv_mass_ = A.inv_mass;
  prox_ = A.prox;
  h_ = A.h;
  level0_values(ctx, A, levels_[0].diag.data(), levels_[0].values.data());
  for (size_t l = 1; l < levels_.size(); ++l)
    galerkin(ctx, int(levels_[l].cols.size()), levels_[l].contrib_off.data(), levels_[l].contrib.data(),
             levels_[l - 1].values.data(), levels_[l].values.data());
  npv_ = 0;
  if (prox_.k) gather_pairs(ctx);  // after every Galerkin sum: each level adds its own inner couplings
  if (levels_.size() > 1) {
    Level& C = levels_.back();
    dense_coarsest(ctx, C.n, C.row_offsets.data(), C.cols.data(), C.values.data(), prox_, inv_mass_, h_,
                   C.map0.data(), C.pair_start.data(), C.pair_vert.data(), npv_ > 0, dense_.data());
    dense_cholesky(ctx, C.n, dense_.data(), chol_.data());
  }
  for (size_t l = 0; l < levels_.size(); ++l) {
    if (l > 0 && l + 1 == levels_.size()) break;  // the coarsest level is solved exactly
    Level& L = levels_[l];
    invert_diagonal(ctx, L.n, L.diag.data(), L.values.data(), L.dinv.data());
    const float lambda =
        kLambdaSafety * max_eigenvalue(ctx, L.n, L.diag.data(), L.values.data(), L.dinv.data(), L.x.data(),
                                       L.r.data(), terms_,
                                       [&](const Vec3f* x, Vec3f* y) { residual(ctx, l, x, nullptr, y); });
    scale_blocks(ctx, L.n, lambda > 0.f ? 4.f / (3.f * lambda) : 0.f, L.dinv.data());
  }
}

void Multigrid::gather_pairs(const Context& ctx) {
  const int n0 = levels_[0].n;
  pv_flags_.resize(ctx, size_t(n0));
  Level& L0 = levels_[0];
  L0.pair_vert.resize(ctx, size_t(n0));
  pair_vertex_flags(ctx, n0, prox_, inv_mass_, pv_flags_.data());
  npv_ = compact_indices(ctx, pv_flags_.data(), L0.pair_vert.data(), size_t(n0));
  if (npv_ == 0) return;
  pv_coupled_.resize(ctx, npv_);
  pv_inner_.resize(ctx, npv_);
  for (size_t l = 1; l < levels_.size(); ++l) {
    Level& L = levels_[l];
    L.pair_key.resize(ctx, npv_);
    L.pair_vert.resize(ctx, npv_);
    L.pair_start.resize(ctx, size_t(L.n) + 1);
    node_keys(ctx, int(npv_), L.map0.data(), L0.pair_vert.data(), L.pair_key.data());
    copy_ids(ctx, int(npv_), L0.pair_vert.data(), L.pair_vert.data());
    sort_by_key(ctx, L.pair_key.data(), L.pair_vert.data(), npv_);
    key_starts(ctx, L.pair_key.data(), npv_, uint32_t(L.n), L.pair_start.data());
    pairs_inner_diagonal(ctx, L.n, prox_, inv_mass_, h_, L.map0.data(), L.pair_start.data(), L.pair_vert.data(),
                         npv_, pv_inner_.data(), L.diag.data(), L.values.data());
  }
}

void Multigrid::residual(const Context& ctx, size_t l, const Vec3f* x, const Vec3f* b, Vec3f* r) {
  Level& L = levels_[l];
  if (l > 0 && l + 1 == levels_.size()) {
    dense_residual(ctx, L.n, dense_.data(), x, b, r);
    return;
  }
  csr_residual(ctx, L.n, L.row_offsets.data(), L.cols.data(), L.values.data(), x, b, r);
  if (npv_ == 0) return;
  if (l == 0)
    pairs_residual0(ctx, L.n, prox_, inv_mass_, h_, x, r);
  else
    pairs_residual(ctx, L.n, prox_, inv_mass_, h_, L.map0.data(), L.pair_start.data(), L.pair_vert.data(), npv_, x,
                   pv_coupled_.data(), r);
}

// x += omega D^-1 (b - A x)
void Multigrid::sweep(const Context& ctx, size_t l) {
  Level& L = levels_[l];
  residual(ctx, l, L.x.data(), L.b.data(), L.r.data());
  jacobi_step(ctx, L.n, L.dinv.data(), L.r.data(), L.x.data(), false);
}

// levels_[l].x = V-cycle on levels_[l].b, from x = 0
void Multigrid::vcycle(const Context& ctx, size_t l) {
  Level& L = levels_[l];
  if (l > 0 && l + 1 == levels_.size()) {  // the coarsest: Cholesky
    dense_solve(ctx, L.n, chol_.data(), L.b.data(), L.x.data(), chol_y_.data());
    return;
  }
  jacobi_step(ctx, L.n, L.dinv.data(), L.b.data(), L.x.data(), true);
  if (l + 1 == levels_.size()) {  // a single level (a tiny mesh): sweeps
    for (int s = 1; s < kCoarseSweeps; ++s) sweep(ctx, l);
    return;
  }
  for (int s = 1; s < kSweeps; ++s) sweep(ctx, l);
  residual(ctx, l, L.x.data(), L.b.data(), L.r.data());
  Level& C = levels_[l + 1];
  restrict_sum(ctx, C.n, C.member_off.data(), C.members.data(), L.r.data(), C.b.data());
  vcycle(ctx, l + 1);
  prolong_add(ctx, L.n, C.agg.data(), C.x.data(), L.x.data());
  for (int s = 0; s < kSweeps; ++s) sweep(ctx, l);
}

void Multigrid::apply(const Context& ctx, const Vec3f* r, Vec3f* z) {
  Level& L0 = levels_[0];
  masked_copy(ctx, L0.n, nullptr, r, L0.b.data());
  vcycle(ctx, 0);
  masked_copy(ctx, L0.n, inv_mass_, L0.x.data(), z);
}

void Multigrid::apply_level(const Context& ctx, int l, const Vec3f* x, Vec3f* y) {
  residual(ctx, size_t(l), x, nullptr, y);
  negate(ctx, levels_[size_t(l)].n, y);
}

std::vector<int32_t> Multigrid::level_map(int l) const {
  if (l > 0) return levels_[size_t(l)].map0.to_host();
  std::vector<int32_t> id(size_t(levels_[0].n));
  for (size_t v = 0; v < id.size(); ++v) id[v] = int32_t(v);
  return id;
}

size_t Multigrid::device_bytes() const {
  size_t b = 0;
  b += terms_.bytes() + pv_flags_.bytes() + pv_coupled_.bytes() + pv_inner_.bytes() + dense_.bytes() + chol_.bytes() +
       chol_y_.bytes();
  for (const Level& L : levels_)
    b += L.row_offsets.bytes() + L.cols.bytes() + L.diag.bytes() + L.agg.bytes() + L.member_off.bytes() +
         L.members.bytes() + L.contrib_off.bytes() + L.contrib.bytes() + L.values.bytes() + L.dinv.bytes() +
         L.x.bytes() * 3 + L.map0.bytes() + L.pair_key.bytes() + L.pair_vert.bytes() + L.pair_start.bytes();
  return b;
}

}  // namespace cb::icloth
