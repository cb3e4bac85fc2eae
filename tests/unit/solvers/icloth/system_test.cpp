// Assembly of the I-Cloth implicit system (system.h, system_kernels.h) and the
// preconditioned CG (cg.h), on every backend.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <queue>
#include <random>

#include "sim/model/grid.h"
#include "sim/solvers/icloth/cg.h"
#include "sim/solvers/icloth/multigrid.h"
#include "sim/solvers/icloth/system_kernels.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

ClothModel small_model(int nx, int ny) {
  GridSpec g;
  g.nx = nx;
  g.ny = ny;
  g.width = 0.4f;
  g.height = 0.3f;
  ClothInput in;
  in.name = "sheet";
  in.mesh = make_grid(g);
  in.material.bend_stiffness = 1e-3f;
  return build_cloth_model({in});
}

std::vector<Vec3f> perturbed(const ClothModel& m, unsigned seed, float amp) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-amp, amp);
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) p += Vec3f{u(rng), u(rng), u(rng)};
  return x;
}

// A small sheet's model, its element rest data (weft / warp stiffness
// weft_ratio), its block pattern and positions perturbed by up to amp m
struct DeformedSheet {
  ClothModel m;
  ElementRest r;
  BlockPattern bp;
  std::vector<Vec3f> x;
};
DeformedSheet deformed_sheet(int nx, int ny, float weft_ratio, unsigned seed, float amp) {
  DeformedSheet s;
  s.m = small_model(nx, ny);
  s.r = build_element_rest(s.m, weft_ratio);
  s.bp = build_block_pattern(s.m.num_vertices(), s.m.tris, s.m.topo.bends);
  s.x = perturbed(s.m, seed, amp);
  return s;
}

// total elastic energy on the host, in double
double total_energy(const ClothModel& m, const ElementRest& r, const std::vector<Vec3d>& x) {
  double e = 0;
  for (size_t t = 0; t < m.tris.size(); ++t) {
    Int3 f = m.tris[t];
    e += membrane_energy<double>(r.tris[t], x[f.a], x[f.b], x[f.c]);
  }
  for (size_t b = 0; b < m.topo.bends.size(); ++b) {
    Int4 h = m.topo.bends[b];
    const Vec3d y[4] = {x[h.a], x[h.b], x[h.c], x[h.d]};
    e += bending_energy<double>(r.bends[b], y);
  }
  return e;
}

struct Assembled {
  std::vector<Vec3f> f;
  std::vector<M3> K;
};

Assembled assemble(const Context& ctx, const ClothModel& m, const ElementRest& r, const BlockPattern& bp,
                   const std::vector<Vec3f>& x, BlockLayout layout = BlockLayout::Auto, bool split = true) {
  DevicePattern dp;
  dp.upload(ctx, bp, layout, split);
  DeviceBuffer<Int3> tris(ctx, m.tris);
  DeviceBuffer<Int4> bends(ctx, m.topo.bends);
  DeviceBuffer<TriRest> tr(ctx, r.tris);
  DeviceBuffer<BendRest> br(ctx, r.bends);
  const size_t nt = m.tris.size(), nb = m.topo.bends.size();
  DeviceBuffer<Vec3f> tg(ctx, 3 * nt), bg(ctx, 4 * nb), bt(ctx, 4 * nb), dx(ctx, x), f(ctx, x.size());
  DeviceBuffer<MembraneW<float>> hw(ctx, nt);
  DeviceBuffer<float> hs(ctx, nb);
  DeviceBuffer<M3> K(ctx, dp.stored_blocks());
  ElementIn in{tris.data(), tr.data(), int(nt), bends.data(), br.data(), int(nb)};
  ElementOut out{tg.data(), hw.data(), bg.data(), bt.data(), hs.data()};
  eval_elements(ctx, in, dx.data(), out);
  gather_elastic_forces(ctx, dp.view(), out, f.data());
  gather_stiffness(ctx, dp.view(), in, out, K.data());
  return {f.to_host(), dp.to_csr(K.to_host())};  // K in CSR order
}

TEST(IClothSystem, PatternHoldsEdgesAndHingesAndSortedRows) {
  ClothModel m = small_model(4, 3);
  BlockPattern p = build_block_pattern(m.num_vertices(), m.tris, m.topo.bends);
  for (size_t v = 0; v < m.num_vertices(); ++v) {
    EXPECT_EQ(p.cols[p.diag[v]], v);
    for (uint32_t k = p.row_offsets[v] + 1; k < p.row_offsets[v + 1]; ++k) EXPECT_LT(p.cols[k - 1], p.cols[k]);
  }
  auto has = [&](int i, int j) {
    for (uint32_t k = p.row_offsets[size_t(i)]; k < p.row_offsets[size_t(i) + 1]; ++k)
      if (p.cols[k] == uint32_t(j)) return true;
    return false;
  };
  for (const Int2& e : m.topo.edges) EXPECT_TRUE(has(e.a, e.b) && has(e.b, e.a));
  for (const Int4& h : m.topo.bends) EXPECT_TRUE(has(h.c, h.d) && has(h.d, h.c));
}

