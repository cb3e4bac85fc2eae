// World: free fall against the analytic answer (positions and kinetic energy), pins, reset, solver switching,
// and bit-identical CPU results whatever the thread count.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/scene/scene.h"
#include "sim/solvers/testing/gravity_solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

TEST(World, FreeFallMatchesAnalyticParabola) {
  for (const Context& ctx : test::backends()) {
    SceneSpec s = test::grid_scene(5, 5, 1.f, 1.f, 2.f);
    s.dt = 0.01f;
    s.substeps = 3;
    World w(ctx, s);
    w.set_solver(make_gravity_test_solver(ctx, w.model()));
    HostState h = w.host_state();
    for (Vec3f& v : h.v) v = {0.5f, 1.f, -0.25f};
    upload(ctx, h, w.mutable_state());
    for (int f = 0; f < 50; ++f) w.step();
    const double t = w.time();
    ASSERT_NEAR(t, 0.5, 1e-6);
    auto x = w.positions();
    for (size_t i = 0; i < x.size(); ++i) {
      Vec3f x0 = w.model().rest[i];
      EXPECT_NEAR(x[i].x, x0.x + 0.5 * t, 1e-4);
      EXPECT_NEAR(x[i].y, x0.y + 1.0 * t - 0.5 * 9.81 * t * t, 1e-4);
      EXPECT_NEAR(x[i].z, x0.z - 0.25 * t, 1e-4);
    }
    EXPECT_FALSE(w.stats().has_nan);
    // and the statistic "kinetic energy" is 1/2 M |v(t)|^2 (J)
    double mass = 0;
    for (float m : w.model().mass) mass += m;
    const double vy = 1.0 - 9.81 * t, speed2 = 0.5 * 0.5 + vy * vy + 0.25 * 0.25;
    EXPECT_NEAR(w.stats().get("kinetic energy", -1), 0.5 * mass * speed2, 1e-4 * 0.5 * mass * speed2);
  }
}

TEST(World, PinnedVerticesStayPutAndCanBeMoved) {
  for (const Context& ctx : test::backends()) {
    SceneSpec s = test::grid_scene(4, 4, 1.f, 1.f, 1.f);
    s.cloths[0].pinned = {0, 3};
    World w(ctx, s);
    w.set_solver(make_gravity_test_solver(ctx, w.model()));
    w.set_pinned(5, true);
    for (int f = 0; f < 20; ++f) w.step();
    auto x = w.positions();
    for (uint32_t v : {0u, 3u, 5u}) EXPECT_EQ(x[v], w.model().rest[v]) << "vertex " << v;
    EXPECT_LT(x[1].y, w.model().rest[1].y - 0.5f) << "free vertices fall";
    // dragging a pin moves it; it then holds still at the new place
    w.move_pinned(0, {0.f, 2.f, 0.f});
    w.step();
    EXPECT_EQ(w.positions()[0], (Vec3f{0.f, 2.f, 0.f}));
    // clearing pins restores the scene's pins (5 is free again)
    w.clear_pins();
    EXPECT_TRUE(w.is_pinned(0));
    EXPECT_FALSE(w.is_pinned(5));
    w.reset();
    EXPECT_EQ(w.positions()[1], w.model().rest[1]);
    EXPECT_EQ(w.time(), 0.0);
  }
}

TEST(World, StatsReportStrainAndNaN) {
  SceneSpec s = test::grid_scene(3, 3, 1.f, 1.f, 0.f);
  World w(Context{}, s);
  w.set_solver(std::unique_ptr<Solver>());  // no solver: nothing moves, stats still computed
  HostState h = w.host_state();
  h.x[8] = h.x[8] * 2.f;  // stretch the edges at the far corner
  upload(Context{}, h, w.mutable_state());
  w.step();
  EXPECT_GT(w.stats().max_strain, 0.5f);
  EXPECT_FALSE(w.stats().has_nan);
  h.v[4].y = std::numeric_limits<float>::quiet_NaN();
  upload(Context{}, h, w.mutable_state());
  w.step();
  EXPECT_TRUE(w.stats().has_nan);
}

