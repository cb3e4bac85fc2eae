// The hoops (hoops.h): closed boundary loops found in order, and the length
// constraint that contracts an evenly stretched loop in one projection.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/model/cloth_model.h"
#include "sim/model/grid.h"
#include "sim/model/hoops.h"
#include "support/test_support.h"

namespace cb {
namespace {

constexpr float kPi = 3.14159265f;

// An open tube of `around` x `rows` vertices (radius 1, unit height apart).
ClothModel tube(int around, int rows) {
  ClothInput in;
  for (int r = 0; r < rows; ++r)
    for (int k = 0; k < around; ++k) {
      const float a = 2.f * kPi * float(k) / float(around);
      in.mesh.positions.push_back({std::cos(a), float(r), std::sin(a)});
    }
  for (int r = 0; r + 1 < rows; ++r)
    for (int k = 0; k < around; ++k) {
      const int a = r * around + k, b = r * around + (k + 1) % around, c = a + around, d = b + around;
      in.mesh.tris.push_back({a, b, d});
      in.mesh.tris.push_back({a, d, c});
    }
  return build_cloth_model({in});
}

float loop_length(const std::vector<Vec3f>& x, const Hoops& h, size_t loop) {
  float len = 0.f;
  const uint32_t b = h.offsets[loop], e = h.offsets[loop + 1];
  for (uint32_t k = b; k < e; ++k) len += length(x[h.ids[k + 1 == e ? b : k + 1]] - x[h.ids[k]]);
  return len;
}

// (1 / m) sum_k |x_{k+m} - x_k|: the loop's coarse length (hoops.h).
float coarse_length(const std::vector<Vec3f>& x, const Hoops& h, size_t loop) {
  float len = 0.f;
  const uint32_t b = h.offsets[loop], e = h.offsets[loop + 1], n = e - b;
  for (uint32_t k = b; k < e; ++k) len += length(x[h.ids[b + (k - b + uint32_t(h.span[loop])) % n]] - x[h.ids[k]]);
  return len / float(h.span[loop]);
}

// Runs limit_hoops once on x (host in, host out) on the given backend.
std::vector<Vec3f> limit_once(const Context& ctx, const Hoops& h, float s, const std::vector<float>& w,
                              const std::vector<Vec3f>& x, std::vector<uint8_t>* moved_out = nullptr) {
  DeviceHoops hoops;
  hoops.upload(ctx, h);
  DeviceBuffer<float> dw(ctx, w);
  DeviceBuffer<Vec3f> dx(ctx, x);
  DeviceBuffer<uint8_t> moved(ctx, std::vector<uint8_t>(x.size(), 0));
  limit_hoops(ctx, hoops.view(), s, dw.data(), dx.data(), moved.data());
  if (moved_out) *moved_out = moved.to_host();
  return dx.to_host();
}

TEST(Hoops, ASheetHasOneLoopRoundItsEdge) {
  GridSpec g;
  g.nx = 5, g.ny = 4, g.width = 2.f, g.height = 1.5f;
  ClothInput in;
  in.mesh = make_grid(g);
  const ClothModel m = build_cloth_model({in});
  const Hoops h = find_hoops(m.topo, m.rest);
  ASSERT_EQ(h.size(), 1u);
  EXPECT_EQ(h.ids.size(), size_t(2 * (5 - 1) + 2 * (4 - 1)));
  EXPECT_NEAR(h.rest_length[0], 2.f * (2.f + 1.5f), 1e-5f);
  EXPECT_NEAR(loop_length(m.rest, h, 0), h.rest_length[0], 1e-5f);  // consecutive ids share an edge
}

TEST(Hoops, ATubeHasALoopAtEachEnd) {
  const ClothModel m = tube(32, 5);
  const Hoops h = find_hoops(m.topo, m.rest);
  ASSERT_EQ(h.size(), 2u);
  const float ring = 32.f * 2.f * std::sin(kPi / 32.f);
  for (size_t l = 0; l < 2; ++l) {
    EXPECT_EQ(h.offsets[l + 1] - h.offsets[l], 32u);
    EXPECT_NEAR(h.rest_length[l], ring, 1e-4f);
    for (uint32_t k = h.offsets[l]; k < h.offsets[l + 1]; ++k) EXPECT_EQ(h.loop_of[k], l);
  }
}

TEST(Hoops, AnEvenlyStretchedLoopIsContractedToTheLimitInOneProjection) {
  const int N = 200;  // four chunks a loop: the loop's sums are taken chunk by chunk
  const ClothModel m = tube(N, 2);
  const Hoops h = find_hoops(m.topo, m.rest);
  ASSERT_EQ(h.size(), 2u);
  const int span = h.span[0];
  ASSERT_EQ(span, kHoopSpan);
  EXPECT_EQ(h.loop_chunks, (std::vector<uint32_t>{0, 4, 8}));
  EXPECT_EQ(h.chunk_offsets, (std::vector<uint32_t>{0, 64, 128, 192, 200, 264, 328, 392, 400}));
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) p = Vec3f{p.x * 1.3f, p.y, p.z * 1.3f};  // both rims 30 % longer
  const std::vector<float> w(x.size(), 1.f);
  // a regular N-gon of radius R has coarse length (N / m) 2 R sin(m pi / N)
  const float R = 1.1f * float(span) * std::sin(kPi / float(N)) / std::sin(float(span) * kPi / float(N));
  for (const Context& ctx : test::backends()) {
    std::vector<uint8_t> moved;
    const std::vector<Vec3f> y = limit_once(ctx, h, 0.1f, w, x, &moved);
    for (size_t l = 0; l < 2; ++l) EXPECT_NEAR(coarse_length(y, h, l) / h.rest_length[l], 1.1f, 1e-4f);
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_NEAR(std::hypot(y[i].x, y[i].z), R, 1e-4f) << "stays a circle, moved inward";
      EXPECT_EQ(y[i].y, x[i].y);
      EXPECT_EQ(moved[i], 1);
    }
  }
}