TEST(IClothSystem, GatheredForcesAreMinusTheEnergyGradient) {
  const auto [m, r, bp, x] = deformed_sheet(5, 4, 0.7f, 7, 0.01f);
  std::vector<Vec3d> xd(x.size());
  for (size_t i = 0; i < x.size(); ++i) xd[i] = Vec3d(x[i]);
  for (const Context& ctx : test::backends()) {
    Assembled a = assemble(ctx, m, r, bp, x);
    for (size_t i = 0; i < x.size(); ++i)
      for (int c = 0; c < 3; ++c) {
        const double eps = 1e-6, o = xd[i][c];
        xd[i][c] = o + eps;
        double ep = total_energy(m, r, xd);
        xd[i][c] = o - eps;
        double em = total_energy(m, r, xd);
        xd[i][c] = o;
        double num = -(ep - em) / (2 * eps);
        EXPECT_NEAR(a.f[i][c], num, 2e-3 * (1 + std::fabs(num))) << "vertex " << i << " axis " << c;
      }
  }
}

TEST(IClothSystem, GatheredStiffnessEqualsDenseAssembly) {
  const auto [m, r, bp, x] = deformed_sheet(5, 4, 1.f, 9, 0.01f);
  const size_t n = x.size();
  std::vector<double> dense(9 * n * n, 0.0);  // (3n)^2
  auto add = [&](int i, int j, const M3T<double>& b) {
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) dense[(3 * size_t(i) + p) * 3 * n + 3 * size_t(j) + q] += b.m[p][q];
  };
  for (size_t t = 0; t < m.tris.size(); ++t) {
    Int3 f = m.tris[t];
    const Vec3d y[3] = {Vec3d(x[f.a]), Vec3d(x[f.b]), Vec3d(x[f.c])};
    Vec3d g[3];
    MembraneW<double> hw;
    membrane_grad_hess<double>(r.tris[t], y, g, &hw, true);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) add(f[i], f[j], membrane_block(r.tris[t], hw, i, j));
  }
  for (size_t b = 0; b < m.topo.bends.size(); ++b) {
    Int4 h = m.topo.bends[b];
    const int v[4] = {h.a, h.b, h.c, h.d};
    const Vec3d y[4] = {Vec3d(x[h.a]), Vec3d(x[h.b]), Vec3d(x[h.c]), Vec3d(x[h.d])};
    Vec3d g[4], gt[4];
    double hs;
    bending_grad<double>(r.bends[b], y, g, gt, &hs);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) add(v[i], v[j], outer(gt[i], gt[j]) * hs);
  }
  for (const Context& ctx : test::backends()) {
    Assembled a = assemble(ctx, m, r, bp, x);
    std::vector<double> got(9 * n * n, 0.0);
    for (size_t i = 0; i < n; ++i)
      for (uint32_t k = bp.row_offsets[i]; k < bp.row_offsets[i + 1]; ++k)
        for (int p = 0; p < 3; ++p)
          for (int q = 0; q < 3; ++q) got[(3 * i + p) * 3 * n + 3 * bp.cols[k] + q] = a.K[k].m[p][q];
    for (size_t e = 0; e < got.size(); ++e) EXPECT_NEAR(got[e], dense[e], 1e-3 * (1 + std::fabs(dense[e])));
  }
}

// The system A = (1 + h alpha) M + (h beta + h^2) K on ctx for K in CSR order
// (h = 1/60 s, beta = 1e-3 s), its blocks in the given layout.
struct DeviceSystem {
  DevicePattern dp;
  DeviceBuffer<M3> K;
  DeviceBuffer<float> mass, alpha, w;
  SystemView A;
  DeviceSystem(const Context& ctx, const BlockPattern& bp, const std::vector<M3>& K_csr, const std::vector<float>& m,
               const std::vector<float>& al, const std::vector<float>& inv_mass,
               BlockLayout layout = BlockLayout::Auto, bool split = true) {
    dp.upload(ctx, bp, layout, split);
    K.upload(ctx, dp.to_stored(K_csr));
    mass.upload(ctx, m);
    alpha.upload(ctx, al);
    w.upload(ctx, inv_mass);
    A.pat = dp.view();
    A.K = K.data();
    A.mass = mass.data();
    A.alpha = alpha.data();
    A.inv_mass = w.data();
    A.h = 1.f / 60;
    A.beta = 1e-3f;
  }
};

// A = (1 + h alpha) M + (h beta + h^2) K with K the gathered stiffness of a
// deformed grid: CG recovers x_true from b = A x_true; pinned entries keep the guess.
TEST(IClothCg, SolvesAKnownSpdSystem) {
  const auto [m, r, bp, x] = deformed_sheet(12, 10, 1.f, 11, 0.005f);
  const int n = int(x.size());
  std::vector<float> w(size_t(n), 1.f), alpha(size_t(n), 0.1f);
  w[0] = w[5] = 0.f;  // two pins
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(static_cast<size_t>(n)), guess(static_cast<size_t>(n));
  for (auto& p : xt) p = Vec3f{u(rng), u(rng), u(rng)};
  xt[0] = guess[0] = Vec3f{0.5f, 0.5f, 0.5f};
  xt[5] = guess[5] = Vec3f{-1, 2, 0};
  for (const Context& ctx : test::backends()) {
    Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    const SystemView& A = sys.A;
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, size_t(n)), sol(ctx, guess);
    apply_system(ctx, A, dxt.data(), b.data());
    CgScratch s;
    CgResult res = pcg_solve(ctx, A, b.data(), sol.data(), s, 1000, 1e-6f);
    EXPECT_LT(res.rel_residual, 1e-6);
    EXPECT_GT(res.iterations, 1);
    auto got = sol.to_host();
    for (int i = 0; i < n; ++i) EXPECT_LT(length(got[size_t(i)] - xt[size_t(i)]), 1e-3f) << "vertex " << i;
  }
}

