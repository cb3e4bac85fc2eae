// Element evaluation and gather-only assembly of the implicit system (see
// system_kernels.h for the equation).
#include "sim/solvers/icloth/system_kernels.h"

#include "sim/core/parallel.h"

namespace cb::icloth {

void eval_elements(const Context& ctx, const ElementIn& in, const Vec3f* x, const ElementOut& out) {
  parallel_for(ctx, in.ntris, [=] CB_HD(int t) {
    const Int3 f = in.tris[t];
    const Vec3f xs[3] = {x[f.a], x[f.b], x[f.c]};
    Vec3f g[3];
    membrane_grad_hess<float>(in.tri_rest[t], xs, g, &out.tri_hw[t], true);
    for (int k = 0; k < 3; ++k) out.tri_grad[3 * t + k] = g[k];
  });
  parallel_for(ctx, in.nbends, [=] CB_HD(int b) {
    const Int4 h = in.bends[b];
    const Vec3f xs[4] = {x[h.a], x[h.b], x[h.c], x[h.d]};
    Vec3f g[4], gt[4];
    float hs = 0;
    bending_grad<float>(in.bend_rest[b], xs, g, gt, &hs);
    for (int k = 0; k < 4; ++k) {
      out.bend_grad[4 * b + k] = g[k];
      out.bend_gt[4 * b + k] = gt[k];
    }
    out.bend_hs[b] = hs;
  });
}

void gather_elastic_forces(const Context& ctx, const PatternView& pat, const ElementOut& el, Vec3f* f) {
  parallel_for(ctx, pat.nverts, [=] CB_HD(int i) {
    Vec3f s{};
    for (uint32_t k = pat.vtri_off[i]; k < pat.vtri_off[i + 1]; ++k) s -= el.tri_grad[pat.vtri[k]];
    for (uint32_t k = pat.vbend_off[i]; k < pat.vbend_off[i + 1]; ++k) s -= el.bend_grad[pat.vbend[k]];
    f[i] = s;
  });
}

void gather_stiffness(const Context& ctx, const PatternView& pat, const ElementIn& in, const ElementOut& el, M3* K) {
  parallel_for(ctx, pat.nnz, [=] CB_HD(int blk) {
    M3 s;
    for (uint32_t k = pat.tri_src_off[blk]; k < pat.tri_src_off[blk + 1]; ++k) {
      uint32_t e = pat.tri_src[k], t = e / 9, li = (e % 9) / 3, lj = e % 3;
      s += membrane_block<float>(in.tri_rest[t], el.tri_hw[t], int(li), int(lj));
    }
    for (uint32_t k = pat.bend_src_off[blk]; k < pat.bend_src_off[blk + 1]; ++k) {
      uint32_t e = pat.bend_src[k], b = e / 16, li = (e % 16) / 4, lj = e % 4;
      add_outer(s, el.bend_hs[b], el.bend_gt[4 * b + li], el.bend_gt[4 * b + lj]);
    }
    pat.store(K, pat.stored(uint32_t(blk)), s);
  });
}

void stiffness_product(const Context& ctx, const SystemView& A, const Vec3f* p, Vec3f* y) {
  const SystemView a = A;
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) { y[i] = add_stiffness_row(a, p, i, 1.f, Vec3f{0, 0, 0}); });
}

void relinearised_rhs(const Context& ctx, int n, float h, const Vec3f* b0, const Vec3f* f0, const Vec3f* f_star,
                      const Vec3f* kv, Vec3f* rhs) {
  parallel_for(ctx, n, [=] CB_HD(int i) { rhs[i] = b0[i] + (f_star[i] - f0[i]) * h + kv[i] * (h * h); });
}

void prepare_system_rows(const Context& ctx, const SystemView& A, const Vec3f* p, const int* skip) {
  if (!A.prox.k || A.prox.count == 0) return;
  const PairSprings ps = A.prox;
  const float h = A.h;
  parallel_for(ctx, int(ps.count), [=] CB_HD(int j) {
    if (skip && *skip) return;
    write_spring_shares(ps, uint32_t(j), [p](int v) { return p[v]; }, h);
  });
}

void apply_system(const Context& ctx, const SystemView& A, const Vec3f* p, Vec3f* y) {
  prepare_system_rows(ctx, A, p);
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) { y[i] = system_row(A, p, i); });
}

void system_diagonal_blocks(const Context& ctx, const SystemView& A, M3* B) {
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) {
    M3 d = stiffness_diagonal(A, i);
    d += M3::identity(mass_diagonal(A, i));
    B[i] = d;
  });
}

void block_jacobi(const Context& ctx, const SystemView& A, M3* P) {
  const bool split = A.pat.split;
  parallel_for(ctx, A.pat.nverts, [=] CB_HD(int i) {
    M3 inv;
    if (A.inv_mass[i] != 0.f && !invert(diagonal_block(A, i), inv)) inv = M3::identity(1.f / mass_diagonal(A, i));
    store_block(P, uint32_t(i), inv, split);  // 0 at a pin
  });
}

}  // namespace cb::icloth
