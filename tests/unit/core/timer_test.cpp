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
    t.begin("solve");  // begin closes the open stage
    t.end();
    StageTimes s = t.collect();
    ASSERT_EQ(s.size(), 3u);
    EXPECT_EQ(s[0].first, "predict");
    EXPECT_EQ(s[1].first, "collide");
    EXPECT_EQ(s[2].first, "solve");
    if (!ctx.is_cuda()) EXPECT_GE(s[0].second, 6.0);  // wall time on the CPU
    EXPECT_TRUE(t.collect().empty()) << "collect clears the frame";
  }
}

}  // namespace
}  // namespace cb