TEST(Hoops, ALoopWithinTheLimitIsLeftAlone) {
  const ClothModel m = tube(64, 2);
  const Hoops h = find_hoops(m.topo, m.rest);
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) p = Vec3f{p.x * 1.08f, p.y, p.z * 0.7f};  // an ellipse: squeezed, springs within 10 %
  const std::vector<float> w(x.size(), 1.f);
  for (const Context& ctx : test::backends()) {
    std::vector<uint8_t> moved;
    const std::vector<Vec3f> y = limit_once(ctx, h, 0.1f, w, x, &moved);
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_EQ(y[i], x[i]);
      EXPECT_EQ(moved[i], 0);
    }
  }
}

TEST(Hoops, AHeldArcStaysAndTheRestOfTheLoopContracts) {
  const int N = 64;
  const ClothModel m = tube(N, 2);
  const Hoops h = find_hoops(m.topo, m.rest);
  std::vector<Vec3f> x = m.rest;
  for (Vec3f& p : x) p = Vec3f{p.x * 1.2f, p.y, p.z * 1.2f};
  std::vector<float> w(x.size(), 1.f);
  for (size_t i = 0; i < x.size(); ++i)
    if (i % N < size_t(N / 4)) w[i] = 0.f;  // a quarter of each rim pinned (a pinned stretch of waistband)
  for (const Context& ctx : test::backends()) {
    const std::vector<Vec3f> y = limit_once(ctx, h, 0.1f, w, x);
    for (size_t i = 0; i < x.size(); ++i) {
      if (w[i] == 0.f) EXPECT_EQ(y[i], x[i]);
      else EXPECT_LT(std::hypot(y[i].x, y[i].z), 1.2f) << "pulled in";
    }
    for (size_t l = 0; l < 2; ++l) {
      EXPECT_LT(coarse_length(y, h, l), coarse_length(x, h, l));
      EXPECT_LT(loop_length(y, h, l), loop_length(x, h, l)) << "shorter edge by edge too, not crinkled";
    }
  }
}

}  // namespace
}  // namespace cb
