// clothbox-cli end to end: every shipped scene runs 100 frames on the CPU
// backend without NaN; bad input gives a clear message and exit code 2.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "sim/io/obj.h"
#include "support/test_support.h"

namespace cb {
namespace {

std::vector<std::string> shipped_scenes() {
  std::vector<std::string> out;
  const std::string dir = test::source_path("scenes");
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string n = e->d_name;
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0) out.push_back(dir + "/" + n);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Cli, ThereAreShippedScenes) { EXPECT_GE(shipped_scenes().size(), 3u); }

// one test per scene, so that CTest runs them in parallel
class ShippedScene : public testing::TestWithParam<std::string> {};

TEST_P(ShippedScene, Runs100FramesOnCpuWithoutNaN) {
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cpu --frames 100 --quiet --scene " + GetParam(), &out);
  EXPECT_EQ(rc, 0) << GetParam() << "\n" << out;
  EXPECT_NE(out.find("frames 100"), std::string::npos) << GetParam() << "\n" << out;
}

std::string scene_test_name(const testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(info.param.find_last_of('/') + 1);
  n = n.substr(0, n.size() - 5);
  for (char& c : n)
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Cli, ShippedScene, testing::ValuesIn(shipped_scenes()), scene_test_name);

TEST(Cli, RunExportsObjAndStatsCsv) {
  const std::string dir = testing::TempDir() + "/cli_export";
  const std::string csv = testing::TempDir() + "/cli_stats.csv";
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cpu --frames 4 --every 2 --export-obj " + dir +
                                 " --stats " + csv + " --scene " + test::source_path("scenes/hanging_sheet.json"),
                             &out);
  ASSERT_EQ(rc, 0) << out;
  for (const char* f : {"/cloth_00000.obj", "/cloth_00002.obj", "/cloth_00004.obj"})
    EXPECT_TRUE(std::ifstream(dir + f).good()) << f;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("frame,time_s,step_ms,min_strain,max_strain,nan", 0), 0u) << header;
  int rows = 0;
  while (std::getline(in, line)) rows++;
  EXPECT_EQ(rows, 4);
  EXPECT_FALSE(std::ifstream(dir + "/obstacles_00002.obj").good()) << "the sheet has no mesh obstacle";
}

// a scene with a mesh obstacle exports its pose beside the cloth, frame by frame
TEST(Cli, RunExportsTheMeshObstaclesPose) {
  const std::string dir = testing::TempDir() + "/cli_export_obstacles";
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cpu --frames 2 --export-obj " + dir +
                                 " --scene " + test::source_path("scenes/icloth_funnel.json"),
                             &out);
  ASSERT_EQ(rc, 0) << out;
  const TriMesh cloth = read_obj(dir + "/cloth_00002.obj");
  const TriMesh obst = read_obj(dir + "/obstacles_00002.obj");
  EXPECT_GT(cloth.tris.size(), 0u);
  EXPECT_GT(obst.tris.size(), 0u);
}

// the funnel's sheets land at frame ~17: stages such as "impact zones" start
// then; every row still has the header's columns, and that stage is one of them
TEST(Cli, StatsCsvKeepsColumnsWhenStagesAppearLater) {
  const std::string csv = testing::TempDir() + "/cli_stats_funnel.csv";
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cpu --frames 22 --quiet --stats " + csv +
                                 " --scene " + test::source_path("scenes/icloth_funnel.json"),
                             &out);
  ASSERT_EQ(rc, 0) << out;
  std::ifstream in(csv);
  std::string header, line;
  std::getline(in, header);
  auto fields = [](const std::string& l) { return std::count(l.begin(), l.end(), ',') + 1; };
  EXPECT_NE(header.find(",ms_impact zones"), std::string::npos) << header;
  int rows = 0;
  while (std::getline(in, line)) {
    rows++;
    EXPECT_EQ(fields(line), fields(header)) << "row " << rows << ": " << line;
  }
  EXPECT_EQ(rows, 22);
}

// splits a CSV line at its commas (the stats file quotes nothing)
std::vector<std::string> csv_fields(const std::string& line) {
  std::vector<std::string> out(1);
  for (char c : line) {
    if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

// the stats CSV at `path`, a line a row (the header first), each split at its commas
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) rows.push_back(csv_fields(line));
  return rows;
}

// clothbox-cli run: the shipped hanging sheet under verlet for `frames` frames with
// `options` (the switches), its statistics written to `csv`; the exit code
int run_switched(const std::string& options, int frames, const std::string& csv, std::string* out) {
  return test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cpu --frames " + std::to_string(frames) +
                               " --quiet --solver verlet " + options + " --stats " + csv + " --scene " +
                               test::source_path("scenes/hanging_sheet.json"),
                           out);
}

// the column named `name` of a CSV header (header.size() when absent)
size_t column(const std::vector<std::string>& header, const std::string& name) {
  return size_t(std::find(header.begin(), header.end(), name) - header.begin());
}