TEST(World, UnknownSolverIsRefusedWithTheList) {
  World w(Context{}, test::grid_scene(3, 3, 1.f, 1.f, 0.f));
  std::string err = w.set_solver("no-such-solver");
  EXPECT_NE(err.find("unknown solver 'no-such-solver'"), std::string::npos) << err;
  EXPECT_NE(err.find("available:"), std::string::npos) << err;
}

// Every registered solver: same scene, same inputs -> bit-identical states on the
// CPU whatever the OpenMP thread count (gathers, no atomic scatters).
TEST(World, EveryRegisteredSolverIsDeterministicOnCpu) {
  SceneSpec scene = load_scene(test::source_path("scenes/hanging_sheet.json"));
  for (const SolverEntry& e : solver_registry()) {
    std::vector<Vec3f> runs[2];
    const int threads[2] = {1, 3};
    for (int r = 0; r < 2; ++r) {
      int saved = omp_get_max_threads();
      omp_set_num_threads(threads[r]);
      SceneSpec s = scene;
      s.solver = e.name;
      s.solver_params.clear();
      World w(Context{}, s);
      for (int f = 0; f < 20; ++f) w.step();
      runs[r] = w.positions();
      omp_set_num_threads(saved);
    }
    ASSERT_EQ(runs[0].size(), runs[1].size());
    size_t differ = 0;
    for (size_t i = 0; i < runs[0].size(); ++i) differ += runs[0][i] != runs[1][i];
    EXPECT_EQ(differ, 0u) << "solver " << e.name << ": " << differ << " vertices differ between 1 and 3 threads";
  }
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// Reset is a replay: after a reset the run from the scene's start is the one a
// fresh load gives, bit for bit, for every solver, with the parameters the user
// set kept. The solvers keep history between frames (I-Cloth's resting friction
// and takeover state, pbd's and Verlet's own), so a reset restarts the solver
// too. A sheet falling on a ball: 30 frames (on the ball from the 15th); 8 more,
// a reset, and the 30 again.
TEST(World, ResetReplaysTheRunFromTheStart) {
  const SceneSpec scene = load_scene(test::source_path("scenes/sheet_on_sphere.json"));
  for (const SolverEntry& e : solver_registry()) {
    SceneSpec s = scene;
    s.solver = e.name;
    s.solver_params.clear();
    World w(Context{}, s);
    ParamTable params = w.solver()->params();  // the user moves the first float parameter by 1 %
    for (const ParamInfo& p : params.entries())
      if (p.kind == ParamKind::Float && p.value > 0 && p.value * 1.01 <= p.max) {
        ASSERT_EQ(params.set(p.name, p.value * 1.01), "");
        break;
      }
    ASSERT_EQ(w.set_solver_params(params), "");
    params = w.solver()->params();
    for (int f = 0; f < 30; ++f) w.step();
    const std::vector<Vec3f> first = w.positions();
    for (int f = 0; f < 8; ++f) w.step();
    w.reset();
    EXPECT_EQ(w.solver_name(), e.name);
    for (int f = 0; f < 30; ++f) w.step();
    const std::vector<Vec3f> again = w.positions();
    ASSERT_EQ(first.size(), again.size());
    size_t differ = 0;
    for (size_t i = 0; i < first.size(); ++i) differ += first[i] != again[i];
    EXPECT_EQ(differ, 0u) << "solver " << e.name << ": " << differ << " vertices differ after the reset";
    const std::vector<ParamInfo>& kept = w.solver()->params().entries();
    ASSERT_EQ(kept.size(), params.entries().size());
    for (size_t i = 0; i < kept.size(); ++i)
      EXPECT_EQ(kept[i].value, params.entries()[i].value) << e.name << ": " << kept[i].name << " survives a reset";
  }
}

TEST(World, CountsIntersectingPairsEveryFrame) {
  for (const Context& ctx : test::backends()) {
    SceneSpec s = test::grid_scene(6, 6, 1.f, 1.f, 0.5f);  // horizontal at y = 0.5
    World clean(ctx, s);
    clean.set_solver(std::unique_ptr<Solver>());
    clean.step();
    EXPECT_EQ(clean.stats().get("intersecting pairs", -1), 0.0);

    ClothSpec upright = s.cloths[0];  // a second sheet standing through the first
    for (Vec3f& p : upright.mesh.positions) p = Vec3f{p.x, 0.5f + p.z, 0.01f};
    upright.name = "upright";
    s.cloths.push_back(upright);
    World crossed(ctx, s);
    crossed.set_solver(std::unique_ptr<Solver>());
    crossed.step();
    EXPECT_GT(crossed.stats().get("cloth-cloth"), 0.0);
    EXPECT_EQ(crossed.stats().get("self-intersections"), 0.0);
    EXPECT_EQ(crossed.intersecting_pairs().size(), size_t(crossed.stats().get("intersecting pairs")));
  }
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// A scene's solver parameters are checked when the world is made (the scene
// loader reads them as values only): an out-of-range one names the file and
// the parameter. Verlet's strain-limit parameters of the forty-second session.
TEST(World, ASceneWithABadSolverParameterNamesTheFileAndTheParameter) {
  const std::string dir = test::source_path("tests/data/broken");
  const std::pair<std::string, std::string> cases[] = {
      {"verlet_strain_reach.json", "/solver/params/strain_reach: strain_reach must be 0 or in [2, 64]"},
      {"verlet_obstacles_in_passes.json",
       "/solver/params/obstacles_in_passes: parameter 'obstacles_in_passes' = 2 is outside [0, 1]"},
      // the parameters given to other solvers are checked at load too, not at a switch
      {"params_of_unknown_solver.json",
       "/solver/params_of/verlett: unknown solver 'verlett' (available: " + solver_names() + ")"},
      {"params_of_unknown_param.json", "/solver/params_of/verlet/sub_steps: unknown parameter 'sub_steps'"},
      {"params_of_out_of_range.json", "/solver/params_of/verlet: strain_reach must be 0 or in [2, 64]"},
  };
  for (const auto& [file, message] : cases) {
    const std::string path = dir + "/" + file;
    const SceneSpec s = load_scene(path);  // values of the right JSON types: the loader takes them
    try {
      World w(Context{}, s);
      ADD_FAILURE() << file << ": the world was made";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), path + ": " + message);
    }
  }
}

