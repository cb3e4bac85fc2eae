// Stage timers: repeated stages are summed, order of first appearance is kept.
#include <gtest/gtest.h>

#include <thread>

#include "sim/core/timer.h"
#include "support/test_support.h"

namespace cb {
namespace {

TEST(StageTimer, SumsRepeatedStagesInFirstSeenOrder) {
  for (const Context& ctx : test::backends()) {
    StageTimer t(ctx);
    for (int i = 0; i < 3; ++i) {
      ScopedStage a(t, "predict");
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    t.begin("collide");
    t.begin("solve");  // nested: collide pauses
    t.end();           // collide resumes
    StageTimes s = t.collect();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].first, "predict");
    EXPECT_EQ(s[1].first, "collide");
    EXPECT_EQ(s[2].first, "solve");
    if (!ctx.is_cuda()) EXPECT_GE(s[0].second, 6.0);  // wall time on the CPU
    EXPECT_TRUE(t.collect().empty()) << "collect clears the frame";
  }
}

// a stage begun inside another pauses it: each time is exclusive, and the
// outer stage goes on after the inner one ends
TEST(StageTimer, NestedStagesCountExclusiveTime) {
  for (const Context& ctx : test::backends()) {
    if (ctx.is_cuda()) continue;  // wall time: the CPU backend's clock
    StageTimer t(ctx);
    {
      ScopedStage outer(t, "collisions");
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      {
        ScopedStage inner(t, "tangle check");
        std::this_thread::sleep_for(std::chrono::milliseconds(30));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    StageTimes s = t.collect();
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].first, "collisions");
    EXPECT_EQ(s[1].first, "tangle check");
    EXPECT_GE(s[0].second, 10.0) << "the outer stage is timed before and after the inner one";
    EXPECT_LT(s[0].second, 30.0) << "the inner stage's time is not counted in the outer one";
    EXPECT_GE(s[1].second, 30.0);
  }
}

}  // namespace
}  // namespace cb
