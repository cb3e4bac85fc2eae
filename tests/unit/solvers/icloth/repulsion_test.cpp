// Cloth-cloth proximity repulsion and friction of I-Cloth (repulsion.h): the
// pairs found against brute force, the filter stops approach, pushes overlapping
// pairs apart, conserves momentum, applies Coulomb friction and leaves pins and
// separating pairs alone.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <set>

#include "sim/collision/proximity.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "sim/solvers/icloth/repulsion.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

constexpr float kThick = 0.004f;

// a cloth given as positions and triangles, with the filter's inputs on a backend
struct Cloth {
  std::vector<Vec3f> x, v;
  std::vector<Int3> tris;
  std::vector<float> w;  // inverse mass
  float mass = 1e-3f;
};

struct Filter {
  ClothRepulsion rep;
  DeviceBuffer<Vec3f> x, v;
  DeviceBuffer<float> th, fr, w;
  Filter(const Context& ctx, const Cloth& c, float mu) {
    rep.set_cloth(ctx, c.x.size(), c.tris, build_topology(c.x.size(), c.tris));
    x.upload(ctx, c.x);
    v.upload(ctx, c.v);
    th.upload(ctx, std::vector<float>(c.x.size(), kThick));
    fr.upload(ctx, std::vector<float>(c.x.size(), mu));
    w.upload(ctx, c.w);
  }
  size_t find(const Context& ctx, const RepulsionSettings& s) {
    return rep.find(ctx, x.data(), th.data(), fr.data(), kThick, s);
  }
  void filter(const Context& ctx, float h, const RepulsionSettings& s) {
    for (int p = 0; p < s.passes; ++p)
      if (rep.apply_pass(ctx, v.data(), w.data(), h, s) == 0) break;
  }
};

// two 0.1 m triangles, the second 0.5 thickness above the first, shifted so that
// its first vertex lies over the inside of the first
Cloth two_triangles() {
  Cloth c;
  c.x = {{0, 0, 0}, {0.1f, 0, 0}, {0, 0, 0.1f}, {0.02f, 0.5f * kThick, 0.02f}, {0.12f, 0.5f * kThick, 0.02f},
         {0.02f, 0.5f * kThick, 0.12f}};
  c.tris = {{0, 1, 2}, {3, 4, 5}};
  c.v.assign(6, Vec3f{});
  c.w.assign(6, 1.f / c.mass);
  return c;
}

Vec3f momentum(const std::vector<Vec3f>& v, const std::vector<float>& w) {
  Vec3f p{};
  for (size_t i = 0; i < v.size(); ++i)
    if (w[i] != 0.f) p += v[i] / w[i];
  return p;
}

// relative normal velocity of each pair (n . sum w_k v_k)
std::vector<float> normal_velocities(const std::vector<ProxPair>& pairs, const std::vector<Vec3f>& v) {
  std::vector<float> out;
  for (const ProxPair& p : pairs) {
    const int id[4] = {p.v.a, p.v.b, p.v.c, p.v.d};
    Vec3f s{};
    for (int k = 0; k < 4; ++k) s += v[size_t(id[k])] * p.w[k];
    out.push_back(dot(p.n, s));
  }
  return out;
}

