// The three sphere stores (sorted hash grid, the thesis's dense grid, the
// all-pairs marble test) must find identical contact lists, and the hash grid
// must agree with brute force anywhere in space.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "sim/core/buffer.h"
#include "sim/core/parallel.h"
#include "sim/model/cloth_model.h"
#include "sim/model/grid.h"
#include "sim/solvers/verlet/solver.h"
#include "support/test_support.h"

namespace cb {
namespace {

constexpr int K = 32;

struct Lists {
  std::vector<uint32_t> count, ids;
};

struct Buffers {
  DeviceBuffer<uint32_t> count, ids;
  verlet::ContactLists view(const Context& ctx, int n) {
    count.resize(ctx, size_t(n));
    ids.resize(ctx, size_t(n) * K);
    return {count.data(), ids.data(), K, n};
  }
  Lists host() const { return {count.to_host(), ids.to_host()}; }
};

enum class Store { HashWide, HashThesis, Dense, AllPairs };

Lists contacts(const Context& ctx, Store store, const DeviceBuffer<Vec3f>& x, float D, float radius,
               const verlet::ContactFilter& f, int* lost = nullptr) {
  const int n = int(x.size());
  Buffers b;
  verlet::ContactLists cl = b.view(ctx, n);
  ParticleHash hash;
  DenseSphereGrid dense;
  switch (store) {
    case Store::HashWide:
    case Store::HashThesis:
      hash.build(ctx, x.data(), n, store == Store::HashWide ? radius : D / std::sqrt(3.f));
      verlet::find_contacts_hash(ctx, hash.view(), x.data(), n, radius, f, cl);
      break;
    case Store::Dense:
      EXPECT_TRUE(dense.build(ctx, x.data(), n, D / std::sqrt(3.f), size_t(1) << 26));
      verlet::find_contacts_dense(ctx, dense.view(), x.data(), n, radius, f, cl);
      if (lost) *lost = dense.lost();
      break;
    case Store::AllPairs: verlet::find_contacts_all_pairs(ctx, x.data(), n, radius, f, cl); break;
  }
  return b.host();
}

void expect_same(const Lists& a, const Lists& b, const char* what) {
  ASSERT_EQ(a.count.size(), b.count.size());
  for (size_t i = 0; i < a.count.size(); ++i) {
    ASSERT_EQ(a.count[i], b.count[i]) << what << ": sphere " << i;
    for (uint32_t k = 0; k < a.count[i]; ++k) ASSERT_EQ(a.ids[i * K + k], b.ids[i * K + k]) << what << ": sphere " << i;
  }
}

size_t total(const Lists& l) {
  size_t s = 0;
  for (uint32_t c : l.count) s += c;
  return s;
}

// Brute force on the host: the pairs within `radius`, as (min, max) ids.
std::set<std::pair<uint32_t, uint32_t>> brute_pairs(const std::vector<Vec3f>& x, float radius) {
  std::set<std::pair<uint32_t, uint32_t>> s;
  for (uint32_t i = 0; i < x.size(); ++i)
    for (uint32_t j = i + 1; j < x.size(); ++j)
      if (length2(x[j] - x[i]) < radius * radius) s.insert({i, j});
  return s;
}

std::vector<Vec3f> random_cloud(int n, float side, Vec3f offset, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, side);
  std::vector<Vec3f> x(static_cast<size_t>(n));
  for (Vec3f& p : x) p = Vec3f{u(rng), u(rng), u(rng)} + offset;
  return x;
}

TEST(SphereContacts, StoresAgreeOnARandomCloud) {
  const float D = 0.02f, radius = 1.25f * D;
  for (const Context& ctx : test::backends()) {
    std::vector<Vec3f> hx = random_cloud(4000, 0.32f, {-0.1f, 0.2f, 0.05f}, 7);
    DeviceBuffer<Vec3f> x(ctx, hx);
    verlet::ContactFilter none;  // only i == j is skipped
    Lists all = contacts(ctx, Store::AllPairs, x, D, radius, none);
    int lost = 0;
    expect_same(all, contacts(ctx, Store::HashWide, x, D, radius, none), "hash 3x3x3");
    expect_same(all, contacts(ctx, Store::HashThesis, x, D, radius, none), "hash 5x5x5");
    expect_same(all, contacts(ctx, Store::Dense, x, D, radius, none, &lost), "dense");
    EXPECT_GT(lost, 0) << "the cloud is dense enough that centres share cells (overflow path)";
    // and the lists are exactly the brute-force pairs (none truncated at K)
    auto pairs = brute_pairs(hx, radius);
    EXPECT_EQ(total(all), 2 * pairs.size());
    EXPECT_GT(pairs.size(), 1000u);
    for (uint32_t c : all.count) ASSERT_LT(c, uint32_t(K));
  }
}

// A lattice whose spheres have far more than K neighbours in reach, many at
// equal distances: the lists keep the K closest, ties by id, whichever store
// (on the CPU the hash query finds each pair once and fills both lists from
// two threads, so this also checks that the result does not depend on the
// order of the offers).
TEST(SphereContacts, StoresAgreeWhenListsOverflowWithTies) {
  const float a = 0.01f, D = 2.f * a, radius = 1.25f * D;
  for (const Context& ctx : test::backends()) {
    std::vector<Vec3f> hx;
    for (int z = 0; z < 16; ++z)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) hx.push_back(Vec3f{float(x), float(y), float(z)} * a + Vec3f{0.5f, -1.f, 2.f});
    DeviceBuffer<Vec3f> x(ctx, hx);
    verlet::ContactFilter none;
    Lists all = contacts(ctx, Store::AllPairs, x, D, radius, none);
    expect_same(all, contacts(ctx, Store::HashWide, x, D, radius, none), "hash 3x3x3");
    expect_same(all, contacts(ctx, Store::HashThesis, x, D, radius, none), "hash 5x5x5");
    size_t full = 0;
    for (uint32_t c : all.count) full += c == uint32_t(K) ? 1 : 0;
    EXPECT_GT(full, hx.size() / 2) << "most lists overflow (an interior sphere has 80 neighbours in reach)";
  }
}

