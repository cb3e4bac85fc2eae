// Cloth-cloth proximity repulsion and friction of I-Cloth (repulsion.h): the
// pairs found against brute force, the filter stops approach, pushes overlapping
// pairs apart, conserves momentum, applies Coulomb friction and leaves pins and
// separating pairs alone; the springs of the pairs in the solve
// (proximity_stiffness) and their friction.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>

#include "sim/collision/proximity.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "sim/solvers/icloth/repulsion.h"
#include "sim/solvers/icloth/system_kernels.h"
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
  // a round's calls write their counts to backend memory: read here
  size_t release_pulling_springs(const Context& ctx, const Vec3f* solved, float h, Vec3f* rhs) {
    DeviceBuffer<double> count(ctx, 1);
    rep.release_pulling_springs(ctx, solved, h, w.data(), rhs, count.data());
    return size_t(count.to_host()[0] + 0.5);
  }
  size_t lag_friction(const Context& ctx, const Vec3f* solved, float h) {
    DeviceBuffer<double> count(ctx, 1);
    rep.lag_friction(ctx, solved, w.data(), h, count.data());
    return size_t(count.to_host()[0] + 0.5);
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

// relative velocity of each pair along its normal n (or, spring: along its
// spring direction sn), sum w_k v_k . n
std::vector<float> normal_velocities(const std::vector<ProxPair>& pairs, const std::vector<Vec3f>& v,
                                     bool spring = false) {
  std::vector<float> out;
  for (const ProxPair& p : pairs) {
    const int id[4] = {p.v.a, p.v.b, p.v.c, p.v.d};
    Vec3f s{};
    for (int k = 0; k < 4; ++k) s += v[size_t(id[k])] * p.w[k];
    out.push_back(dot(spring ? p.sn : p.n, s));
  }
  return out;
}

// two bumpy 7x7 sheets about one thickness apart (many pairs sharing vertices)
Cloth bumpy_sheets() {
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
  return c;
}

TEST(IClothRepulsion, FindsExactlyThePairsCloserThanTheDistance) {
  Cloth c = bumpy_sheets();
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

// The filter passes read only the overlapping pairs: pairs ahead (beyond D,
// springs in the solve) never get an impulse. Two bumpy sheets closing: the
// list found with pairs ahead is longer, its filter list is the same pairs as
// the list without, and the filter ends at the same velocities in as many
// passes. A list of pairs ahead alone is converged before any pass.
TEST(IClothRepulsion, PairsAheadAreLeftOutOfTheFilter) {
  const float h = 1.f / 120;
  for (const Context& ctx : test::backends()) {
    Cloth c = bumpy_sheets();
    for (size_t i = c.x.size() / 2; i < c.x.size(); ++i) c.v[i] = Vec3f{0.1f, -0.5f, 0};  // the upper sheet
    RepulsionSettings near, ahead;
    near.passes = ahead.passes = 64;
    ahead.ahead = 0.5f;
    Filter a(ctx, c, 0.3f), b(ctx, c, 0.3f);
    const size_t n_near = a.find(ctx, near), n_ahead = b.find(ctx, ahead);
    ASSERT_GT(n_near, 10u);
    EXPECT_GT(n_ahead, n_near) << "the search beyond D adds pairs ahead";
    EXPECT_EQ(a.rep.num_filter_pairs(), n_near);
    EXPECT_EQ(b.rep.num_filter_pairs(), n_near);
    a.filter(ctx, h, near);
    b.filter(ctx, h, ahead);
    EXPECT_GT(a.rep.progress().passes, 1) << "a filter that needs more than one pass";
    EXPECT_EQ(a.rep.progress().passes, b.rep.progress().passes);
    const std::vector<Vec3f> va = a.v.to_host(), vb = b.v.to_host();
    float moved = 0.f;
    for (size_t i = 0; i < va.size(); ++i) {
      moved = std::max(moved, length(va[i] - c.v[i]));
      EXPECT_LT(length(va[i] - vb[i]), 1e-6f) << "vertex " << i;
    }
    EXPECT_GT(moved, 0.1f) << "the filter stopped the closing sheets";

    Cloth t = two_triangles();  // 1.5 thicknesses apart, closing: pairs ahead only
    for (size_t i = 3; i < 6; ++i) {
      t.x[i].y = 1.5f * kThick;
      t.v[i] = Vec3f{0, -1.f, 0};
    }
    Filter r(ctx, t, 0.f);
    ASSERT_GT(r.find(ctx, ahead), 0u);
    EXPECT_EQ(r.rep.num_filter_pairs(), 0u);
    EXPECT_EQ(r.rep.apply_pass(ctx, r.v.data(), r.w.data(), h, ahead), 0u);
    EXPECT_TRUE(r.rep.progress().converged);
    EXPECT_EQ(r.v.to_host(), t.v) << "no impulse on a pair ahead";
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

// A fine sheet thicker than its edges: at rest every vertex is within the
// proximity distance of its own 2-ring. With rest_limit those pairs repel only
// below 0.9 x their rest distance, so the sheet at rest has none; folded over
// itself, the layers (far apart at rest) still pair up; a second piece lying
// right on the first keeps its pairs; squeezing the sheet to 0.8 of its size
// brings the 2-ring pairs back.
TEST(IClothRepulsion, RestLimitLeavesPairsThatAreCloseAtRest) {
  GridSpec g;
  g.nx = g.ny = 9;
  g.width = g.height = 0.02f;  // 2.5 mm edges against D = 5 mm
  TriMesh m = make_grid(g);
  Cloth flat;
  for (const Vec3f& p : m.positions) flat.x.push_back(Vec3f{p.x, 0.f, p.y});
  flat.tris = m.tris;
  flat.v.assign(flat.x.size(), Vec3f{});
  flat.w.assign(flat.x.size(), 1.f);
  const std::vector<Vec3f> rest = flat.x;
  // the same sheet (centred on 0) folded in half about x = 0, 0.6 thickness between the layers
  Cloth folded = flat;
  for (Vec3f& p : folded.x)
    if (p.x > 0.f) p = Vec3f{-p.x, 0.6f * kThick, p.z};
  // two pieces: a second flat sheet 0.5 thickness above the first, both at rest there
  Cloth two = flat;
  const int nv = int(flat.x.size());
  for (int i = 0; i < nv; ++i) two.x.push_back(flat.x[size_t(i)] + Vec3f{0.001f, 0.5f * kThick, 0.001f});
  for (const Int3& t : flat.tris) two.tris.push_back({t.a + nv, t.b + nv, t.c + nv});
  two.v.assign(two.x.size(), Vec3f{});
  two.w.assign(two.x.size(), 1.f);
  std::vector<uint32_t> one_piece(size_t(nv), 0u), two_pieces(size_t(2 * nv), 0u);
  for (int i = nv; i < 2 * nv; ++i) two_pieces[size_t(i)] = 1u;
  RepulsionSettings s;
  s.rest_limit = true;
  RepulsionSettings off = s;
  off.rest_limit = false;
  Cloth squeezed = flat;
  for (Vec3f& p : squeezed.x) p = p * 0.8f;
  for (const Context& ctx : test::backends()) {
    Filter plain(ctx, flat, 0.f);
    plain.rep.set_rest(ctx, rest, one_piece);
    EXPECT_GT(plain.find(ctx, off), 100u) << "without rest_limit the flat sheet repels itself";
    Filter at_rest(ctx, flat, 0.f);
    at_rest.rep.set_rest(ctx, rest, one_piece);
    EXPECT_EQ(at_rest.find(ctx, s), 0u) << "with it, a sheet at rest has no pairs";
    Filter fold(ctx, folded, 0.f);
    fold.rep.set_rest(ctx, rest, one_piece);
    const size_t nfold = fold.find(ctx, s);
    EXPECT_GT(nfold, 50u) << "the folded layers repel each other";
    for (const ProxPair& p : fold.rep.pairs()) {  // and only features far apart at rest pair up
      const bool a_right = rest[size_t(p.v.a)].x > 0.f, c_right = rest[size_t(p.v.c)].x > 0.f;
      const bool b_right = rest[size_t(p.v.b)].x > 0.f, d_right = rest[size_t(p.v.d)].x > 0.f;
      EXPECT_TRUE(a_right != c_right || a_right != d_right || b_right != c_right || b_right != d_right)
          << "a pair within one half of the fold";
    }
    Filter pieces(ctx, two, 0.f);
    std::vector<Vec3f> two_rest = two.x;
    pieces.rep.set_rest(ctx, two_rest, two_pieces);
    EXPECT_GT(pieces.find(ctx, s), 100u) << "two pieces touching at rest still repel";
    Filter squeeze(ctx, squeezed, 0.f);
    squeeze.rep.set_rest(ctx, rest, one_piece);
    EXPECT_GT(squeeze.find(ctx, s), 100u) << "2-ring pairs squeezed below 0.9 of their rest distance repel";
    size_t lowered = 0;  // pairs closer than D at rest use 0.9 x their rest distance
    for (const ProxPair& p : squeeze.rep.pairs()) lowered += p.reach < 0.9f * s.scale * kThick ? 1 : 0;
    EXPECT_GT(lowered, 50u);
  }
}

// The pair springs of the implicit solve (proximity_stiffness): each closing
// pair's k = gamma / (h^2 sum_k w_k^2 / (sn . B_k sn)), separating pairs and
// pairs without a spring direction get none; lag_friction gives each pushing
// spring the drag c = mu lambda_n / (h max(|g_t| - mu lambda_n s, eps)) (no drag
// before: the whole tangential velocity is free); and the product
// prox_row is the gather of sum_p w_p (k_p sn sn^T + (c_p / h) (I - sn sn^T)) g_p,
// g_p = sum_k w_k p_k: equal to that sum assembled pair by pair, and symmetric
// (u . S v = v . S u).
TEST(IClothRepulsion, PairSpringsAreTheAssembledSymmetricProduct) {
  const Context ctx;  // prox_row reads the springs where they are: host memory on the CPU backend
  Cloth c = bumpy_sheets();
  const size_t n = c.x.size(), half = n / 2;
  for (size_t i = half; i < n; ++i) c.v[i] = Vec3f{0, i % 3 ? -0.1f : 0.2f, 0};  // most of the top sheet closes in
  const float mu = 0.3f;
  Filter r(ctx, c, mu);
  const RepulsionSettings s;
  ASSERT_GT(r.find(ctx, s), 50u);
  const float h = 0.01f, gamma = 3.f;
  std::vector<M3> diag(n);  // diagonal blocks of A, symmetric positive definite
  for (size_t i = 0; i < n; ++i) {
    const Vec3f a{1.f, 0.3f * float(i % 3), -0.2f};
    diag[i] = M3::identity(1e-3f * (1.f + float(i % 5)));
    add_outer(diag[i], 2e-3f, a, a);
  }
  DeviceBuffer<M3> D(ctx, diag);
  const PairSprings ps = r.rep.springs(ctx, r.v.data(), D.data(), r.w.data(), h, gamma);
  const std::vector<ProxPair> pairs = r.rep.pairs();
  const std::vector<float> vn = normal_velocities(pairs, c.v, true);
  size_t closing = 0, springless = 0;
  for (size_t p = 0; p < pairs.size(); ++p) {
    const int id[4] = {pairs[p].v.a, pairs[p].v.b, pairs[p].v.c, pairs[p].v.d};
    float sw = 0.f;
    const Vec3f sn = pairs[p].sn;
    for (int k = 0; k < 4; ++k) sw += pairs[p].w[k] * pairs[p].w[k] / dot(sn, diag[size_t(id[k])] * sn);
    const bool has_spring = dot(sn, sn) > 0.f;
    springless += has_spring ? 0 : 1;
    const float want = has_spring && vn[p] <= 0.f ? gamma / (h * h * sw) : 0.f;
    EXPECT_NEAR(ps.k[p], want, 1e-5f * want) << "pair " << p;
    EXPECT_EQ(ps.c[p], 0.f) << "no friction before a solve";
    closing += want > 0.f ? 1 : 0;
  }
  ASSERT_GT(closing, 10u);
  ASSERT_LT(closing + springless, pairs.size()) << "some pairs separate";
  // the friction lagged from "solved" velocities: the top sheet moved sideways
  // and, at some vertices, back out
  std::vector<Vec3f> vs(n, Vec3f{});
  for (size_t i = half; i < n; ++i) vs[i] = Vec3f{0.05f, i % 4 ? -0.02f : 0.03f, 0.01f * float(i % 3)};
  DeviceBuffer<Vec3f> solved(ctx, vs);
  const size_t rubbing = r.lag_friction(ctx, solved.data(), h);
  size_t want_rubbing = 0;
  const std::vector<float> gn = normal_velocities(pairs, vs, true);
  for (size_t p = 0; p < pairs.size(); ++p) {
    const float lambda = -h * h * ps.k[p] * gn[p];
    const int id[4] = {pairs[p].v.a, pairs[p].v.b, pairs[p].v.c, pairs[p].v.d};
    Vec3f g{};
    for (int k = 0; k < 4; ++k) g += vs[size_t(id[k])] * pairs[p].w[k];
    float sw = 0.f;  // the pair's inverse mass
    for (int k = 0; k < 4; ++k) sw += pairs[p].w[k] * pairs[p].w[k] * c.w[size_t(id[k])];
    // no drag yet: the whole tangential velocity is free, Coulomb takes mu lambda s of it
    const float slide = length(g - pairs[p].sn * gn[p]) - mu * lambda * sw;
    const float want = lambda > 0.f ? mu * lambda / (h * std::max(slide, 0.001f * pairs[p].reach / h)) : 0.f;
    EXPECT_NEAR(ps.c[p], want, 1e-4f * want) << "pair " << p;
    want_rubbing += want > 0.f ? 1 : 0;
  }
  EXPECT_EQ(rubbing, want_rubbing);
  ASSERT_GT(rubbing, 5u);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<Vec3f> a(n), b(n);
  for (size_t i = 0; i < n; ++i) a[i] = Vec3f{u(rng), u(rng), u(rng)}, b[i] = Vec3f{u(rng), u(rng), u(rng)};
  std::vector<Vec3f> want(n, Vec3f{});
  for (size_t p = 0; p < pairs.size(); ++p) {
    const ProxPair& q = pairs[p];
    const int id[4] = {q.v.a, q.v.b, q.v.c, q.v.d};
    Vec3f g{};
    for (int k = 0; k < 4; ++k) g += a[size_t(id[k])] * q.w[k];
    const Vec3f gt = g - q.sn * dot(q.sn, g);
    for (int k = 0; k < 4; ++k)
      want[size_t(id[k])] += q.sn * (ps.k[p] * q.w[k] * dot(q.sn, g)) + gt * (ps.c[p] * q.w[k] / h);
  }
  // every row of the springs' product for u (the per-pair pass, then the gather)
  auto rows = [&](const std::vector<Vec3f>& u) {
    SystemView A;
    A.prox = ps;
    A.h = h;
    prepare_system_rows(ctx, A, u.data());
    std::vector<Vec3f> y(n);
    for (size_t i = 0; i < n; ++i) y[i] = prox_row(ps, int(i));
    return y;
  };
  const std::vector<Vec3f> Sa = rows(a), Sb = rows(b);
  for (uint32_t lanes : {2u, 4u})  // a product with several threads a row sums the entries in shares
    for (size_t i = 0; i < n; ++i) {
      Vec3f sum{};
      for (uint32_t l = 0; l < lanes; ++l) sum += prox_row(ps, int(i), l, lanes);
      EXPECT_LT(length(sum - Sb[i]), 1e-5f * (1.f + length(Sb[i]))) << lanes << " lanes, vertex " << i;
    }
  double ua = 0, ub = 0, scale = 0;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_LT(length(Sa[i] - want[i]), 1e-4f * (1.f + length(want[i]))) << "vertex " << i;
    ua += double(dot(b[i], Sa[i]));
    ub += double(dot(a[i], Sb[i]));
    scale += double(length(Sa[i]));
  }
  EXPECT_NEAR(ua, ub, 1e-5 * scale);
}

// A spring pushes and never pulls: after a solve, the springs whose gap opens
// are taken out, the others kept.
TEST(IClothRepulsion, SpringsThatPullAreReleased) {
  const Context ctx;
  Cloth c = bumpy_sheets();
  const size_t n = c.x.size(), half = n / 2;
  for (size_t i = half; i < n; ++i) c.v[i] = Vec3f{0, -0.1f, 0};  // the top sheet closes in
  Filter r(ctx, c, 0.f);
  ASSERT_GT(r.find(ctx, RepulsionSettings{}), 50u);
  DeviceBuffer<M3> D(ctx, std::vector<M3>(n, M3::identity(1e-3f)));
  const PairSprings ps = r.rep.springs(ctx, r.v.data(), D.data(), r.w.data(), 0.01f, 3.f);
  const std::vector<ProxPair> pairs = r.rep.pairs();
  const std::vector<float> before(ps.k, ps.k + pairs.size());
  std::vector<Vec3f> vs(n, Vec3f{});  // "solved": every third top vertex moves back out
  for (size_t i = half; i < n; ++i) vs[i] = Vec3f{0, i % 3 ? -0.01f : 0.05f, 0};
  DeviceBuffer<Vec3f> solved(ctx, vs);
  const std::vector<float> gn = normal_velocities(pairs, vs, true);
  DeviceBuffer<Vec3f> rhs(ctx, std::vector<Vec3f>(n, Vec3f{}));
  const size_t released = r.release_pulling_springs(ctx, solved.data(), 0.01f, rhs.data());
  size_t want = 0;
  for (size_t p = 0; p < pairs.size(); ++p) {
    const bool pulls = before[p] != 0.f && gn[p] > 0.f;
    want += pulls ? 1 : 0;
    EXPECT_EQ(ps.k[p], pulls ? 0.f : before[p]) << "pair " << p;
  }
  EXPECT_EQ(released, want);
  EXPECT_GT(released, 5u);
  EXPECT_EQ(r.release_pulling_springs(ctx, solved.data(), 0.01f, rhs.data()), 0u) << "released once";
}

// Pairs ahead: the second triangle 1.5 thicknesses above the first, beyond D
// (1.25) but within D + ahead (1.75). They are found only with `ahead`, with a
// negative overlap; they get a spring only when the velocities close the gap past
// D within the step; the spring's pull towards D goes on the right-hand side
// (its rest length is D, not the gap); and when the solve leaves the gap above
// D the spring pulls, is released, and its pull leaves the right-hand side.
TEST(IClothRepulsion, SpringsOfPairsAheadLetTheGapCloseToTheProximityDistance) {
  const float h = 0.01f;
  for (const Context& ctx : test::backends()) {
    Cloth c = two_triangles();
    for (size_t i = 3; i < 6; ++i) c.x[i].y = 1.5f * kThick;
    Filter r(ctx, c, 0.f);
    RepulsionSettings s;
    EXPECT_EQ(r.find(ctx, s), 0u) << "beyond D without ahead";
    s.ahead = 0.5f;
    ASSERT_GT(r.find(ctx, s), 0u);
    for (const ProxPair& q : r.rep.pairs()) {
      EXPECT_LT(q.overlap, 0.f);
      EXPECT_GT(dot(q.sn, q.sn), 0.f) << "a pair ahead serves only as a spring";
    }
    const DeviceBuffer<M3> B(ctx, std::vector<M3>(c.x.size(), M3::identity(c.mass)));
    auto closing = [&](float gap_per_step) {  // the upper triangle moving down
      std::vector<Vec3f> v(c.x.size(), Vec3f{});
      for (size_t i = 3; i < 6; ++i) v[i].y = -gap_per_step / h;
      return DeviceBuffer<Vec3f>(ctx, v);
    };
    const DeviceBuffer<Vec3f> slow = closing(0.1f * kThick), fast = closing(kThick);
    r.rep.springs(ctx, slow.data(), B.data(), r.w.data(), h, 10.f);
    EXPECT_EQ(r.rep.num_springs(), 0u) << "the gap stays above D: no spring";
    r.rep.springs(ctx, fast.data(), B.data(), r.w.data(), h, 10.f);
    const size_t n = r.rep.num_springs();
    ASSERT_GT(n, 0u);
    DeviceBuffer<Vec3f> rhs(ctx, std::vector<Vec3f>(c.x.size(), Vec3f{}));
    r.rep.allowance_rhs(ctx, h, r.w.data(), 1.f, false, rhs.data());
    std::vector<Vec3f> b = rhs.to_host();
    Vec3f total{};
    for (const Vec3f& bi : b) total += bi;
    for (size_t i = 3; i < 6; ++i) EXPECT_LE(b[i].y, 0.f) << "the upper triangle is pulled towards D";
    EXPECT_LT(b[3].y, 0.f);
    EXPECT_NEAR(length(total), 0.f, 1e-6f * length(b[3])) << "the pulls conserve momentum";
    const DeviceBuffer<Vec3f> still = closing(0.f);  // "solved": the gap stays 1.5 thicknesses
    EXPECT_EQ(r.release_pulling_springs(ctx, still.data(), h, rhs.data()), n);
    for (const Vec3f& bi : rhs.to_host()) EXPECT_LT(length(bi), 1e-6f * length(b[3])) << "the pulls left";
  }
}

// The springs push along the surfaces' normal, not along the line between the
// closest points (which leans for a vertex beside a triangle): on two flat,
// parallel, laterally shifted sheets every spring direction is the sheets'
// normal, while many pair normals lean.
TEST(IClothRepulsion, SpringDirectionIsTheFlatSheetsNormal) {
  const Context ctx;
  Cloth c = bumpy_sheets();
  for (size_t i = c.x.size() / 2; i < c.x.size(); ++i) c.x[i].y = kThick;  // flatten the top sheet
  Filter r(ctx, c, 0.f);
  ASSERT_GT(r.find(ctx, RepulsionSettings{}), 50u);
  size_t leaning = 0, springs = 0;
  for (const ProxPair& p : r.rep.pairs()) {
    leaning += std::fabs(p.n.y) < 0.99f ? 1 : 0;
    if (dot(p.sn, p.sn) == 0.f) continue;
    ++springs;
    EXPECT_NEAR(std::fabs(p.sn.y), 1.f, 1e-5f);
    EXPECT_GT(dot(p.sn, p.n), 0.f) << "on the pair normal's side";
  }
  EXPECT_GT(leaning, 10u);
  EXPECT_GT(springs, 20u);
}

// A triangle (v, a, b) squashed onto its edge and folded up from its neighbour
// (a, b, c): v lies 2 mm from the neighbour, nearest its shared edge (a, b),
// along the neighbour's normal. That distance is the height of v's own triangle,
// not a contact: the filter keeps the pair (it holds the triangle open) but the
// solve gets no spring for it. The same vertex on a triangle of its own (v, d, e)
// away from the edge gets one (what the rule must not take away).
TEST(IClothRepulsion, NoSpringForAVertexOverItsOwnTrianglesEdge) {
  for (const Context& ctx : test::backends()) {
    for (bool own : {true, false}) {
      Cloth c;
      const Vec3f v{0.05f, 0.002f, 0.0005f};  // above edge (a, b), just outside the neighbour
      c.x = {{0, 0, 0}, {0.1f, 0, 0}, {0.05f, 0, -0.08f}, v, {0.05f, 0.1f, 0.08f}, {0.15f, 0.1f, 0.08f}};
      c.tris = {{0, 1, 2}, own ? Int3{3, 0, 1} : Int3{3, 4, 5}};
      c.v.assign(c.x.size(), Vec3f{});
      c.w.assign(c.x.size(), 1.f / c.mass);
      Filter r(ctx, c, 0.f);
      r.find(ctx, RepulsionSettings{});
      const ProxPair* vf = nullptr;
      const std::vector<ProxPair> pairs = r.rep.pairs();
      for (const ProxPair& p : pairs)
        if (p.v.a == 3 && p.w[0] == 1.f) vf = &p;
      const std::string where = std::string(backend_name(ctx.backend)) + (own ? ": own edge" : ": other triangle");
      ASSERT_NE(vf, nullptr) << where << ": the filter keeps the pair";
      EXPECT_NEAR(vf->w[3], 0.f, 1e-6f) << where << ": nearest the edge (a, b)";
      EXPECT_GT(std::fabs(vf->n.y), 0.9f) << where << ": along the neighbour's normal";
      EXPECT_EQ(dot(vf->sn, vf->sn) > 0.f, !own) << where;
    }
  }
}

}  // namespace
}  // namespace cb::icloth