// The iterations the host launches between two reads of the PCG's scalars: one
// on the CPU, where a read is free; on CUDA half of what the last batch's rate
// says is left, within [kCgBatch, kCgMaxBatch] and the cap. (The answer does not
// depend on the batches: a converged solve's later launches do nothing.)
TEST(IClothCg, BatchesFollowTheRateOfConvergence) {
  Context cuda;
  cuda.backend = Backend::Cuda;  // cg_batch reads only which backend
  CgScalars before, now;
  before.rz = 1.0;
  now.iterations = 8;
  now.rz = std::pow(0.9, 8);  // 0.9 an iteration
  now.tol2 = 1e-3;            // ln(1e-3 / 0.43) / ln(0.9) = 57.6 iterations left
  EXPECT_EQ(cg_batch(Context{}, before, now, 1000), 1);
  EXPECT_EQ(cg_batch(Context{}, before, now, 0), 0);
  EXPECT_EQ(cg_batch(cuda, before, now, 1000), 29);
  EXPECT_EQ(cg_batch(cuda, now, now, 1000), kCgBatch) << "the first batch: no rate yet";
  EXPECT_EQ(cg_batch(cuda, before, now, 20), 20) << "never past the cap";
  now.tol2 = 1e-9;  // 189 left: the most a batch takes
  EXPECT_EQ(cg_batch(cuda, before, now, 1000), kCgMaxBatch);
  now.tol2 = 0.4;  // under one iteration left: the least
  EXPECT_EQ(cg_batch(cuda, before, now, 1000), kCgBatch);
  now.tol2 = 1e-3;
  now.rz = 1.2;  // no progress: the least
  EXPECT_EQ(cg_batch(cuda, before, now, 1000), kCgBatch);
}

// The PCG's product with 2 or 4 threads a row (IClothParams::product_lanes):
// a row's shares sum to the row (system_row_part: the mass, K's blocks in both
// layouts, a contact block and the grab; the springs' entries are checked in
// IClothRepulsion.PairSpringsAreTheAssembledSymmetricProduct), and the solve
// lands where one thread a row lands, on every backend (on CUDA through
// rows_sum_lanes' kernel, a warp a share).
TEST(IClothCg, ProductLanesGiveTheSameSolve) {
  const auto [m, r, bp, x] = deformed_sheet(12, 10, 1.f, 13, 0.005f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  w[0] = w[5] = 0.f;
  std::mt19937 rng(17);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(n), guess(n, Vec3f{});
  for (auto& p : xt) p = Vec3f{u(rng), u(rng), u(rng)};
  guess[0] = xt[0];
  guess[5] = xt[5];
  std::vector<M3> extra(n, M3::identity(0.f));  // contact blocks at a few vertices (N/m)
  for (size_t i = 30; i < 40; ++i) add_outer(extra[i], 200.f, Vec3f{0, 1, 0}, Vec3f{0, 1, 0});
  Grab g;
  g.active = true;
  g.verts = Int3{40, 41, 52};
  g.bary = Vec3f{0.2f, 0.3f, 0.5f};
  for (const Context& ctx : test::backends())
    for (BlockLayout layout : {BlockLayout::Csr, BlockLayout::Sell32}) {
      const std::string name = std::string(backend_name(ctx.backend)) + (layout == BlockLayout::Csr ? ", CSR" : ", SELL");
      const Assembled a = assemble(ctx, m, r, bp, x, BlockLayout::Csr);
      const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w, layout);
      DeviceBuffer<M3> E(ctx, extra);
      SystemView A = sys.A;
      A.extra = E.data();
      A.grab = g;
      A.grab_k = 100.f;
      if (!ctx.is_cuda())  // the shares, read where they are: host memory
        for (uint32_t lanes : {2u, 4u})
          for (size_t i = 0; i < n; ++i) {
            const Vec3f row = system_row(A, xt.data(), int(i));
            Vec3f sum{};
            for (uint32_t l = 0; l < lanes; ++l) sum += system_row_part(A, xt.data(), int(i), l, lanes);
            EXPECT_LT(length(sum - row), 1e-5f * (1.f + length(row))) << name << ", " << lanes << " lanes, row " << i;
          }
      DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n);
      apply_system(ctx, A, dxt.data(), b.data());
      std::vector<Vec3f> one;
      int one_its = 0;
      for (int lanes : {1, 2, 4}) {
        A.lanes = lanes;
        DeviceBuffer<Vec3f> sol(ctx, guess);
        CgScratch s;
        const CgResult res = pcg_solve(ctx, A, b.data(), sol.data(), s, 1000, 1e-6f);
        EXPECT_LT(res.rel_residual, 1e-6) << name << ", " << lanes << " lanes";
        const std::vector<Vec3f> got = sol.to_host();
        if (lanes == 1) {
          one = got;
          one_its = res.iterations;
          ASSERT_GT(one_its, 10) << name;
          continue;
        }
        EXPECT_NEAR(res.iterations, one_its, 2) << name << ", " << lanes << " lanes";
        for (size_t i = 0; i < n; ++i) {
          EXPECT_LT(length(got[i] - one[i]), 1e-4f) << name << ", " << lanes << " lanes, row " << i;
          EXPECT_LT(length(got[i] - xt[i]), 1e-3f) << name << ", " << lanes << " lanes, row " << i;
        }
      }
    }
}

