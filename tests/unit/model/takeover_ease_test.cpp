// The takeover ease (sim/model/takeover_ease.h) on hand-made velocities: the
// bound of a step against gravity's gain, the cap, and when the ease ends.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/model/kinetic_energy.h"
#include "sim/model/takeover_ease.h"
#include "support/test_support.h"

namespace cb {
namespace {

constexpr float kH = 0.01f;  // s
const Vec3f kG{0, -9.81f, 0};

TEST(TakeoverEase, GravityBoundIsFreeFallsGainFromRest) {
  // from rest, a step of free fall ends with 1/2 M (h g)^2 exactly
  // (h and g are floats: relative 1e-6)
  const double m = 2.0, hg = double(kH) * 9.81;
  const double rest = 0.5 * m * hg * hg;
  EXPECT_NEAR(gravity_energy_bound(0.0, m, kH, kG), rest, 1e-6 * rest);
  // moving along g at speed u: 1/2 M (u + h g)^2, the bound's equality case
  const double u = 3.0, falling = 0.5 * m * (u + hg) * (u + hg);
  EXPECT_NEAR(gravity_energy_bound(0.5 * m * u * u, m, kH, kG), falling, 1e-6 * falling);
}

TEST(TakeoverEase, CapsAStepThatGainsEnergyAndEndsAfterACalmFrame) {
  for (const Context& ctx : test::backends()) {
    const int n = 4;
    std::vector<float> hm(n, 0.5f);  // kg
    DeviceBuffer<float> mass;
    mass.upload(ctx, hm);
    DeviceBuffer<Vec3f> v;
    v.upload(ctx, std::vector<Vec3f>(n, Vec3f{1, 0, 0}));  // 2 J
    DeviceBuffer<float> scratch;
    const double e0 = kinetic_energy(ctx, mass.data(), v.data(), n, scratch);
    ASSERT_NEAR(e0, 1.0, 1e-6);
    TakeoverEase ease;
    EXPECT_FALSE(ease.active());
    ease.begin(3);
    ASSERT_TRUE(ease.active());
    // a step that releases stored strain: the speed triples
    const auto release = [&] {
      std::vector<Vec3f> x = v.to_host();
      for (Vec3f& s : x) s = s * 3.f;
      v.upload(ctx, x);
    };
    EXPECT_TRUE(ease.run(ctx, mass.data(), 2.0, v.data(), n, kH, kG, release));
    const double e1 = kinetic_energy(ctx, mass.data(), v.data(), n, scratch);
    EXPECT_NEAR(e1, gravity_energy_bound(e0, 2.0, kH, kG), 1e-5) << backend_name(ctx.backend);
    const std::vector<Vec3f> hv = v.to_host();
    EXPECT_NEAR(hv[0].y, 0.f, 1e-7f);  // scaled, not turned
    EXPECT_GT(hv[0].x, 1.f);
    ease.end_frame();
    EXPECT_TRUE(ease.active()) << "a capped frame keeps the ease";
    // a calm step (nothing changes): no cap, and the frame ends the ease
    EXPECT_FALSE(ease.run(ctx, mass.data(), 2.0, v.data(), n, kH, kG, [] {}));
    ease.end_frame();
    EXPECT_FALSE(ease.active());
  }
}

TEST(TakeoverEase, EndsAfterItsFramesEvenWhileItCaps) {
  const Context ctx = test::backends().front();
  DeviceBuffer<float> mass;
  mass.upload(ctx, std::vector<float>(1, 1.f));
  DeviceBuffer<Vec3f> v;
  v.upload(ctx, std::vector<Vec3f>(1, Vec3f{0, 0, 1}));
  const auto double_speed = [&] {
    std::vector<Vec3f> x = v.to_host();
    x[0] = x[0] * 2.f;
    v.upload(ctx, x);
  };
  TakeoverEase ease;
  ease.begin(2);
  for (int frame = 0; frame < 2; ++frame) {
    ASSERT_TRUE(ease.active());
    EXPECT_TRUE(ease.run(ctx, mass.data(), 1.0, v.data(), 1, kH, kG, double_speed));
    ease.end_frame();
  }
  EXPECT_FALSE(ease.active());
  ease.begin(0);  // 0 = off
  EXPECT_FALSE(ease.active());
}

}  // namespace
}  // namespace cb
