// collect_in_order (the CPU backend's one-pass emission): every element's items,
// in element order, exactly as count / scan / write would place them, with one
// stream or two, with and without an OpenMP team.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "sim/core/collect.h"
#include "sim/core/math.h"

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace cb {
namespace {

// element i emits (i % 7) items (i, k) to the first stream and (i % 3) items
// (k, -i) to the second; room is exact for some elements and loose for others
struct Items {
  std::array<uint32_t, 2> operator()(int i, const std::array<Int2*, 2>& w) const {
    for (int k = 0; k < i % 7; ++k) w[0][k] = Int2{i, k};
    for (int k = 0; k < i % 3; ++k) w[1][k] = Int2{k, -i};
    return {uint32_t(i % 7), uint32_t(i % 3)};
  }
};
struct Room {
  std::array<uint32_t, 2> operator()(int i) const { return {uint32_t(i % 2 ? 6 : 40), 2u}; }
};

std::vector<Int2> expected(int n, int stream) {
  std::vector<Int2> out;
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < (stream == 0 ? i % 7 : i % 3); ++k) out.push_back(stream == 0 ? Int2{i, k} : Int2{k, -i});
  return out;
}

bool same(const std::vector<Int2>& a, const std::vector<Int2>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].a != b[i].a || a[i].b != b[i].b) return false;
  return true;
}

TEST(CollectInOrder, TwoStreamsHoldEveryItemInElementOrder) {
  const Context ctx = make_context(BackendRequest::Cpu);
  for (int n : {0, 1, 100, 50000}) {  // 50,000: an OpenMP team where there is one
    DeviceBuffer<Int2> a, b;
    collect_in_order<Int2, 2>(ctx, n, Room{}, Items{}, std::array<DeviceBuffer<Int2>*, 2>{&a, &b});
    EXPECT_TRUE(same(a.to_host(), expected(n, 0))) << "n " << n;
    EXPECT_TRUE(same(b.to_host(), expected(n, 1))) << "n " << n;
  }
}

TEST(CollectInOrder, OneStreamIsTheSameWithOneThreadOrMany) {
  const Context ctx = make_context(BackendRequest::Cpu);
  const int n = 30000;
  auto run = [&]() {
    DeviceBuffer<Int2> out;
    const size_t m = collect_in_order(
        ctx, n, [](int i) { return uint32_t(i % 5); },
        [](int i, Int2* w) {
          for (int k = 0; k < i % 5; ++k) w[k] = Int2{i, 10 * k};
          return uint32_t(i % 5);
        },
        out);
    EXPECT_EQ(m, out.size());
    return out.to_host();
  };
  const std::vector<Int2> many = run();
#if defined(_OPENMP)
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const std::vector<Int2> one = run();
  omp_set_num_threads(threads);
#else
  const std::vector<Int2> one = run();
#endif
  EXPECT_TRUE(same(many, one));
  EXPECT_EQ(many.size(), size_t(2 * n));  // 0 + 1 + 2 + 3 + 4 per 5 elements
  EXPECT_EQ(many.back().a, n - 1);
}

}  // namespace
}  // namespace cb