// The tolerance follows what the solve changes, not the momentum it starts
// from: sheet vertices moving at 30 m/s whose answer differs from the start by
// ~1 cm/s (a third of a thousandth). Scaled by the right-hand side (M v
// dominates it) the PCG stopped before its first iteration and left the whole
// change as the error; scaled by the starting residual it solves it. The
// stiffness is left out (K = 0, A = (1 + h alpha) M): then the float products of
// the fast part are exact and the error measures the solve alone.
TEST(IClothCg, ToleranceFollowsTheChangeNotTheMomentum) {
  const auto [m, r, bp, x] = deformed_sheet(12, 10, 1.f, 7, 0.005f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-2e-3f, 2e-3f);
  const Vec3f fast{30.f, -10.f, 20.f}, drift{0.01f, -0.005f, 0.004f};  // m/s
  std::vector<Vec3f> xt(n), guess(n, fast);
  float change = 0;  // m/s, the largest difference between the answer and the start
  for (size_t i = 0; i < n; ++i) {
    xt[i] = fast + drift + Vec3f{u(rng), u(rng), u(rng)};
    change = std::max(change, length(xt[i] - fast));
  }
  for (const Context& ctx : test::backends()) {
    Assembled a = assemble(ctx, m, r, bp, x);
    for (M3& k : a.K) k = M3{};
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n), sol(ctx, guess);
    apply_system(ctx, sys.A, dxt.data(), b.data());
    CgScratch s;
    const CgResult res = pcg_solve(ctx, sys.A, b.data(), sol.data(), s, 1000, 1e-3f);
    const auto got = sol.to_host();
    float err = 0;
    for (size_t i = 0; i < n; ++i) err = std::max(err, length(got[i] - xt[i]));
    EXPECT_LT(err, 0.05f * change) << backend_name(ctx.backend) << ": " << res.iterations << " iterations";
  }
}

// The error's energy norm (x - x*)^T A (x - x*) (kg m^2/s^2 for velocities).
double error_energy(const Context& ctx, const SystemView& A, const std::vector<Vec3f>& x,
                    const std::vector<Vec3f>& x_star) {
  const size_t n = x.size();
  std::vector<Vec3f> e(n);
  for (size_t i = 0; i < n; ++i) e[i] = x[i] - x_star[i];
  DeviceBuffer<Vec3f> de(ctx, e), Ae(ctx, n);
  apply_system(ctx, A, de.data(), Ae.data());
  const std::vector<Vec3f> ae = Ae.to_host();
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += double(dot(e[i], ae[i]));
  return s;
}

// What lets the springs' re-solves stop early (IClothParams::cg_resolve_iterations):
// from a warm start, the error's energy norm (x - x*)^T A (x - x*) falls with
// every iteration, so a solve capped at any count ends no further from the
// answer than where it started, and a higher cap ends no further than a lower.
// The start is the answer of a slightly different system (what a re-solve gets).
TEST(IClothCg, CappedSolveFromAWarmStartNeverEndsFurtherAway) {
  const auto [m, r, bp, x] = deformed_sheet(12, 10, 1.f, 13, 0.005f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(n), start(n);
  for (size_t i = 0; i < n; ++i) {
    xt[i] = Vec3f{u(rng), u(rng), u(rng)};
    start[i] = xt[i] + Vec3f{u(rng), u(rng), u(rng)} * (i % 17 == 0 ? 0.5f : 0.01f);  // a few rows changed
  }
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n);
    apply_system(ctx, sys.A, dxt.data(), b.data());
    auto energy_error = [&](const std::vector<Vec3f>& got) { return error_energy(ctx, sys.A, got, xt); };
    double last = energy_error(start);
    for (int cap : {1, 2, 5, 10, 30}) {
      DeviceBuffer<Vec3f> sol(ctx, start);
      CgScratch s;
      const CgResult res = pcg_solve(ctx, sys.A, b.data(), sol.data(), s, cap, 1e-6f);
      EXPECT_EQ(res.iterations, cap) << "stopped by the cap, not the tolerance";
      const double err = energy_error(sol.to_host());
      EXPECT_LT(err, last) << backend_name(ctx.backend) << ": cap " << cap;
      last = err;
    }
  }
}

