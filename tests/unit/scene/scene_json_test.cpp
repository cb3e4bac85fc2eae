// Scene files: the shipped scenes load; every broken input gives its exact
// message (tests/data/broken/EXPECTED.tsv); selectors and transforms resolve.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.h"
#include "sim/scene/scene.h"
#include "support/test_support.h"

namespace cb {
namespace {

struct Expected {
  std::string file, kind, message;
};

std::vector<Expected> read_expected(const std::string& dir) {
  std::ifstream in(dir + "/EXPECTED.tsv");
  std::vector<Expected> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Expected e;
    std::getline(s, e.file, '\t');
    std::getline(s, e.kind, '\t');
    std::getline(s, e.message);
    out.push_back(e);
  }
  return out;
}

std::string expand(std::string msg, const std::string& file, const std::string& dir) {
  for (auto [key, value] : {std::pair<std::string, std::string>{"{file}", file}, {"{dir}", dir}})
    for (size_t p; (p = msg.find(key)) != std::string::npos;) msg.replace(p, key.size(), value);
  return msg;
}

TEST(SceneJson, BrokenInputsGiveTheirExactMessages) {
  const std::string dir = test::source_path("tests/data/broken");
  auto cases = read_expected(dir);
  ASSERT_GE(cases.size(), 15u);
  for (const Expected& c : cases) {
    const std::string path = dir + "/" + c.file;
    const std::string want = expand(c.message, path, dir);
    if (c.kind == "error") {
      try {
        load_scene(path);
        ADD_FAILURE() << c.file << ": loaded, but should fail with: " << want;
      } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), want) << c.file;
      }
    } else {
      SceneSpec s = load_scene(path);
      EXPECT_NE(std::find(s.warnings.begin(), s.warnings.end(), want), s.warnings.end())
          << c.file << ": missing warning: " << want;
    }
  }
}

TEST(SceneJson, ShippedScenesLoadWithoutWarnings) {
  for (const char* name : {"hanging_sheet.json", "sheet_on_sphere.json", "sheet_on_ground.json"}) {
    SceneSpec s = load_scene(test::source_path(std::string("scenes/") + name));
    EXPECT_FALSE(s.cloths.empty()) << name;
    EXPECT_TRUE(s.warnings.empty()) << name << ": " << (s.warnings.empty() ? "" : s.warnings[0]);
  }
}

TEST(SceneJson, HangingSheetIsHorizontalAndPinnedAtTwoBackCorners) {
  SceneSpec s = load_scene(test::source_path("scenes/hanging_sheet.json"));
  const ClothSpec& c = s.cloths[0];
  ASSERT_EQ(c.pinned.size(), 2u);
  for (const Vec3f& p : c.mesh.positions) EXPECT_NEAR(p.y, 1.2f, 1e-5f);  // rotated into the xz plane
  // local top corners (max y) map to world z = -0.5
  for (uint32_t v : c.pinned) {
    EXPECT_NEAR(c.mesh.positions[v].z, -0.5f, 1e-5f);
    EXPECT_NEAR(std::fabs(c.mesh.positions[v].x), 0.5f, 1e-5f);
  }
}

TEST(SceneJson, EdgeAndBoxSelectors) {
  const std::string path = testing::TempDir() + "/selectors.json";
  std::ofstream(path) << R"({"cloths": [{"grid": {"nx": 5, "ny": 4, "width": 1, "height": 1},
    "pins": [{"edge": "top"}, {"box": {"min": [-0.6, -0.6, -1], "max": [-0.4, -0.4, 1]}}]}]})";
  SceneSpec s = load_scene(path);
  // top row: ids 15..19; box: the bottom-left corner (id 0)
  EXPECT_EQ(s.cloths[0].pinned, (std::vector<uint32_t>{0, 15, 16, 17, 18, 19}));
}

TEST(SceneJson, SolverAndEnvironmentAreRead) {
  const std::string path = testing::TempDir() + "/solver.json";
  std::ofstream(path) << R"({"solver": {"name": "pbd", "params": {"iterations": 12, "mode": "jacobi"}},
    "gravity": [0, -1, 0], "wind": {"velocity": [1, 0, 0], "gust": 0.5}, "substeps": 7,
    "cloths": [{"grid": {"nx": 3, "ny": 3}}]})";
  SceneSpec s = load_scene(path);
  EXPECT_EQ(s.solver, "pbd");
  EXPECT_EQ(s.solver_params.at("iterations"), "12");
  EXPECT_EQ(s.solver_params.at("mode"), "jacobi");
  EXPECT_EQ(s.env.gravity.y, -1.f);
  EXPECT_EQ(s.env.wind.gust, 0.5f);
  EXPECT_EQ(s.substeps, 7);
}

TEST(SceneJson, KickSequenceFromSharedDataLoads) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  SceneSpec s = load_scene(test::source_path("scenes/shared/kick_skirt.json"));
  ASSERT_EQ(s.obstacles.size(), 2u);
  const ObstacleSpec& body = s.obstacles[1];
  EXPECT_EQ(body.motion.frames.size(), 61u);
  EXPECT_EQ(body.mesh.positions.size(), 12811u);
  EXPECT_EQ(body.mesh.tris.size(), 25472u);
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// A dropped OBJ's collision thickness is at most a quarter of its short edges
// (the default 4 mm otherwise), and the title says what was chosen.
TEST(SceneJson, ADroppedObjGetsAThicknessBelowItsShortEdges) {
  const SceneSpec fine = scene_from_obj(test::write_grid_obj("fine", 60, 0.2f));  // edges 3.4 mm
  const float edge = 0.2f / 59.f;
  EXPECT_NEAR(fine.cloths.at(0).material.thickness, 0.25f * edge, 1e-6f);
  EXPECT_NE(fine.title.find("dropped as cloth, thickness 0.85 mm"), std::string::npos) << fine.title;
  const SceneSpec coarse = scene_from_obj(test::write_grid_obj("coarse", 11, 1.f));  // edges 0.1 m
  EXPECT_EQ(coarse.cloths.at(0).material.thickness, Material{}.thickness);
}

// A dropped OBJ keeps the gaps of its rest shape under I-Cloth (a mannequin's
// arms against its sides: Material::rest_limit); a scene's material asks for it
// by name and is off without it.
TEST(SceneJson, ADroppedObjKeepsItsRestGapsAndASceneAsksForThem) {
  EXPECT_TRUE(scene_from_obj(test::write_grid_obj("gaps", 11, 1.f)).cloths.at(0).material.rest_limit);
  EXPECT_FALSE(Material{}.rest_limit);
  const std::string path = std::filesystem::temp_directory_path().string() + "/clothbox_rest_limit.json";
  std::ofstream(path) << R"({"cloths": [{"grid": {"nx": 4, "ny": 4}, "material": {"rest_limit": true}},
                                        {"grid": {"nx": 4, "ny": 4}}]})";
  const SceneSpec s = load_scene(path);
  EXPECT_TRUE(s.cloths.at(0).material.rest_limit);
  EXPECT_FALSE(s.cloths.at(1).material.rest_limit);
}

}  // namespace
}  // namespace cb
