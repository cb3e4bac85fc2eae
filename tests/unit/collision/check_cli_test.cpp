// `clothbox-cli check`: counts on a hand-made crossing pair and a clean grid, the
// cloth/obstacle split, and --strict's exit status.
#include <gtest/gtest.h>

#include <string>

#include "sim/io/obj.h"
#include "sim/model/grid.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::string cli() { return std::string(CLOTHBOX_CLI) + " check --backend cpu "; }

// the row of `file` in the command's table, split into words
std::vector<std::string> row_of(const std::string& out, const std::string& file) {
  size_t p = out.find(file);
  EXPECT_NE(p, std::string::npos) << out;
  std::vector<std::string> words;
  if (p == std::string::npos) return words;
  std::string line = out.substr(p, out.find('\n', p) - p), w;
  for (char c : line + " ") {
    if (c == ' ') {
      if (!w.empty()) words.push_back(w);
      w.clear();
    } else {
      w += c;
    }
  }
  return words;  // file verts tris pieces tested within between obstacle total ms
}

TEST(CheckCli, CrossingPairAndCleanGrid) {
  std::string dir = ::testing::TempDir();
  std::string pair = dir + "/check_pair.obj", grid = dir + "/check_grid.obj";
  write_obj(pair,
            {Vec3f(0, 0, 0), Vec3f(1, 0, 0), Vec3f(0, 1, 0), Vec3f(0.2f, 0.2f, -1), Vec3f(0.2f, 0.2f, 1),
             Vec3f(0.3f, 0.3f, 1)},
            {Int3{0, 1, 2}, Int3{3, 4, 5}});
  GridSpec s;
  s.nx = 30;
  s.ny = 30;
  TriMesh g = make_grid(s);
  write_obj(grid, g.positions, g.tris);
  std::string out;
  ASSERT_EQ(test::run_command(cli() + pair + " " + grid, &out), 0) << out;
  auto p = row_of(out, pair);
  ASSERT_EQ(p.size(), 10u) << out;
  EXPECT_EQ(p[3], "2");  // two pieces
  EXPECT_EQ(p[6], "1");  // one pair between them
  EXPECT_EQ(p[8], "1");
  auto q = row_of(out, grid);
  ASSERT_EQ(q.size(), 10u) << out;
  EXPECT_EQ(q[8], "0");
  // the second triangle as an obstacle, and --strict
  ASSERT_EQ(test::run_command(cli() + "--cloth-vertices 3 " + pair, &out), 0) << out;
  EXPECT_EQ(row_of(out, pair)[7], "1") << out;
  EXPECT_EQ(test::run_command(cli() + "--strict " + pair, &out), 1) << out;
  EXPECT_EQ(test::run_command(cli() + "--strict " + grid, &out), 0) << out;
  EXPECT_NE(test::run_command(cli() + dir + "/missing.obj", &out), 0);
}

TEST(CheckCli, SharedMannequinSelfIntersects) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/wm2_15k.obj");
  std::string path = test::shared_path("data/meshes/codim-ipc/wm2_15k.obj"), out;
  ASSERT_EQ(test::run_command(cli() + path, &out), 0) << out;
  auto r = row_of(out, path);
  ASSERT_EQ(r.size(), 10u) << out;
  // BUILD-NOTES: the mannequin self-intersects (~500 pairs, armpits and fingers)
  long total = std::stol(r[8]);
  EXPECT_GT(total, 400);
  EXPECT_LT(total, 600);
}

}  // namespace
}  // namespace cb
