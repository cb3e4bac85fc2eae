// CCD broad phase: the VF and EE candidate sets equal brute force (all
// non-adjacent feature pairs whose grown swept boxes overlap), without duplicates,
// on a crumpled moving sheet, a shared garment mesh, and every backend.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "sim/collision/ccd_candidates.h"
#include "sim/io/obj.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "support/test_support.h"

namespace cb {
namespace {

using PairSet = std::set<std::pair<int, int>>;

Aabb swept(const std::vector<Vec3f>& x0, const std::vector<Vec3f>& x1, std::initializer_list<int> vs, float m) {
  Aabb b;
  for (int v : vs) {
    b.grow(x0[size_t(v)]);
    b.grow(x1[size_t(v)]);
  }
  b.lo -= Vec3f(m, m, m);
  b.hi += Vec3f(m, m, m);
  return b;
}

void brute_force(const std::vector<Vec3f>& x0, const std::vector<Vec3f>& x1, const std::vector<Int3>& tris,
                 const Topology& topo, float m, PairSet* vf, PairSet* ee) {
  std::vector<char> used(x0.size(), 0);
  for (const Int3& t : tris) used[size_t(t.a)] = used[size_t(t.b)] = used[size_t(t.c)] = 1;
  std::vector<Aabb> fb(tris.size()), eb(topo.edges.size());
  for (size_t f = 0; f < tris.size(); ++f) fb[f] = swept(x0, x1, {tris[f].a, tris[f].b, tris[f].c}, m);
  for (size_t e = 0; e < topo.edges.size(); ++e) eb[e] = swept(x0, x1, {topo.edges[e].a, topo.edges[e].b}, m);
  for (int v = 0; v < int(x0.size()); ++v) {
    if (!used[size_t(v)]) continue;
    Aabb vb = swept(x0, x1, {v}, m);
    for (int f = 0; f < int(tris.size()); ++f) {
      Int3 t = tris[size_t(f)];
      if (v == t.a || v == t.b || v == t.c) continue;
      if (overlaps(vb, fb[size_t(f)])) vf->insert({v, f});
    }
  }
  for (int a = 0; a < int(eb.size()); ++a)
    for (int b = a + 1; b < int(eb.size()); ++b) {
      Int2 A = topo.edges[size_t(a)], B = topo.edges[size_t(b)];
      if (A.a == B.a || A.a == B.b || A.b == B.a || A.b == B.b) continue;
      if (overlaps(eb[size_t(a)], eb[size_t(b)])) ee->insert({a, b});
    }
}

PairSet to_set(const std::vector<Int2>& v, const char* what) {
  PairSet s;
  for (const Int2& p : v) EXPECT_TRUE(s.insert({p.a, p.b}).second) << "duplicate " << what << " " << p.a << "," << p.b;
  return s;
}

void check(const std::vector<Vec3f>& x0, const std::vector<Vec3f>& x1, const std::vector<Int3>& tris, float margin) {
  Topology topo = build_topology(x0.size(), tris);
  PairSet rvf, ree;
  brute_force(x0, x1, tris, topo, margin, &rvf, &ree);
  ASSERT_GT(rvf.size(), 100u);
  ASSERT_GT(ree.size(), 100u);
  for (const Context& ctx : test::backends()) {
    CcdTopology t;
    t.upload(ctx, x0.size(), tris, topo);
    DeviceBuffer<Vec3f> d0(ctx, x0), d1(ctx, x1);
    CcdCandidates c;
    find_ccd_candidates(ctx, d0.data(), d1.data(), t.view(), margin, 0.f, c);
    EXPECT_EQ(to_set(c.vf.to_host(), "vf"), rvf);
    EXPECT_EQ(to_set(c.ee.to_host(), "ee"), ree);
  }
}

TEST(CcdCandidates, CrumpledMovingSheetMatchesBruteForce) {
  GridSpec s;
  s.nx = 20;
  s.ny = 20;
  TriMesh g = make_grid(s);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> u(-0.03f, 0.03f);
  std::vector<Vec3f> x0 = g.positions, x1 = g.positions;
  for (size_t i = 0; i < x0.size(); ++i) {
    Vec3f p = x0[i];
    x0[i] = Vec3f(std::sin(p.x * 7.f) * 0.2f, p.y, std::cos(p.x * 5.f) * 0.15f) + Vec3f(u(rng), u(rng), u(rng));
    x1[i] = x0[i] + Vec3f(u(rng), u(rng), u(rng)) + Vec3f(0, 0, 0.02f);
  }
  check(x0, x1, g.tris, 0.005f);
}

TEST(CcdCandidates, SharedGarmentMatchesBruteForce) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/skirt4K.obj");
  TriMesh m = read_obj(test::shared_path("data/meshes/codim-ipc/skirt4K.obj"));
  // keep a patch so that the brute force stays quick
  Aabb b = bounds(m);
  Vec3f c = b.center();
  float r = 0.25f * length(b.extent());
  std::vector<int> remap(m.positions.size(), -1);
  std::vector<Vec3f> x0;
  std::vector<Int3> tris;
  for (const Int3& t : m.tris) {
    if (length(m.positions[size_t(t.a)] - c) > r) continue;
    Int3 n;
    int* out[3] = {&n.a, &n.b, &n.c};
    int in[3] = {t.a, t.b, t.c};
    for (int k = 0; k < 3; ++k) {
      int& id = remap[size_t(in[k])];
      if (id < 0) {
        id = int(x0.size());
        x0.push_back(m.positions[size_t(in[k])]);
      }
      *out[k] = id;
    }
    tris.push_back(n);
  }
  ASSERT_GT(tris.size(), 500u);
  std::vector<Vec3f> x1 = x0;
  for (Vec3f& p : x1) p += Vec3f(0.f, -0.01f, 0.f);
  check(x0, x1, tris, 0.002f);
}

}  // namespace
}  // namespace cb
