// The render library's geometry, without a GL context: the exact ray-triangle
// test against an independent plane-intersection answer, picking against brute
// force, the camera's ray/projection round trip, frame-all, tessellations.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "render/camera.h"
#include "render/picking.h"
#include "render/tessellate.h"

namespace cb::render {
namespace {

glm::vec3 g(Vec3f v) { return {v.x, v.y, v.z}; }

TEST(Picking, RayTriangleMatchesPlaneIntersectionAndBarycentrics) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  int hits = 0;
  for (int k = 0; k < 2000; ++k) {
    Vec3f a{u(rng), u(rng), u(rng)}, b{u(rng), u(rng), u(rng)}, c{u(rng), u(rng), u(rng)};
    Ray r;
    // aim at a point of the triangle's plane, inside or outside it
    float wb_aim = 0.5f + u(rng), wc_aim = 0.5f + u(rng);
    glm::vec3 aim = g(a) * (1.f - wb_aim - wc_aim) + g(b) * wb_aim + g(c) * wc_aim;
    r.origin = {u(rng) * 3.f, u(rng) * 3.f, 4.f};
    r.dir = glm::normalize(aim - r.origin);
    // independent answer: intersect the plane, then inside test by signed areas
    glm::vec3 n = glm::cross(g(b) - g(a), g(c) - g(a));
    float denom = glm::dot(n, r.dir);
    if (std::fabs(denom) < 1e-3f * glm::length(n)) continue;
    float t_ref = glm::dot(g(a) - r.origin, n) / denom;
    glm::vec3 p = r.origin + r.dir * t_ref;
    float wa = glm::dot(glm::cross(g(c) - g(b), p - g(b)), n), wb = glm::dot(glm::cross(g(a) - g(c), p - g(c)), n),
          wc = glm::dot(glm::cross(g(b) - g(a), p - g(a)), n);
    float nn = glm::dot(n, n);
    bool inside = t_ref >= 0 && wa >= 0 && wb >= 0 && wc >= 0;
    bool margin = std::fabs(wa) / nn > 1e-3f && std::fabs(wb) / nn > 1e-3f && std::fabs(wc) / nn > 1e-3f;
    float t, bu, bv;
    bool hit = ray_triangle(r, a, b, c, &t, &bu, &bv);
    if (!margin) continue;  // too close to an edge for a float comparison
    ASSERT_EQ(hit, inside) << "case " << k;
    if (!hit) continue;
    ++hits;
    EXPECT_NEAR(t, t_ref, 1e-3f);
    EXPECT_NEAR(bu, wb / nn, 1e-3f);
    EXPECT_NEAR(bv, wc / nn, 1e-3f);
  }
  EXPECT_GT(hits, 200);
}

TEST(Picking, NearestTriangleMatchesBruteForceOverAStack) {
  // ten parallel squares at z = 0..-9: the ray from +z must pick the front one
  std::vector<Vec3f> x;
  std::vector<Int3> tris;
  for (int k = 0; k < 10; ++k) {
    int o = int(x.size());
    float z = -float(k);
    x.insert(x.end(), {{-1, -1, z}, {1, -1, z}, {-1, 1, z}, {1, 1, z}});
    tris.push_back({o, o + 1, o + 2});
    tris.push_back({o + 1, o + 3, o + 2});
  }
  Ray r;
  r.origin = {0.3f, 0.2f, 5.f};
  r.dir = {0, 0, -1};
  Hit h = pick_triangle(r, x.data(), tris);
  ASSERT_TRUE(h.hit());
  EXPECT_LT(h.tri, 2);
  EXPECT_NEAR(h.t, 5.f, 1e-5f);
  EXPECT_NEAR(h.point.x, 0.3f, 1e-5f);
  EXPECT_NEAR(h.point.y, 0.2f, 1e-5f);
  EXPECT_NEAR(h.bary.x + h.bary.y + h.bary.z, 1.f, 1e-6f);
  r.origin = {3.f, 0.f, 5.f};
  EXPECT_FALSE(pick_triangle(r, x.data(), tris).hit());
}

TEST(Camera, RayThroughTheProjectionOfAPointPassesThroughIt) {
  OrbitCamera cam;
  cam.look_at({0.5f, 1.5f, 3.f}, {0.f, 0.8f, 0.f}, 45.f);
  cam.orbit(37.f, -12.f);
  cam.pan(20.f, 5.f, 600.f);
  const glm::vec3 pts[] = {{0, 0, 0}, {0.3f, 1.2f, -0.4f}, {-1.f, 0.2f, 0.7f}};
  for (glm::vec3 p : pts) {
    glm::vec3 s;
    ASSERT_TRUE(cam.project(p, 800.f, 600.f, &s));
    Ray r = cam.ray(s.x, s.y, 800.f, 600.f);
    glm::vec3 q = p - r.origin;
    float dist = glm::length(q - r.dir * glm::dot(q, r.dir));  // distance from p to the ray
    EXPECT_LT(dist, 1e-5f * glm::length(q));
  }
}

TEST(Camera, LookAtKeepsEyeAndTargetAndFrameShowsTheBox) {
  OrbitCamera cam;
  cam.look_at({0.f, 1.1f, 2.6f}, {0.f, 0.9f, 0.f}, 45.f);
  EXPECT_NEAR(glm::length(cam.eye() - glm::vec3(0.f, 1.1f, 2.6f)), 0.f, 1e-5f);
  Aabb box;
  box.grow({-2, 0, -1});
  box.grow({2, 3, 1});
  cam.frame(box);
  for (float cx : {-2.f, 2.f})
    for (float cy : {0.f, 3.f})
      for (float cz : {-1.f, 1.f}) {  // every corner lands inside the viewport
        glm::vec3 s;
        ASSERT_TRUE(cam.project({cx, cy, cz}, 800.f, 600.f, &s));
        EXPECT_GE(s.x, 0.f);
        EXPECT_LE(s.x, 800.f);
        EXPECT_GE(s.y, 0.f);
        EXPECT_LE(s.y, 600.f);
      }
}

TEST(Picking, BrushSelectsExactlyTheVerticesInsideTheCircle) {
  OrbitCamera cam;
  cam.look_at({0, 0, 5}, {0, 0, 0}, 45.f);
  std::vector<Vec3f> x;
  for (int j = -10; j <= 10; ++j)
    for (int i = -10; i <= 10; ++i) x.push_back({0.1f * float(i), 0.1f * float(j), 0.f});
  std::vector<uint32_t> in = vertices_in_circle(cam, 800, 600, x.data(), x.size(), 400, 300, 50);
  size_t brute = 0;
  for (const Vec3f& p : x) {
    glm::vec3 s;
    cam.project(g(p), 800, 600, &s);
    brute += (s.x - 400) * (s.x - 400) + (s.y - 300) * (s.y - 300) <= 2500;
  }
  EXPECT_EQ(in.size(), brute);
  EXPECT_GT(brute, 4u);
  EXPECT_LT(brute, x.size());
}

TEST(Tessellate, ShapesLieOnTheirSurfaceWithOutwardNormals) {
  Shape s;
  s.kind = ShapeKind::Sphere;
  s.radius = 0.7f;
  Shape cap;
  cap.kind = ShapeKind::Capsule;
  cap.radius = 0.3f;
  cap.half_length = 0.5f;
  Shape box;
  box.kind = ShapeKind::Box;
  box.half_extents = {0.2f, 0.4f, 0.6f};
  for (const Shape& sh : {s, cap, box}) {
    TessMesh m = tessellate_shape(sh, 10.f);
    ASSERT_FALSE(m.indices.empty());
    for (size_t i = 0; i < m.positions.size(); ++i) {
      Vec3f n;
      EXPECT_NEAR(shape_distance(sh, m.positions[i], &n), 0.f, 1e-5f);
      if (sh.kind != ShapeKind::Box) EXPECT_GT(dot(n, m.normals[i]), 0.99f);
    }
    // counter-clockwise seen from outside: face normals agree with vertex normals
    for (size_t k = 0; k < m.indices.size(); k += 3) {
      Vec3f a = m.positions[m.indices[k]], b = m.positions[m.indices[k + 1]], c = m.positions[m.indices[k + 2]];
      Vec3f fn = cross(b - a, c - a);
      if (length(fn) < 1e-6f) continue;  // pole slivers
      EXPECT_GT(dot(fn, m.normals[m.indices[k]] + m.normals[m.indices[k + 1]] + m.normals[m.indices[k + 2]]), 0.f);
    }
  }
}

}  // namespace
}  // namespace cb::render