// A rigid translation stretches nothing: A u = (1 + h alpha) M u for a
// uniform u, whatever the stiffness. With SystemView::k_differences the
// stiffness product works on the differences p_j - p_i (add_stiffness_row), so
// this holds to float rounding of the mass term. Summed as K_ii p_i + sum K_ij
// p_j (the default), the float assembly's row sums (~1e-6 of the largest
// entry; 20 x the default stretch stiffness on a 30 x 30 sheet) weigh more than
// the mass on this motion.
TEST(IClothSystem, ARigidMotionMeetsOnlyTheMass) {
  auto [m, r, bp, x] = deformed_sheet(30, 30, 1.f, 19, 0.002f);
  for (TriRest& t : r.tris) t.ku *= 20.f, t.kv *= 20.f, t.ks *= 20.f;
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  const Vec3f u{0.3f, -1.f, 0.2f};  // m/s
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    float worst[2] = {0, 0};  // relative to the mass term: sums, differences
    for (int diff = 0; diff < 2; ++diff) {
      SystemView A = sys.A;
      A.k_differences = diff == 1;
      DeviceBuffer<Vec3f> du(ctx, std::vector<Vec3f>(n, u)), Au(ctx, n);
      apply_system(ctx, A, du.data(), Au.data());
      const std::vector<Vec3f> got = Au.to_host();
      for (size_t i = 0; i < n; ++i) {
        const Vec3f want = u * ((1.f + A.h * alpha[i]) * m.mass[i]);
        worst[diff] = std::max(worst[diff], length(got[i] - want) / length(want));
      }
    }
    std::printf("%s: worst row off by %.3g of the mass term (sums), %.3g (differences)\n",
                backend_name(ctx.backend), worst[0], worst[1]);
    EXPECT_LT(worst[1], 1e-5f) << backend_name(ctx.backend);
    EXPECT_GT(worst[0], 0.1f) << backend_name(ctx.backend) << ": the test lost the case it is about";
  }
}

// The coarse start (coarse_start.h) on a falling sheet: no pins, no
// stiffness change along a uniform motion, so b - A v is gravity's impulse and
// the answer is v + h g at every vertex. Block-Jacobi PCG from v needs hundreds
// of iterations for that smooth change (the diagonal is stiffness-heavy and
// not uniform at the border); from the coarse start, none. The stopping test
// keeps the cold start's scale: the accuracy asked for is the same. With the
// stiffness product on differences (SystemView::k_differences): summed, the
// product's rounding grows with |v| (1 m/s here) and buries the change.
// The same with the multigrid's V-cycle as the preconditioner: its coarsest
// level holds the uniform motion too, but not exactly (a few cycles), and the
// coarse start still leaves nothing to do.
TEST(IClothCg, CoarseStartSolvesAFallingSheetAtOnce) {
  const auto [m, r, bp, x] = deformed_sheet(30, 30, 1.f, 19, 0.f);  // at rest shape
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  const Vec3f v0{0.3f, -1.f, 0.2f}, g{0, -9.81f, 0};  // m/s, m/s^2
  const float h = 1.f / 60;
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    SystemView A = sys.A;
    A.k_differences = true;
    const std::vector<Vec3f> xt(n, v0 + g * h);
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n);
    apply_system(ctx, A, dxt.data(), b.data());
    const std::vector<CoarsePiece> pieces{{0, int(n)}};
    Multigrid mg;
    mg.setup(ctx, bp);
    for (Multigrid* pre : {static_cast<Multigrid*>(nullptr), &mg}) {
      const std::string what = std::string(backend_name(ctx.backend)) + (pre ? ", multigrid" : ", block Jacobi");
      int its[2] = {0, 0};
      for (int coarse = 0; coarse < 2; ++coarse) {
        DeviceBuffer<Vec3f> sol(ctx, std::vector<Vec3f>(n, v0));
        CgScratch s;
        CoarseScratch cs;
        const CoarseStart start{&pieces, &cs};
        const CgResult res = pcg_solve(ctx, A, b.data(), sol.data(), s, 2000, 1e-4f, 0, pre, coarse ? &start : nullptr);
        its[coarse] = res.iterations;
        EXPECT_EQ(res.coarse.pieces, coarse) << what;
        const auto got = sol.to_host();
        float err = 0;
        for (size_t i = 0; i < n; ++i) err = std::max(err, length(got[i] - xt[i]));
        EXPECT_LT(err, 1e-2f * length(g * h)) << what << (coarse ? ", coarse" : ", cold");
      }
      std::printf("%s: PCG iterations from v %d, from the coarse start %d\n", what.c_str(), its[0], its[1]);
      EXPECT_EQ(its[1], 0) << what;
      EXPECT_GT(its[0], pre ? 1 : 50) << what << ": the cold start should need iterations";
    }
  }
}