TEST(SphereContacts, HashGridWorksFarFromTheOrigin) {
  const float D = 0.02f, radius = 1.25f * D;
  for (const Context& ctx : test::backends()) {
    std::vector<Vec3f> hx = random_cloud(2000, 0.25f, {-1000.f, 2000.f, -500.f}, 3);
    DeviceBuffer<Vec3f> x(ctx, hx);
    verlet::ContactFilter none;
    Lists all = contacts(ctx, Store::AllPairs, x, D, radius, none);
    expect_same(all, contacts(ctx, Store::HashWide, x, D, radius, none), "hash far away");
    EXPECT_EQ(total(all), 2 * brute_pairs(hx, radius).size());
  }
}

// The hash grid's bucket runs (rows of x-neighbour cells) must cover each
// particle within the radius exactly once, also when rows share buckets or wrap
// past the table end: a 64-bucket table holding 1500 particles forces both, for
// blocks of reach 1, 2 and 3 and for the exact-cell path (reach 4). CPU only:
// the query kernel is written here, in a host-compiled file (the CUDA build of
// the table is covered by the store comparisons above).
TEST(SphereContacts, HashQueriesVisitEachNeighbourOnceWithATinyTable) {
  {
    const Context ctx;
    std::vector<Vec3f> hx = random_cloud(1500, 0.3f, {-0.7f, 0.1f, 3.f}, 11);
    DeviceBuffer<Vec3f> x(ctx, hx);
    const int n = int(hx.size());
    for (int reach : {1, 2, 3, 4}) {
      const float radius = 0.03f, cell = radius / float(reach) * 1.001f;
      ParticleHash hash;
      hash.build(ctx, x.data(), n, cell, 0.01f);
      ASSERT_EQ(hash.table_size(), 64u);
      const ParticleHashView v = hash.view();
      // per query: visits, and visits of particles outside the radius (must be 0)
      DeviceBuffer<uint32_t> visits(ctx, size_t(n)), sum(ctx, size_t(n));
      uint32_t* pv = visits.data();
      uint32_t* ps = sum.data();
      const Vec3f* px = x.data();
      parallel_for(ctx, n, [=] CB_HD(int i) {
        uint32_t c = 0, s = 0;
        v.for_each_within(px[i], radius, [&](uint32_t j, Vec3f) { c++, s += j; });
        pv[i] = c, ps[i] = s;
      });
      std::vector<uint32_t> hv = visits.to_host(), hs = sum.to_host();
      for (int i = 0; i < n; ++i) {
        uint32_t c = 0, s = 0;
        for (int j = 0; j < n; ++j)
          if (length2(hx[size_t(j)] - hx[size_t(i)]) < radius * radius) c++, s += uint32_t(j);
        ASSERT_EQ(hv[size_t(i)], c) << "reach " << reach << ", particle " << i;
        ASSERT_EQ(hs[size_t(i)], s) << "reach " << reach << ", particle " << i;
      }
    }
  }
}