// --switch 3:pbd: frames 1-3 run verlet and 4-6 pbd, whose first frame reports
// its takeover settle; every frame reports the cloth's kinetic energy
TEST(Cli, RunSwitchesSolverAtTheGivenFrame) {
  const std::string csv = testing::TempDir() + "/cli_stats_switch.csv";
  std::string out;
  ASSERT_EQ(run_switched("--switch 3:pbd", 6, csv, &out), 0) << out;
  EXPECT_NE(out.find("solver pbd"), std::string::npos) << out;
  const std::vector<std::vector<std::string>> table = read_csv(csv);
  ASSERT_EQ(table.size(), 7u);
  const std::vector<std::string>& header = table[0];
  const size_t verlet = column(header, "ms_verlet integrate"), settle = column(header, "pbd settle passes"),
               energy = column(header, "kinetic energy");
  ASSERT_LT(verlet, header.size());
  ASSERT_LT(settle, header.size());
  ASSERT_LT(energy, header.size());
  for (size_t f = 1; f < table.size(); ++f) {
    const std::vector<std::string>& row = table[f];
    ASSERT_EQ(row.size(), header.size()) << "frame " << f;
    EXPECT_EQ(!row[verlet].empty(), f <= 3) << "frame " << f;
    EXPECT_EQ(!row[settle].empty(), f == 4) << "frame " << f;
    EXPECT_GT(std::stod(row[energy]), 0.0) << "frame " << f << ": the sheet falls";
  }
}

// --switch-params sets the parameters of the solver switched to: pbd's settle off
TEST(Cli, RunSwitchParamsSetTheNewSolversParameters) {
  const std::string csv = testing::TempDir() + "/cli_stats_switch_params.csv";
  std::string out;
  ASSERT_EQ(run_switched("--switch 3:pbd --switch-params settle_passes=0", 4, csv, &out), 0) << out;
  const std::vector<std::vector<std::string>> table = read_csv(csv);
  ASSERT_EQ(table.size(), 5u);
  const size_t settle = column(table[0], "pbd settle passes");
  ASSERT_LT(settle, table[0].size());
  ASSERT_EQ(table.back().size(), table[0].size());
  EXPECT_EQ(table.back()[settle], "0");  // frame 4, pbd's first: no pass ran
}

TEST(Cli, BadInputGivesAClearMessageAndExitCode2) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"run --scene /nonexistent.json", "/nonexistent.json: cannot open the scene file (missing or unreadable)"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames -3",
       "--frames expects a whole number in [0, 10000000], got '-3'"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --backend gpu",
       "unknown backend 'gpu' (expected auto, cpu or cuda)"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --solver nope", "unknown solver 'nope'"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --dt nan", "--dt expects a number"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames 10 --switch 5",
       "--switch: '5' is not FRAME:SOLVER"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames 10 --switch 5:nope",
       "--switch: unknown solver 'nope'"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames 10 --switch 12:pbd",
       "--switch: frame 12 is outside the run's frames [0, 10)"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames 10 --switch 5:pbd,3:verlet",
       "--switch: the frames must increase"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") + " --frames 10 --switch-params a=1",
       "--switch-params needs --switch"},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") +
           " --frames 10 --switch 5:pbd --switch-params bogus=1",
       "--switch-params: "},
      {"run --scene " + test::source_path("scenes/hanging_sheet.json") +
           " --frames 10 --switch 5:pbd --switch-params settle_passes",
       "--switch-params expects name=value pairs"},
      {"frobnicate", "unknown command 'frobnicate'"},
      {"run --bogus 1", "unknown option --bogus"},
  };
  for (const Case& c : cases) {
    std::string out;
    int rc = test::run_command(std::string(CLOTHBOX_CLI) + " " + c.args, &out);
    EXPECT_EQ(rc, 2) << c.args << "\n" << out;
    EXPECT_NE(out.find(c.message), std::string::npos) << c.args << "\n" << out;
  }
}

TEST(Cli, ExplicitCudaWithoutDeviceFailsClearly) {
  if (cuda_device_count() > 0) GTEST_SKIP() << "a CUDA device is present";
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " run --backend cuda --frames 1 --scene " +
                                 test::source_path("scenes/hanging_sheet.json"),
                             &out);
  EXPECT_EQ(rc, 2) << out;
  EXPECT_NE(out.find("backend 'cuda' requested but unavailable"), std::string::npos) << out;
}

TEST(Cli, InfoPrintsCounts) {
  std::string out;
  int rc = test::run_command(std::string(CLOTHBOX_CLI) + " info --scene " + test::source_path("scenes/hanging_sheet.json"), &out);
  ASSERT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("vertices   1600"), std::string::npos) << out;
  EXPECT_NE(out.find("pinned     2"), std::string::npos) << out;
}

}  // namespace
}  // namespace cb