// The coarse start is a Galerkin step: on any system it never leaves the
// error's energy norm (x - x*)^T A (x - x*) larger, and the drop equals g . c
// (CoarseResult::a_norm_gain). Two pieces, one with two pins, a random answer
// and a random start: the correction is no free-fall answer here, so this
// checks the projection itself.
TEST(IClothCg, CoarseStartNeverIncreasesTheEnergyError) {
  const auto [m, r, bp, x] = deformed_sheet(16, 12, 1.f, 23, 0.004f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  w[0] = w[15] = 0.f;
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(n), start(n);
  for (size_t i = 0; i < n; ++i) {
    xt[i] = Vec3f{u(rng), u(rng), u(rng)} * 0.1f + Vec3f{0.5f, -2.f, 0.3f};
    start[i] = Vec3f{u(rng), u(rng), u(rng)} * 0.1f;
  }
  xt[0] = start[0];
  xt[15] = start[15];
  const std::vector<CoarsePiece> pieces{{0, int(n / 2)}, {int(n / 2), int(n - n / 2)}};
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n), sol(ctx, start);
    apply_system(ctx, sys.A, dxt.data(), b.data());
    auto energy_error = [&](const std::vector<Vec3f>& got) { return error_energy(ctx, sys.A, got, xt); };
    const double before = energy_error(start);
    DeviceBuffer<Vec3f> Ax(ctx, n);  // the filtered residual b - A x of the start
    apply_system(ctx, sys.A, sol.data(), Ax.data());
    const std::vector<Vec3f> bh = b.to_host(), axh = Ax.to_host();
    std::vector<Vec3f> rh(n);
    for (size_t i = 0; i < n; ++i) rh[i] = w[i] == 0.f ? Vec3f{} : bh[i] - axh[i];
    DeviceBuffer<Vec3f> r(ctx, rh);
    CoarseScratch cs;
    const CoarseResult res = coarse_start(ctx, sys.A, r.data(), sol.data(), pieces, cs);
    const std::vector<Vec3f> got = sol.to_host();
    const double after = energy_error(got);
    EXPECT_EQ(res.pieces, 2);
    EXPECT_LT(after, before) << backend_name(ctx.backend);
    EXPECT_NEAR(before - after, res.a_norm_gain, 1e-3 * before) << backend_name(ctx.backend);
    EXPECT_EQ(got[0].x, start[0].x);  // pinned vertices keep the guess
    EXPECT_EQ(got[15].y, start[15].y);
  }
}

// K in sliced ELL order (what CUDA uses), its floats split by component or in
// whole blocks, is assembled to the same blocks and gives the same products,
// the same Jacobi blocks and the same CG solution as in CSR order, on every
// backend (a 12 x 10 grid: 120 rows, four slices, the last one partly empty)
TEST(IClothSystem, SellLayoutGivesTheSameSystemAsCsr) {
  const auto [m, r, bp, x] = deformed_sheet(12, 10, 1.f, 5, 0.005f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  w[3] = 0.f;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> v(n);
  for (auto& p : v) p = Vec3f{u(rng), u(rng), u(rng)};
  struct Layout {
    BlockLayout order;
    bool split;
    const char* name;
  };
  const Layout layouts[3] = {{BlockLayout::Csr, false, "CSR"},
                             {BlockLayout::Sell32, true, "SELL, split"},
                             {BlockLayout::Sell32, false, "SELL, whole blocks"}};
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x, BlockLayout::Csr);
    std::vector<Vec3f> y[3], sol[3];
    std::vector<M3> P[3];
    for (int l = 0; l < 3; ++l) {
      const Layout& lay = layouts[l];
      const Assembled own = assemble(ctx, m, r, bp, x, lay.order, lay.split);  // back in CSR order
      ASSERT_EQ(own.K.size(), a.K.size());
      for (size_t k = 0; k < a.K.size(); ++k)
        EXPECT_EQ(std::memcmp(&own.K[k], &a.K[k], sizeof(M3)), 0) << lay.name << ": the assembly, block " << k;
      const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w, lay.order, lay.split);
      const SystemView& A = sys.A;
      const std::vector<M3> back = sys.dp.to_csr(sys.dp.to_stored(a.K));
      ASSERT_EQ(back.size(), a.K.size());
      for (size_t k = 0; k < back.size(); ++k)
        EXPECT_EQ(std::memcmp(&back[k], &a.K[k], sizeof(M3)), 0) << lay.name << ": the round trip, block " << k;
      DeviceBuffer<M3> Pd(ctx, split_blocks(n));
      DeviceBuffer<Vec3f> dv(ctx, v), dy(ctx, n), dsol(ctx, n);
      apply_system(ctx, A, dv.data(), dy.data());
      block_jacobi(ctx, A, Pd.data());
      CgScratch s;
      pcg_solve(ctx, A, dy.data(), dsol.data(), s, 50, 1e-6f);
      y[l] = dy.to_host();
      const std::vector<M3> Ph = Pd.to_host();  // split by row where K is split
      for (size_t i = 0; i < n; ++i) P[l].push_back(load_block(Ph.data(), uint32_t(i), A.pat.split));
      sol[l] = dsol.to_host();
    }
    for (int l = 1; l < 3; ++l)
      for (size_t i = 0; i < n; ++i) {
        const char* name = layouts[l].name;
        EXPECT_EQ(y[0][i], y[l][i]) << backend_name(ctx.backend) << ", " << name << ", row " << i;
        for (int p = 0; p < 3; ++p)
          for (int q = 0; q < 3; ++q) EXPECT_EQ(P[0][i].m[p][q], P[l][i].m[p][q]) << name << ", row " << i;
        EXPECT_EQ(sol[0][i], sol[l][i]) << backend_name(ctx.backend) << ", " << name << ", row " << i;
      }
  }
}