// A 32 x 32 quad sheet folded in half: the top half lies 0.8 spacings above the
// bottom half, shifted by a third of a spacing. Spring neighbours never collide.
TEST(SphereContacts, StoresAgreeOnAFoldedSheet) {
  const int nx = 32, ny = 32;
  GridSpec g;
  g.nx = nx, g.ny = ny, g.width = 1.f, g.height = 1.f;
  ClothInput in;
  in.mesh = make_grid(g);
  in.grid = {GridLayout::Quad, nx, ny, grid_spacing(g)};
  ClothModel model = build_cloth_model({in});
  const float h = grid_spacing(g);
  std::vector<Vec3f> hx(model.rest.size());
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      bool top = j >= ny / 2;
      float row = top ? float(ny - 1 - j) + 0.33f : float(j);
      hx[size_t(j * nx + i)] = Vec3f{float(i) * h + (top ? 0.3f * h : 0.f), row * h, top ? 0.8f * h : 0.f};
    }
  for (const Context& ctx : test::backends()) {
    VerletSolver solver(ctx, model);
    const float D = 2.f * solver.sphere_radius(), radius = 1.25f * D;
    DeviceBuffer<Vec3f> x(ctx, hx);
    verlet::ContactFilter f = solver.contact_filter();
    Lists all = contacts(ctx, Store::AllPairs, x, D, radius, f);
    expect_same(all, contacts(ctx, Store::HashWide, x, D, radius, f), "hash 3x3x3");
    expect_same(all, contacts(ctx, Store::HashThesis, x, D, radius, f), "hash 5x5x5");
    expect_same(all, contacts(ctx, Store::Dense, x, D, radius, f), "dense");
    EXPECT_GT(total(all), size_t(nx * ny)) << "the two layers must touch";
    // no spring neighbour is ever listed
    const SpringLists& s = solver.springs();
    for (size_t i = 0; i < all.count.size(); ++i)
      for (uint32_t k = 0; k < all.count[i]; ++k) {
        uint32_t j = all.ids[i * K + k];
        for (uint32_t e = s.offsets[i]; e < s.offsets[i + 1]; ++e) ASSERT_NE(s.nbr[e], j);
      }
  }
}

TEST(SphereContacts, KeepsTheClosestWhenTheListIsFull) {
  for (const Context& ctx : test::backends()) {
    // 40 spheres on a line around sphere 0, all within the radius
    std::vector<Vec3f> hx{{0, 0, 0}};
    for (int k = 1; k <= 40; ++k) hx.push_back({0.001f * float(k) * (k % 2 ? 1.f : -1.f), 0, 0});
    DeviceBuffer<Vec3f> x(ctx, hx);
    verlet::ContactFilter none;
    Lists hash = contacts(ctx, Store::HashWide, x, 0.1f, 0.1f, none);
    ASSERT_EQ(hash.count[0], uint32_t(K));
    for (int k = 0; k < K; ++k) EXPECT_EQ(hash.ids[size_t(k)], uint32_t(k + 1));  // distance order
    expect_same(hash, contacts(ctx, Store::AllPairs, x, 0.1f, 0.1f, none), "all pairs");
  }
}

}  // namespace
}  // namespace cb