// A scene made for one solver gives another the parameters it needs there
// (SceneSpec::params_of): the first switch to it starts from them, and what
// the user edits afterwards comes back as for any solver.
TEST(World, TheSceneGivesAnotherSolverItsParametersWhenSwitchedTo) {
  SceneSpec s = test::grid_scene(4, 4, 1.f, 1.f, 1.f);
  s.solver = "pbd";
  s.solver_params = {{"iterations", "20"}};
  s.params_of["verlet"] = {{"substeps", "8"}, {"hoops", "false"}};
  World w(Context{}, s);
  EXPECT_EQ(w.solver()->params().get("iterations"), 20);
  ASSERT_EQ(w.set_solver("verlet"), "");
  EXPECT_EQ(w.solver()->params().get("substeps"), 8);
  EXPECT_EQ(w.solver()->params().get("hoops"), 0);
  ASSERT_EQ(w.set_solver_param("substeps", "12"), "");
  ASSERT_EQ(w.set_solver("pbd"), "");
  EXPECT_EQ(w.solver()->params().get("iterations"), 20);
  ASSERT_EQ(w.set_solver("verlet"), "");
  EXPECT_EQ(w.solver()->params().get("substeps"), 12) << "the user's edit, not the scene's value";
  // --solver verlet on the command line: verlet's parameters become the scene's, pbd's wait in params_of
  use_solver(s, "verlet");
  EXPECT_EQ(s.solver_params.at("substeps"), "8");
  EXPECT_EQ(s.params_of.at("pbd").at("iterations"), "20");
  World v(Context{}, s);
  EXPECT_EQ(v.solver()->params().get("substeps"), 8);
  ASSERT_EQ(v.set_solver("pbd"), "");
  EXPECT_EQ(v.solver()->params().get("iterations"), 20);
}