TEST(IClothRepulsion, FindsExactlyThePairsCloserThanTheDistance) {
  // two bumpy 7x7 sheets about one thickness apart
  GridSpec g;
  g.nx = g.ny = 7;
  g.width = g.height = 0.1f;
  TriMesh m = make_grid(g);
  Cloth c;
  for (int layer = 0; layer < 2; ++layer) {
    const int off = int(c.x.size());
    for (size_t i = 0; i < m.positions.size(); ++i) {
      const Vec3f p = m.positions[i];
      const float y = layer ? kThick * (0.9f + 0.6f * std::sin(37.f * float(i))) : 0.f;
      c.x.push_back(Vec3f{p.x + 0.004f * layer, y, p.y + 0.003f * layer});
    }
    for (const Int3& t : m.tris) c.tris.push_back({t.a + off, t.b + off, t.c + off});
  }
  c.v.assign(c.x.size(), Vec3f{});
  c.w.assign(c.x.size(), 1.f);
  RepulsionSettings s;
  const float D = s.scale * kThick;
  // brute force over every non-adjacent VF and EE pair
  const Topology topo = build_topology(c.x.size(), c.tris);
  std::set<std::array<int, 4>> want;
  for (size_t v = 0; v < c.x.size(); ++v)
    for (const Int3& t : c.tris) {
      if (int(v) == t.a || int(v) == t.b || int(v) == t.c) continue;
      if (closest_point_triangle(c.x[v], c.x[t.a], c.x[t.b], c.x[t.c]).dist2 < D * D) want.insert({int(v), t.a, t.b, t.c});
    }
  for (size_t i = 0; i < topo.edges.size(); ++i)
    for (size_t j = i + 1; j < topo.edges.size(); ++j) {
      const Int2 a = topo.edges[i], b = topo.edges[j];
      if (a.a == b.a || a.a == b.b || a.b == b.a || a.b == b.b) continue;
      if (closest_points_segments(c.x[a.a], c.x[a.b], c.x[b.a], c.x[b.b]).dist2 < D * D) want.insert({a.a, a.b, b.a, b.b});
    }
  ASSERT_GT(want.size(), 50u);
  for (const Context& ctx : test::backends()) {
    Filter r(ctx, c, 0.3f);
    ASSERT_EQ(r.find(ctx, s), want.size());
    std::set<std::array<int, 4>> got;
    for (const ProxPair& p : r.rep.pairs()) {
      std::array<int, 4> k{p.v.a, p.v.b, p.v.c, p.v.d};
      if (!want.count(k)) std::swap(k[0], k[2]), std::swap(k[1], k[3]);  // EE in the other order
      got.insert(k);
      // the weights give the vector between the closest points, along n
      Vec3f d{};
      const int id[4] = {p.v.a, p.v.b, p.v.c, p.v.d};
      float wsum = 0;
      for (int q = 0; q < 4; ++q) {
        d += c.x[size_t(id[q])] * p.w[q];
        wsum += p.w[q];
      }
      EXPECT_NEAR(wsum, 0.f, 1e-5f);
      EXPECT_NEAR(dot(d, p.n), D - p.overlap, 2e-6f);
      EXPECT_NEAR(length(d - p.n * dot(d, p.n)), 0.f, 2e-6f);
      EXPECT_FLOAT_EQ(p.mu, 0.3f);
    }
    EXPECT_EQ(got, want);
  }
}

TEST(IClothRepulsion, StopsApproachPushesApartAndConservesMomentum) {
  Cloth c = two_triangles();
  for (int i = 3; i < 6; ++i) c.v[i] = Vec3f{0, -1.f, 0};  // the upper triangle falls at 1 m/s
  const float h = 1.f / 120;
  for (const Context& ctx : test::backends()) {
    Filter r(ctx, c, 0.f);
    RepulsionSettings s;
    s.passes = 64;
    ASSERT_GT(r.find(ctx, s), 0u);
    r.filter(ctx, h, s);
    const std::vector<Vec3f> v = r.v.to_host();
    const std::vector<ProxPair> pairs = r.rep.pairs();
    const std::vector<float> vn = normal_velocities(pairs, v);
    for (size_t i = 0; i < pairs.size(); ++i) {
      const float target = s.rate * pairs[i].overlap / h;
      EXPECT_GT(vn[i], target - 0.011f * pairs[i].reach / h) << "pair " << i << " still approaches";
    }
    const Vec3f p0 = momentum(c.v, c.w), p1 = momentum(v, c.w);
    EXPECT_LT(length(p1 - p0), 1e-6f * length(p0)) << "impulses conserve momentum";
    for (size_t i = 0; i < pairs.size(); ++i) EXPECT_LT(vn[i], 1.f) << "no pair is thrown apart";
  }
}

