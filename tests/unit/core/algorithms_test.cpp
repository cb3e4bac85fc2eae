// Tests of the compute layer primitives on every available backend; on a GPU
// machine each result is compared with the CPU backend's.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include <omp.h>

#include "sim/core/algorithms.h"
#include "sim/core/buffer.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::vector<uint32_t> random_keys(size_t n, uint32_t range, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> k(n);
  for (auto& v : k) v = rng() % range;
  return k;
}

TEST(Algorithms, StableSortByKeyMatchesStdStableSort) {
  for (const Context& ctx : test::backends()) {
    auto keys = random_keys(100000, 1000, 1);
    std::vector<uint32_t> vals(keys.size());
    std::iota(vals.begin(), vals.end(), 0);
    DeviceBuffer<uint32_t> k(ctx, keys), v(ctx, vals);
    sort_by_key(ctx, k.data(), v.data(), keys.size());
    std::vector<size_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return keys[a] < keys[b]; });
    auto hk = k.to_host(), hv = v.to_host();
    for (size_t i = 0; i < keys.size(); ++i) {
      ASSERT_EQ(hk[i], keys[order[i]]);
      ASSERT_EQ(hv[i], uint32_t(order[i])) << "sort must be stable (equal keys keep their order)";
    }
  }
}

TEST(Algorithms, Sort64BitKeys) {
  for (const Context& ctx : test::backends()) {
    std::vector<uint64_t> keys = {5ull << 40, 3, 1ull << 33, 3, 0};
    std::vector<uint32_t> vals = {0, 1, 2, 3, 4};
    DeviceBuffer<uint64_t> k(ctx, keys);
    DeviceBuffer<uint32_t> v(ctx, vals);
    sort_by_key(ctx, k.data(), v.data(), keys.size());
    EXPECT_EQ(v.to_host(), (std::vector<uint32_t>{4, 1, 3, 2, 0}));
  }
}

TEST(Algorithms, ExclusiveScanInPlaceReturnsTotal) {
  for (const Context& ctx : test::backends()) {
    std::vector<uint32_t> in = random_keys(12345, 7, 2);
    DeviceBuffer<uint32_t> b(ctx, in);
    uint32_t total = exclusive_scan(ctx, b.data(), b.data(), in.size());
    auto out = b.to_host();
    uint32_t acc = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      ASSERT_EQ(out[i], acc);
      acc += in[i];
    }
    EXPECT_EQ(total, acc);
  }
}

TEST(Algorithms, ReduceSumMinMax) {
  for (const Context& ctx : test::backends()) {
    std::vector<float> x(50001);
    for (size_t i = 0; i < x.size(); ++i) x[i] = float(int(i % 101) - 50) * 0.5f;
    DeviceBuffer<float> b(ctx, x);
    double want = 0;
    for (float v : x) want += v;
    EXPECT_NEAR(reduce_sum(ctx, b.data(), x.size()), want, 1e-6 * x.size());
    EXPECT_EQ(reduce_max(ctx, b.data(), x.size()), 25.f);
    EXPECT_EQ(reduce_min(ctx, b.data(), x.size()), -25.f);
  }
}

// the box around many random boxes: exactly the componentwise min / max
TEST(Algorithms, ReduceBoundsIsTheBoxAroundAllBoxes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-50.f, 50.f), e(0.f, 3.f);
  std::vector<Aabb> boxes(30001);
  Aabb want;
  for (Aabb& b : boxes) {
    b.lo = Vec3f{u(rng), u(rng), u(rng)};
    b.hi = b.lo + Vec3f{e(rng), e(rng), e(rng)};
    want.grow(b);
  }
  for (const Context& ctx : test::backends()) {
    DeviceBuffer<Aabb> d(ctx, boxes);
    const Aabb got = reduce_bounds(ctx, d.data(), boxes.size());
    EXPECT_EQ(got.lo, want.lo) << backend_name(ctx.backend);
    EXPECT_EQ(got.hi, want.hi) << backend_name(ctx.backend);
    EXPECT_TRUE(reduce_bounds(ctx, d.data(), 0).empty());
  }
}

TEST(Algorithms, CpuSumDoesNotDependOnThreadCount) {
  std::vector<float> x(1 << 20);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = u(rng);
  Context cpu;
  DeviceBuffer<float> b(cpu, x);
  int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  double one = reduce_sum(cpu, b.data(), x.size());
  omp_set_num_threads(7);
  double seven = reduce_sum(cpu, b.data(), x.size());
  omp_set_num_threads(saved);
  EXPECT_EQ(one, seven) << "bit-identical whatever the thread count";
}

TEST(Algorithms, CompactIndicesAndRunStarts) {
  for (const Context& ctx : test::backends()) {
    std::vector<uint32_t> flags = {0, 1, 1, 0, 0, 1, 0};
    DeviceBuffer<uint32_t> f(ctx, flags), out(ctx, flags.size());
    size_t n = compact_indices(ctx, f.data(), out.data(), flags.size());
    auto h = out.to_host();
    h.resize(n);
    EXPECT_EQ(h, (std::vector<uint32_t>{1, 2, 5}));

    std::vector<uint32_t> keys = {2, 2, 5, 7, 7, 7, 9};
    DeviceBuffer<uint32_t> k(ctx, keys), uk(ctx, keys.size()), st(ctx, keys.size());
    size_t runs = run_starts(ctx, k.data(), keys.size(), uk.data(), st.data());
    auto hk = uk.to_host(), hs = st.to_host();
    hk.resize(runs);
    hs.resize(runs);
    EXPECT_EQ(hk, (std::vector<uint32_t>{2, 5, 7, 9}));
    EXPECT_EQ(hs, (std::vector<uint32_t>{0, 2, 3, 6}));
  }
}

}  // namespace
}  // namespace cb