TEST(World, SolverParametersComeBackAfterASwitch) {
  if (solver_registry().size() < 2) GTEST_SKIP() << "needs two registered solvers";
  World w(Context{}, test::grid_scene(4, 4, 1.f, 1.f, 1.f));
  const std::string first = solver_registry()[0].name, second = solver_registry()[1].name;
  ASSERT_EQ(w.set_solver(first), "");
  ParamTable t = w.solver()->params();
  const ParamInfo& p = t.entries().at(0);
  double changed = p.kind == ParamKind::Bool ? 1 - p.value : (p.min + p.max) / 2;
  if (p.kind == ParamKind::Int || p.kind == ParamKind::Choice) changed = std::floor(changed);
  ASSERT_EQ(w.set_solver_param(p.name, std::to_string(changed)), "");
  ASSERT_EQ(w.set_solver(second), "");
  ASSERT_EQ(w.set_solver(first), "");
  EXPECT_EQ(w.solver()->params().get(p.name), changed) << p.name;
}

// Every registered solver takes each of its parameters at both ends of the range
// its table shows (the UI's sliders reach them): I-Cloth refused cg_tolerance
// 1e-8, weft_ratio 0.01 and thickness 0.1, whose float values lie just outside
// the double bounds. A solver with every entry at its ends is too slow to step,
// so each end is set alone and the solver is only asked to take it.
TEST(World, EverySolverTakesEachParameterAtTheEndsOfItsRange) {
  for (const SolverEntry& e : solver_registry()) {
    World w(Context{}, test::grid_scene(4, 4, 1.f, 1.f, 1.f));
    ASSERT_EQ(w.set_solver(e.name), "");
    const ParamTable defaults = w.solver()->params();
    for (const ParamInfo& p : defaults.entries()) {
      if (p.kind == ParamKind::Bool || p.kind == ParamKind::Choice) continue;
      for (double end : {p.min, p.max}) {
        ParamTable t = defaults;
        ASSERT_EQ(t.set(p.name, end), "") << e.name << ": " << p.name;
        EXPECT_EQ(w.set_solver_params(t), "") << e.name << ": " << p.name << " = " << end;
      }
      ASSERT_EQ(w.set_solver_params(defaults), "") << e.name;
    }
  }
}

