// DeviceBuffer: upload/download round trips, resize zeroes, copies, moves.
#include <gtest/gtest.h>

#include "sim/core/buffer.h"
#include "sim/core/error.h"
#include "sim/core/math.h"
#include "support/test_support.h"

namespace cb {
namespace {

TEST(DeviceBuffer, RoundTripCopyAndResize) {
  for (const Context& ctx : test::backends()) {
    std::vector<Vec3f> h = {{1, 2, 3}, {4, 5, 6}};
    DeviceBuffer<Vec3f> a(ctx, h);
    EXPECT_EQ(a.size(), 2u);
    EXPECT_EQ(a.bytes(), 2 * sizeof(Vec3f));
    EXPECT_EQ(a.to_host()[1], h[1]);
    DeviceBuffer<Vec3f> b;
    b.copy_from(a);
    EXPECT_EQ(b.to_host()[0], h[0]);
    b.resize(ctx, 5);
    for (const Vec3f& v : b.to_host()) EXPECT_EQ(v, Vec3f{});
    DeviceBuffer<Vec3f> c(std::move(a));
    EXPECT_EQ(a.size(), 0u);
    EXPECT_EQ(c.to_host()[1], h[1]);
    c.fill_zero();
    EXPECT_EQ(c.to_host()[1], Vec3f{});
  }
}

// A buffer sized every step keeps its memory while the new size fits, and a
// resize still hands out zeros, also where the memory held older values.
TEST(DeviceBuffer, ResizeReusesItsMemoryAndStillZeroes) {
  for (const Context& ctx : test::backends()) {
    DeviceBuffer<float> a(ctx, std::vector<float>{1, 2, 3, 4, 5, 6});
    const float* first = a.data();
    a.resize(ctx, 4);
    EXPECT_EQ(a.data(), first);
    EXPECT_EQ(a.to_host(), std::vector<float>(4, 0.f));
    a.upload(ctx, {7, 8, 9, 10, 11});
    EXPECT_EQ(a.data(), first);
    a.resize(ctx, 6);
    EXPECT_EQ(a.data(), first);
    EXPECT_EQ(a.to_host(), std::vector<float>(6, 0.f));
    a.upload(ctx, std::vector<float>(7, 1.f));  // beyond the memory: a new, larger block
    EXPECT_EQ(a.size(), 7u);
    EXPECT_EQ(a.to_host(), std::vector<float>(7, 1.f));
    a.resize(ctx, 0);
    EXPECT_TRUE(a.empty());
    a.resize(ctx, 9);
    EXPECT_EQ(a.to_host(), std::vector<float>(9, 0.f));
  }
}

TEST(Backend, ParseAndFallBack) {
  EXPECT_EQ(parse_backend("cpu"), BackendRequest::Cpu);
  EXPECT_THROW(parse_backend("opencl"), Error);
  std::string note;
  Context ctx = make_context(BackendRequest::Auto, &note);
  if (cuda_device_count() == 0) {
    EXPECT_EQ(ctx.backend, Backend::Cpu);
    EXPECT_EQ(note.rfind("backend auto: using cpu (", 0), 0u) << note;
    EXPECT_THROW(make_context(BackendRequest::Cuda), Error);
  } else {
    EXPECT_EQ(ctx.backend, Backend::Cuda);
  }
}

}  // namespace
}  // namespace cb