// Solves A x = b from `guess` with block-Jacobi and with multigrid PCG (to 1e-6,
// at most 5000 iterations): both meet the tolerance and land within 1 cm/s of
// xt; returns their iteration counts {Jacobi, multigrid}.
std::array<int, 2> solve_both_ways(const Context& ctx, const SystemView& A, const BlockPattern& bp,
                                   const DeviceBuffer<Vec3f>& b, const std::vector<Vec3f>& guess,
                                   const std::vector<Vec3f>& xt) {
  std::array<int, 2> its{0, 0};
  for (int use_mg = 0; use_mg < 2; ++use_mg) {
    Multigrid mg;
    mg.setup(ctx, bp);
    DeviceBuffer<Vec3f> sol(ctx, guess);
    CgScratch s;
    const CgResult res = pcg_solve(ctx, A, b.data(), sol.data(), s, 5000, 1e-6f, 0, use_mg ? &mg : nullptr);
    its[size_t(use_mg)] = res.iterations;
    const char* how = use_mg ? ", multigrid" : ", Jacobi";
    EXPECT_LT(res.rel_residual, 1e-6) << backend_name(ctx.backend) << how;
    const auto got = sol.to_host();
    float err = 0;
    for (size_t i = 0; i < xt.size(); ++i) err = std::max(err, length(got[i] - xt[i]));
    EXPECT_LT(err, 1e-2f) << backend_name(ctx.backend) << how;
  }
  return its;
}

// The multigrid's structure (multigrid.h) on a 30 x 30 sheet's pattern: every
// node in one aggregate, each aggregate connected in the graph, each level
// smaller, the last at most 32 nodes, and every block of a level summed into
// exactly one block of the next (the Galerkin lists cover P^T A P).
TEST(IClothMultigrid, AggregatesAreConnectedAndEveryBlockIsSummedOnce) {
  const auto [m, r, bp, x] = deformed_sheet(30, 30, 1.f, 3, 0.f);
  int count = 0;
  const std::vector<int32_t> agg = aggregate_graph(bp.row_offsets, bp.cols, &count);
  const size_t n = agg.size();
  ASSERT_EQ(n, m.num_vertices());
  EXPECT_GT(count, int(n) / 40);
  EXPECT_LT(count, int(n) / 4);
  std::vector<int> size(size_t(count), 0), reached(size_t(count), 0);
  for (int32_t a : agg) {
    ASSERT_GE(a, 0);
    ASSERT_LT(a, count);
    size[size_t(a)]++;
  }
  std::vector<uint8_t> seen(n, 0);  // breadth-first within each aggregate from its first node
  for (size_t i = 0; i < n; ++i) {
    const int32_t a = agg[i];
    if (reached[size_t(a)]) continue;
    std::queue<size_t> q;
    q.push(i);
    seen[i] = 1;
    while (!q.empty()) {
      const size_t v = q.front();
      q.pop();
      reached[size_t(a)]++;
      for (uint32_t e = bp.row_offsets[v]; e < bp.row_offsets[v + 1]; ++e)
        if (agg[bp.cols[e]] == a && !seen[bp.cols[e]]) seen[bp.cols[e]] = 1, q.push(bp.cols[e]);
    }
  }
  for (int a = 0; a < count; ++a) EXPECT_EQ(reached[size_t(a)], size[size_t(a)]) << "aggregate " << a;

  const std::vector<MgLevelPattern> levels = build_mg_levels(int(n), bp.row_offsets, bp.cols, 32, 12);
  ASSERT_GE(levels.size(), 2u);
  EXPECT_LE(levels.back().n, 32);
  size_t below_n = n, below_nnz = bp.cols.size();
  for (const MgLevelPattern& L : levels) {
    EXPECT_LT(size_t(L.n), below_n);
    EXPECT_EQ(L.agg.size(), below_n);
    EXPECT_EQ(L.members.size(), below_n);
    std::vector<int> hits(below_nnz, 0);
    for (uint32_t e : L.contrib) hits[e]++;
    for (size_t e = 0; e < below_nnz; ++e) EXPECT_EQ(hits[e], 1) << "block " << e;
    for (int I = 0; I < L.n; ++I) EXPECT_EQ(L.cols[L.diag[size_t(I)]], uint32_t(I));
    below_n = size_t(L.n);
    below_nnz = L.cols.size();
  }
}

// The stiff sheet that block-Jacobi PCG needs many iterations for (a 40 x 40
// grid at 20,000 N/m, two pins): with the multigrid V-cycle as preconditioner
// the PCG meets the same tolerance (in the same norm) and recovers the same
// answer in a fraction of the iterations, on every backend.
TEST(IClothCg, MultigridSolvesTheSameSystemInAFractionOfTheIterations) {
  auto [m, r, bp, x] = deformed_sheet(40, 40, 1.f, 17, 0.002f);
  for (TriRest& t : r.tris) t.ku *= 20.f, t.kv *= 20.f, t.ks *= 20.f;
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  w[0] = w[39] = 0.f;  // the top corners
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(n), guess(n);
  for (auto& p : xt) p = Vec3f{u(rng), u(rng), u(rng)};
  xt[0] = guess[0] = Vec3f{};
  xt[39] = guess[39] = Vec3f{};
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    const DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n);
    apply_system(ctx, sys.A, dxt.data(), b.data());
    const std::array<int, 2> its = solve_both_ways(ctx, sys.A, bp, b, guess, xt);
    std::printf("%s: PCG iterations, Jacobi %d, multigrid %d\n", backend_name(ctx.backend), its[0], its[1]);
    EXPECT_LT(4 * its[1], its[0]) << backend_name(ctx.backend) << ": Jacobi " << its[0] << ", multigrid " << its[1];
  }
}