TEST(IClothRepulsion, CoulombFrictionFromTheNormalImpulse) {
  const float h = 1.f / 120;
  for (const Context& ctx : test::backends()) {
    for (float slide : {0.05f, 2.f}) {  // below and above mu * dv_N
      Cloth c = two_triangles();
      for (int i = 3; i < 6; ++i) c.v[i] = Vec3f{slide, -1.f, 0};
      Filter r(ctx, c, 0.5f);
      RepulsionSettings s;
      s.passes = 64;
      s.rate = 0.f;  // only the inelastic impulse: dv_N = 1 m/s relative
      r.find(ctx, s);
      r.filter(ctx, h, s);
      const std::vector<Vec3f> v = r.v.to_host();
      const std::vector<ProxPair> pairs = r.rep.pairs();
      for (const ProxPair& p : pairs) {  // relative tangential velocity at each pair
        const int id[4] = {p.v.a, p.v.b, p.v.c, p.v.d};
        Vec3f rel{};
        for (int k = 0; k < 4; ++k) rel += v[size_t(id[k])] * p.w[k];
        const float vt = length(rel - p.n * dot(rel, p.n));
        if (slide < 0.5f) {
          EXPECT_LT(vt, 0.1f * slide) << "static friction stops the sliding";
        } else {
          EXPECT_NEAR(vt, slide - 0.5f * 1.f, 0.1f) << "kinetic friction removes mu dv_N";
        }
      }
      const Vec3f p0 = momentum(c.v, c.w), p1 = momentum(v, c.w);
      EXPECT_LT(length(p1 - p0), 1e-5f * length(p0));
    }
  }
}

TEST(IClothRepulsion, PinsStayAndFarOrSeparatingPairsAreLeftAlone) {
  const float h = 1.f / 120;
  for (const Context& ctx : test::backends()) {
    {  // the lower triangle pinned: it keeps v = 0, the upper one stops
      Cloth c = two_triangles();
      for (int i = 0; i < 3; ++i) c.w[i] = 0.f;
      for (int i = 3; i < 6; ++i) c.v[i] = Vec3f{0, -1.f, 0};
      Filter r(ctx, c, 0.f);
      RepulsionSettings s;
      s.passes = 64;
      r.find(ctx, s);
      r.filter(ctx, h, s);
      const std::vector<Vec3f> v = r.v.to_host();
      for (int i = 0; i < 3; ++i) EXPECT_EQ(v[i], Vec3f{});
      EXPECT_GT(v[3].y, -1e-3f) << "the vertex over the pinned triangle stops";
      const std::vector<ProxPair> pairs = r.rep.pairs();
      const std::vector<float> vn = normal_velocities(pairs, v);
      for (size_t i = 0; i < pairs.size(); ++i) EXPECT_GT(vn[i], -0.011f * pairs[i].reach / h);
    }
    {  // moving apart faster than the push-out: nothing changes
      Cloth c = two_triangles();
      for (int i = 3; i < 6; ++i) c.v[i] = Vec3f{0.3f, 1.f, 0};
      Filter r(ctx, c, 0.5f);
      RepulsionSettings s;
      ASSERT_GT(r.find(ctx, s), 0u);
      EXPECT_EQ(r.rep.apply_pass(ctx, r.v.data(), r.w.data(), h, s), 0u);
      EXPECT_EQ(r.v.to_host(), c.v);
    }
    {  // farther apart than D: no pair
      Cloth c = two_triangles();
      for (int i = 3; i < 6; ++i) c.x[i].y = 2.f * kThick;
      Filter r(ctx, c, 0.5f);
      EXPECT_EQ(r.find(ctx, RepulsionSettings{}), 0u);
    }
  }
}

}  // namespace
}  // namespace cb::icloth
