// LBVH: structure invariants, box queries and ray queries against brute force,
// on every backend (a small .cu-free check: queries run on the host over a
// downloaded copy of the tree).
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "sim/collision/lbvh.h"
#include "sim/collision/ray.h"
#include "support/test_support.h"

namespace cb {
namespace {

struct Soup {
  std::vector<Vec3f> x;
  std::vector<Int3> tris;
  std::vector<Aabb> boxes;
};

Soup random_soup(int n, float size, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  Soup s;
  for (int t = 0; t < n; ++t) {
    Vec3f c(u(rng), u(rng), u(rng));
    Aabb b;
    for (int k = 0; k < 3; ++k) {
      s.x.push_back(c + Vec3f(u(rng), u(rng), u(rng)) * size);
      b.grow(s.x.back());
    }
    s.tris.push_back(Int3{3 * t, 3 * t + 1, 3 * t + 2});
    s.boxes.push_back(b);
  }
  return s;
}

// host copy of a tree built on the backend
struct HostTree {
  std::vector<Aabb> boxes;
  std::vector<Int2> children;
  std::vector<uint32_t> prim;
  LbvhView view;
};

HostTree download(const Context& ctx, const Lbvh& bvh) {
  LbvhView v = bvh.view();
  HostTree h;
  int n = v.num_leaves;
  h.boxes.resize(size_t(2 * n - 1));
  h.children.resize(size_t(n > 1 ? n - 1 : 1));
  h.prim.resize(size_t(n));
  detail::buffer_copy_to_host(ctx, h.boxes.data(), v.boxes, h.boxes.size() * sizeof(Aabb));
  detail::buffer_copy_to_host(ctx, h.children.data(), v.children, h.children.size() * sizeof(Int2));
  detail::buffer_copy_to_host(ctx, h.prim.data(), v.leaf_prim, h.prim.size() * sizeof(uint32_t));
  h.view = LbvhView{h.boxes.data(), h.children.data(), h.prim.data(), n};
  return h;
}

TEST(Lbvh, StructureCoversEveryPrimitiveOnce) {
  for (const Context& ctx : test::backends()) {
    for (int n : {1, 2, 3, 17, 1000}) {
      Soup s = random_soup(n, 0.05f, unsigned(n));
      DeviceBuffer<Aabb> d(ctx, s.boxes);
      Lbvh bvh;
      bvh.build(ctx, d.data(), n);
      HostTree h = download(ctx, bvh);
      // every leaf reached once from the root, every node box holds its children's
      std::vector<int> seen(size_t(n), 0);
      std::vector<int> stack = {0};
      while (!stack.empty()) {
        int node = stack.back();
        stack.pop_back();
        if (h.view.is_leaf(node)) {
          seen[h.view.prim(node)]++;
          continue;
        }
        Int2 c = h.children[size_t(node)];
        for (int ch : {c.a, c.b}) {
          const Aabb& p = h.boxes[size_t(node)];
          const Aabb& b = h.boxes[size_t(ch)];
          ASSERT_TRUE(p.lo.x <= b.lo.x && p.lo.y <= b.lo.y && p.lo.z <= b.lo.z && p.hi.x >= b.hi.x &&
                      p.hi.y >= b.hi.y && p.hi.z >= b.hi.z);
          stack.push_back(ch);
        }
      }
      for (int k = 0; k < n; ++k) ASSERT_EQ(seen[size_t(k)], 1) << "n " << n << " prim " << k;
    }
  }
}

TEST(Lbvh, BoxAndRayQueriesMatchBruteForce) {
  for (const Context& ctx : test::backends()) {
    Soup s = random_soup(3000, 0.06f, 4);
    DeviceBuffer<Aabb> d(ctx, s.boxes);
    Lbvh bvh;
    bvh.build(ctx, d.data(), int(s.boxes.size()));
    HostTree h = download(ctx, bvh);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1.2f, 1.2f);
    int ray_hits = 0;
    for (int q = 0; q < 300; ++q) {
      Aabb box;
      Vec3f c(u(rng), u(rng), u(rng));
      box.grow(c - Vec3f(0.1f, 0.1f, 0.1f));
      box.grow(c + Vec3f(0.1f, 0.05f, 0.1f));
      std::set<uint32_t> got, ref;
      lbvh_query_box(h.view, box, [&](uint32_t p) { got.insert(p); });
      for (uint32_t i = 0; i < s.boxes.size(); ++i)
        if (overlaps(s.boxes[i], box)) ref.insert(i);
      ASSERT_EQ(got, ref);
      // a ray: closest hit against brute force
      Vec3f o(u(rng), u(rng), u(rng)), dir = normalize(Vec3f(u(rng), u(rng), u(rng)));
      if (q % 10 == 0) dir = Vec3f(0, 0, 1);  // axis-aligned: infinite inverse components
      float best = -1.f;
      for (const Int3& t : s.tris) {
        RayHit r = ray_triangle(o, dir, s.x[size_t(t.a)], s.x[size_t(t.b)], s.x[size_t(t.c)], 0.f, 10.f);
        if (r.t >= 0.f && (best < 0.f || r.t < best)) best = r.t;
      }
      float t = lbvh_ray_closest(h.view, o, dir, 0.f, 10.f, [&](uint32_t p, float lim) {
        Int3 tr = s.tris[p];
        return ray_triangle(o, dir, s.x[size_t(tr.a)], s.x[size_t(tr.b)], s.x[size_t(tr.c)], 0.f, lim).t;
      });
      ASSERT_EQ(t, best) << "ray " << q;
      ray_hits += best >= 0.f;
    }
    EXPECT_GT(ray_hits, 50);
  }
}

TEST(Lbvh, RefitFollowsMovedBoxes) {
  for (const Context& ctx : test::backends()) {
    Soup s = random_soup(500, 0.05f, 8);
    DeviceBuffer<Aabb> d(ctx, s.boxes);
    Lbvh bvh;
    bvh.build(ctx, d.data(), 500);
    for (Aabb& b : s.boxes) {
      b.lo += Vec3f(0.5f, 0, 0);
      b.hi += Vec3f(0.5f, 0.1f, 0);
    }
    d.upload(ctx, s.boxes);
    bvh.refit(ctx, d.data());
    HostTree h = download(ctx, bvh);
    Aabb all;
    for (const Aabb& b : s.boxes) all.grow(b);
    EXPECT_EQ(h.boxes[0].lo, all.lo);
    EXPECT_EQ(h.boxes[0].hi, all.hi);
    for (uint32_t i = 0; i < 500; ++i) {
      int found = 0;
      lbvh_query_box(h.view, s.boxes[i], [&](uint32_t p) { found += p == i; });
      ASSERT_EQ(found, 1);
    }
  }
}

}  // namespace
}  // namespace cb