// The cloth-cloth springs couple vertices the pattern does not hold; the
// multigrid keeps them on every level (matrix-free, the coarsest dense). A
// sheet folded onto itself in the springs' sense (each vertex of the left half
// tied by a stiff spring with drag to the mirror triangle of the right half):
// the multigrid-preconditioned solve recovers the answer of A (springs
// included) and needs fewer iterations than Jacobi.
TEST(IClothCg, MultigridKeepsTheClothClothSprings) {
  const int N = 24;
  const auto [m, r, bp, x] = deformed_sheet(N, N, 1.f, 23, 0.001f);
  const size_t n = x.size();
  std::vector<float> w(n, 1.f), alpha(n, 0.1f);
  // VF pairs: vertex (i, j), i < N/2 - 1, against the triangle of (N-1-i, j)
  std::vector<ProxPair> pairs;
  for (int j = 0; j + 1 < N; j += 2)
    for (int i = 0; i < N / 2 - 1; i += 2) {
      ProxPair q;
      const int mi = N - 1 - i;
      q.v = Int4{j * N + i, j * N + mi, j * N + mi - 1, (j + 1) * N + mi};
      q.w[0] = 1.f, q.w[1] = -0.5f, q.w[2] = -0.25f, q.w[3] = -0.25f;
      q.n = q.sn = Vec3f{0, 0, 1};
      pairs.push_back(q);
    }
  const size_t np = pairs.size();
  std::vector<float> k(np, 0.f), c(np, 0.f);
  for (size_t p = 0; p < np; ++p) k[p] = 50.f, c[p] = 2e-3f;  // N/m and N s/m
  std::vector<uint32_t> off(n + 1, 0), entry;
  std::vector<std::vector<uint32_t>> inc(n);
  for (size_t p = 0; p < np; ++p) {
    const int32_t vs[4] = {pairs[p].v.a, pairs[p].v.b, pairs[p].v.c, pairs[p].v.d};
    for (uint32_t cn = 0; cn < 4; ++cn) inc[size_t(vs[cn])].push_back(uint32_t(p) << 2 | cn);
  }
  for (size_t v = 0; v < n; ++v) {
    entry.insert(entry.end(), inc[v].begin(), inc[v].end());
    off[v + 1] = uint32_t(entry.size());
  }
  std::vector<uint32_t> list(np), slot(4 * np);  // every pair has a spring
  for (size_t p = 0; p < np; ++p) list[p] = uint32_t(p);
  for (size_t e = 0; e < entry.size(); ++e) slot[entry[e]] = uint32_t(e);
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<Vec3f> xt(n);
  for (auto& p : xt) p = Vec3f{u(rng), u(rng), u(rng)};
  for (const Context& ctx : test::backends()) {
    const Assembled a = assemble(ctx, m, r, bp, x);
    DeviceSystem sys(ctx, bp, a.K, m.mass, alpha, w);
    DeviceBuffer<ProxPair> dp(ctx, pairs);
    DeviceBuffer<float> dk(ctx, k), dc(ctx, c);
    DeviceBuffer<uint32_t> doff(ctx, off), dent(ctx, entry), dlist(ctx, list), dslot(ctx, slot);
    DeviceBuffer<SpringShare> dt(ctx, entry.size());
    sys.A.prox = PairSprings{dp.data(), dk.data(), dc.data(), doff.data(), dent.data(), dlist.data(),
                             uint32_t(np), dslot.data(), dt.data()};
    DeviceBuffer<Vec3f> dxt(ctx, xt), b(ctx, n);
    apply_system(ctx, sys.A, dxt.data(), b.data());
    {  // every level's operator is P^T A P, the springs included
      Multigrid mg;
      mg.setup(ctx, bp);
      mg.update(ctx, sys.A);
      for (int l = 0; l < mg.num_levels(); ++l) {
        const std::vector<int32_t> map = mg.level_map(l);
        const size_t nl = size_t(mg.level_size(l));
        std::vector<Vec3f> xc(nl), xf(n), want(nl);
        for (auto& p : xc) p = Vec3f{u(rng), u(rng), u(rng)};
        for (size_t v = 0; v < n; ++v) xf[v] = xc[size_t(map[v])];
        DeviceBuffer<Vec3f> dxf(ctx, xf), dyf(ctx, n), dxc(ctx, xc), dyc(ctx, nl);
        apply_system(ctx, sys.A, dxf.data(), dyf.data());
        const std::vector<Vec3f> yf = dyf.to_host();
        for (size_t v = 0; v < n; ++v) want[size_t(map[v])] += yf[v];
        mg.apply_level(ctx, l, dxc.data(), dyc.data());
        const std::vector<Vec3f> got = dyc.to_host();
        for (size_t I = 0; I < nl; ++I)
          EXPECT_LT(length(got[I] - want[I]), 1e-3f * (1.f + length(want[I])))
              << backend_name(ctx.backend) << ", level " << l << ", node " << I;
      }
    }
    const std::array<int, 2> its = solve_both_ways(ctx, sys.A, bp, b, std::vector<Vec3f>(n), xt);
    std::printf("%s: PCG iterations with springs, Jacobi %d, multigrid %d\n", backend_name(ctx.backend), its[0], its[1]);
    EXPECT_LT(its[1], its[0]) << backend_name(ctx.backend) << ": Jacobi " << its[0] << ", multigrid " << its[1];
  }
}

}  // namespace
}  // namespace cb::icloth