// Every registered solver lists each of its parameters under a named section of
// the Solver panel, and a section's entries are contiguous (the panel opens one
// node per run of a section).
TEST(World, EverySolverParameterHasASectionAndSectionsAreContiguous) {
  for (const SolverEntry& e : solver_registry()) {
    World w(Context{}, test::grid_scene(4, 4, 1.f, 1.f, 1.f));
    ASSERT_EQ(w.set_solver(e.name), "");
    const ParamTable t = w.solver()->params();
    std::vector<std::string> seen;
    for (const ParamInfo& p : t.entries()) {
      EXPECT_FALSE(p.group.empty()) << e.name << ": " << p.name;
      if (seen.empty() || seen.back() != p.group) {
        EXPECT_EQ(std::find(seen.begin(), seen.end(), p.group), seen.end())
            << e.name << ": section '" << p.group << "' is split at " << p.name;
        seen.push_back(p.group);
      }
    }
  }
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// warnings of the scene that mention the start (World::warn_of_start_intersections)
std::vector<std::string> start_warnings(const World& w) {
  std::vector<std::string> out;
  for (const std::string& s : w.warnings())
    if (s.find("at the start") != std::string::npos) out.push_back(s);
  return out;
}

TEST(World, ASceneThatStartsIntersectedIsReportedAtLoad) {
  SceneSpec s = test::grid_scene(6, 6, 1.f, 1.f, 0.5f);  // horizontal at y = 0.5
  EXPECT_TRUE(start_warnings(World(Context{}, s)).empty());

  ClothSpec upright = s.cloths[0];  // a second sheet standing through the first
  for (Vec3f& p : upright.mesh.positions) p = Vec3f{p.x, 0.5f + p.z, 0.01f};
  upright.name = "upright";
  s.cloths.push_back(upright);
  ObstacleSpec plate;  // a mesh plate through the first sheet
  plate.name = "plate";
  plate.kind = ObstacleKind::Mesh;
  plate.mesh.positions = {{-0.3f, 0.3f, -0.5f}, {-0.3f, 0.7f, -0.5f}, {-0.3f, 0.7f, -0.1f}, {-0.3f, 0.3f, -0.1f}};
  plate.mesh.tris = {{0, 1, 2}, {0, 2, 3}};
  s.obstacles.push_back(plate);
  World w(Context{}, s);
  const std::vector<std::string> warn = start_warnings(w);
  ASSERT_EQ(warn.size(), 2u) << (warn.empty() ? "" : warn[0]);
  const auto has = [&](const std::string& text) {
    return std::any_of(warn.begin(), warn.end(), [&](const std::string& x) { return x.find(text) != std::string::npos; });
  };
  EXPECT_TRUE(has("cloth 'sheet' and cloth 'upright' intersect at the start (")) << warn[0] << "\n" << warn[1];
  EXPECT_TRUE(has("cloth 'sheet' intersects an obstacle at the start (")) << warn[0] << "\n" << warn[1];
  EXPECT_TRUE(has("I-Cloth first tries to untangle them"));
  // the counters and pairs are left for the first frame
  EXPECT_EQ(w.stats().get("intersecting pairs", -1), -1.0);
  EXPECT_TRUE(w.intersecting_pairs().empty());
  w.set_solver(std::unique_ptr<Solver>());
  w.step();
  EXPECT_GT(w.stats().get("cloth-cloth"), 0.0);
  EXPECT_GT(w.stats().get("cloth-obstacle"), 0.0);
}

TEST(World, AClothThatIntersectsItselfIsReportedWithItsFirstPair) {
  SceneSpec s = test::grid_scene(6, 6, 1.f, 1.f, 0.5f);
  ClothSpec& c = s.cloths[0];
  // the last row of quads folded back under the sheet: row 4 raised to y =
  // 0.7, row 5 moved below row 0 at y = 0.3, so the strip between them crosses
  // y = 0.5 above row 2, through flat quads that share no vertex with it
  const float z0 = c.mesh.positions[0].z;
  for (int i = 0; i < 6; ++i) c.mesh.positions[size_t(24 + i)].y = 0.7f;
  for (int i = 0; i < 6; ++i) c.mesh.positions[size_t(30 + i)] = Vec3f{c.mesh.positions[size_t(30 + i)].x, 0.3f, z0};
  World w(Context{}, s);
  const std::vector<std::string> warn = start_warnings(w);
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_NE(warn[0].find("cloth 'sheet' intersects itself at the start ("), std::string::npos) << warn[0];
  EXPECT_NE(warn[0].find("first: triangles "), std::string::npos) << warn[0];
}

// The scene loader checks a cloth's mesh (its errors name the JSON path) and the
// model builder checks it again: a warning of both is listed once.
TEST(World, AMeshWarningIsListedOnce) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "clothbox_world_test_warn";
  std::filesystem::create_directories(dir);
  {
    std::ofstream obj(dir / "flat.obj");  // a square and a fin on its diagonal: a non-manifold edge
    obj << "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 0.5 1\nf 1 2 3\nf 1 3 4\nf 1 3 5\n";
    std::ofstream json(dir / "scene.json");
    json << R"({"cloths": [{"name": "flat", "obj": "flat.obj"}]})";
  }
  World w(Context{}, load_scene((dir / "scene.json").string()));
  const auto n = std::count_if(w.warnings().begin(), w.warnings().end(),
                               [](const std::string& s) { return s.find("non-manifold") != std::string::npos; });
  EXPECT_EQ(n, 1) << (w.warnings().empty() ? "" : w.warnings()[0]);
  std::filesystem::remove_all(dir);
}

// Every shipped scene starts clean: the skirt of kick_skirt.json once started
// through the mannequin's hips (346 triangle pairs), which every solver then kept.
TEST(World, EveryShippedSceneStartsWithoutIntersections) {
  const bool shared = !test::shared_path("data/meshes/codim-ipc/kick").empty();
  int checked = 0;
  for (const char* dir : {"scenes", "scenes/shared"}) {
    if (std::string(dir) == "scenes/shared" && !shared) continue;
    for (const auto& e : std::filesystem::directory_iterator(test::source_path(dir))) {
      if (e.path().extension() != ".json") continue;
      World w(Context{}, load_scene(e.path().string()));
      const std::vector<std::string> warn = start_warnings(w);
      EXPECT_TRUE(warn.empty()) << e.path() << ": " << (warn.empty() ? "" : warn[0]);
      ++checked;
    }
  }
  EXPECT_GE(checked, 8);
}

}  // namespace
}  // namespace cb
