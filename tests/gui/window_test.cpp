// The clothbox window under xvfb-run (Mesa), driven by replay files: drag and
// pin, switching through every registered solver while the cloth moves, the
// screenshot, record/replay determinism, and the no-display message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "gui/gui_run.h"
#include "sim/scene/scene.h"
#include "sim/solvers/solver.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb::test {
namespace {

using nlohmann::json;

const char* kScene = "scenes/hanging_sheet.json";  // 40 x 40, pinned at 1560 and 1599

#define CB_REQUIRE_WINDOW()                                                   \
  do {                                                                        \
    if (!have_xvfb()) GTEST_SKIP() << "xvfb-run is not installed";            \
  } while (0)
#define CB_REQUIRE_SOLVER()                                                   \
  do {                                                                        \
    if (solver_registry().empty()) GTEST_SKIP() << "no solver registered";   \
  } while (0)

Vec3f vec(const json& a) { return {a[0].get<float>(), a[1].get<float>(), a[2].get<float>()}; }

std::string app_args(const std::string& dir, int frames, const std::string& extra = "") {
  return "--scene " + source_path(kScene) + " --backend cpu --replay " + dir + "/replay.json --frames " +
         std::to_string(frames) + " --exit --hide-ui --dump-state " + dir + "/final.json " + extra;
}

void run_ok(const std::string& args) {
  std::string log;
  int rc = run_window(args, &log);
  ASSERT_EQ(rc, 0) << log;
}

TEST(Window, WithoutADisplayPointsToTheCliAndExits3) {
  std::string log;
  int rc = run_command("env -u DISPLAY -u WAYLAND_DISPLAY " + std::string(CLOTHBOX_GUI_APP) + " --scene " +
                           source_path(kScene),
                       &log);
  EXPECT_EQ(rc, 3) << log;
  EXPECT_NE(log.find("clothbox-cli run"), std::string::npos) << log;
}

// A replay whose input event cannot be used stops the window before it runs,
// with exit code 2 and a message naming the file, the event and the field (a
// string cursor position used to escape as a bare JSON type error mid-run; a
// cursor at 1e30 px would have grabbed with a target at 1e30 m)
TEST(Window, ABrokenReplayEventIsNamedAndNothingRuns) {
  CB_REQUIRE_WINDOW();
  std::string dir = scratch_dir("broken_replay");
  const json bad[2] = {{{"frame", 2}, {"type", "mouse_move"}, {"x", "nan"}, {"y", 10}},
                       {{"frame", 2}, {"type", "mouse_down"}, {"button", 0}, {"x", 1e30}, {"y", 10}}};
  const char* want[2] = {"/events/1/x: expected a number within +-1e6, got \"nan\"",
                         "/events/1/x: expected a number within +-1e6, got 1e+30"};
  for (int k = 0; k < 2; ++k) {
    const std::string path = dir + "/replay" + std::to_string(k) + ".json";
    write_replay(path, json::array({{{"frame", 1}, {"type", "key"}, {"key", "P"}}, bad[k]}));
    std::string log;
    const int rc = run_window("--scene " + source_path(kScene) + " --backend cpu --replay " + path +
                                  " --frames 5 --exit",
                              &log);
    EXPECT_EQ(rc, 2) << log;
    EXPECT_NE(log.find(path + ": " + want[k]), std::string::npos) << log;
  }
}

TEST(Window, DragPullsTheGrabbedPointToTheCursorAndAPinHolds) {
  CB_REQUIRE_WINDOW();
  CB_REQUIRE_SOLVER();
  std::string dir = scratch_dir("drag_pin");
  json ev = json::array();
  // ctrl+click on the middle of the free edge pins it
  ev.push_back({{"frame", 5}, {"type", "mouse_down"}, {"button", 0}, {"mods", 2}, {"vertex", 20}});
  ev.push_back({{"frame", 5}, {"type", "mouse_up"}, {"button", 0}});
  ev.push_back({{"frame", 6}, {"type", "dump_state"}, {"path", dir + "/pinned.json"}});
  // shift+click paints pins under the brush, ctrl+shift+click at the same spot erases them
  // (the sheet is still nearly edge-on: a small brush, away from column 20)
  ev.push_back({{"frame", 7}, {"type", "brush_radius"}, {"value", 8}});
  ev.push_back({{"frame", 8}, {"type", "mouse_down"}, {"button", 0}, {"mods", 1}, {"vertex", 808}});
  ev.push_back({{"frame", 8}, {"type", "mouse_up"}, {"button", 0}});
  ev.push_back({{"frame", 9}, {"type", "dump_state"}, {"path", dir + "/brushed.json"}});
  ev.push_back({{"frame", 10}, {"type", "mouse_down"}, {"button", 0}, {"mods", 3}, {"vertex", 808}});
  ev.push_back({{"frame", 10}, {"type", "mouse_up"}, {"button", 0}});
  // grab the free corner and pull it 180 px up over 30 frames, then hold
  ev.push_back({{"frame", 20}, {"type", "mouse_down"}, {"button", 0}, {"mods", 0}, {"vertex", 0}});
  ev.push_back({{"frame", 21}, {"type", "dump_state"}, {"path", dir + "/grabbed.json"}});
  for (int f = 21; f <= 50; ++f) ev.push_back({{"frame", f}, {"type", "mouse_move"}, {"rel", {0, -6}}});
  write_replay(dir + "/replay.json", ev);
  run_ok(app_args(dir, 110));

  json pinned = read_json(dir + "/pinned.json"), grabbed = read_json(dir + "/grabbed.json"),
       fin = read_json(dir + "/final.json"), brushed = read_json(dir + "/brushed.json");
  EXPECT_FALSE(fin["has_nan"].get<bool>());
  // the brush pinned a patch around vertex 808, the eraser removed it again
  std::vector<uint32_t> painted = brushed["pinned"];
  EXPECT_GE(painted.size(), 3u + 3u);
  EXPECT_NE(std::find(painted.begin(), painted.end(), 808u), painted.end());
  EXPECT_EQ(fin["pinned"], json({20, 1560, 1599}));
  // the pin: in the list, and not moved by gravity or by the pull
  std::vector<uint32_t> pins = fin["pinned"];
  EXPECT_NE(std::find(pins.begin(), pins.end(), 20u), pins.end());
  Vec3f p0 = vec(pinned["positions"][20]), p1 = vec(fin["positions"][20]);
  EXPECT_LT(length(p1 - p0), 1e-6f) << "pinned vertex moved";
  // the grab: still held, the target went up, and the point followed it
  ASSERT_TRUE(fin["grab"]["active"].get<bool>());
  Vec3f target = vec(fin["grab"]["target"]);
  EXPECT_GT(target.y - vec(grabbed["grab"]["target"]).y, 0.1f);
  float before = length(vec(grabbed["grab"]["point"]) - target);
  float after = length(vec(fin["grab"]["point"]) - target);
  EXPECT_LT(after, 0.25f * before) << "before " << before << " m, after " << after << " m";
}

// Dragging a pin moves the pins joined to it by pinned edges with it: the
// scarf's pinned left end (4 vertices) moves as one, its right end stays. (Before,
// the dragged corner alone moved and drew the end's triangle out into a needle.)
TEST(Window, DraggingAPinnedEndMovesTheWholeEnd) {
  CB_REQUIRE_WINDOW();
  CB_REQUIRE_SOLVER();
  std::string dir = scratch_dir("drag_end");
  json ev = json::array();
  ev.push_back({{"frame", 3}, {"type", "dump_state"}, {"path", dir + "/before.json"}});
  ev.push_back({{"frame", 3}, {"type", "mouse_down"}, {"button", 0}, {"vertex", 0}});
  for (int f = 4; f <= 12; ++f) ev.push_back({{"frame", f}, {"type", "mouse_move"}, {"rel", {6, 5}}});
  ev.push_back({{"frame", 13}, {"type", "mouse_up"}, {"button", 0}});
  write_replay(dir + "/replay.json", ev);
  run_ok("--scene " + source_path("scenes/icloth_scarf.json") + " --backend cpu --replay " + dir +
         "/replay.json --frames 14 --exit --hide-ui --dump-state " + dir + "/final.json");
  json before = read_json(dir + "/before.json"), fin = read_json(dir + "/final.json");
  const std::vector<uint32_t> pins = fin["pinned"];
  ASSERT_EQ(pins, (std::vector<uint32_t>{0, 39, 40, 79, 80, 119, 120, 159}));  // both ends, 41 x 4 grid
  const Vec3f moved = vec(fin["positions"][0]) - vec(before["positions"][0]);
  EXPECT_GT(length(moved), 0.05f) << "the dragged pin did not move";
  for (uint32_t v : {40u, 80u, 120u})  // the rest of the left end: the same move
    EXPECT_LT(length(vec(fin["positions"][v]) - vec(before["positions"][v]) - moved), 1e-5f) << "vertex " << v;
  for (uint32_t v : {39u, 79u, 119u, 159u})  // the right end stays
    EXPECT_LT(length(vec(fin["positions"][v]) - vec(before["positions"][v])), 1e-6f) << "vertex " << v;
}

// I-Cloth's promise under the mouse: a sheet of the sphere scene grabbed by its
// lower edge and dragged hard across the swinging ball and back (about 1 m/s at
// the cursor) ends every frame with no crossed triangle pair. The replay dumps
// the state, with the last frame's statistics, while dragging and after.
TEST(Window, DraggingIClothAcrossTheBallLeavesNoIntersection) {
  CB_REQUIRE_WINDOW();
  CB_REQUIRE_SOLVER();
  if (!find_solver("icloth")) GTEST_SKIP() << "icloth is not registered";
  std::string dir = scratch_dir("icloth_drag");
  json ev = json::array();
  ev.push_back({{"frame", 20}, {"type", "mouse_down"}, {"button", 0}, {"vertex", 8}});
  for (int f = 21; f < 70; ++f)
    ev.push_back({{"frame", f}, {"type", "mouse_move"}, {"rel", f < 45 ? json({-14, 6}) : json({14, -8})}});
  for (int f : {40, 55, 69}) ev.push_back({{"frame", f}, {"type", "dump_state"}, {"path", dir + "/f" + std::to_string(f) + ".json"}});
  ev.push_back({{"frame", 70}, {"type", "mouse_up"}, {"button", 0}});
  write_replay(dir + "/replay.json", ev, 900, 700);
  run_ok("--scene " + source_path("scenes/icloth_sphere.json") + " --backend cpu --replay " + dir +
         "/replay.json --frames 90 --exit --hide-ui --dump-state " + dir + "/final.json");
  for (const char* f : {"f40", "f55", "f69", "final"}) {
    json d = read_json(dir + "/" + f + ".json");
    EXPECT_FALSE(d["has_nan"].get<bool>()) << f;
    ASSERT_TRUE(d["stats"].contains("intersecting pairs")) << f;
    EXPECT_EQ(d["stats"]["intersecting pairs"].get<double>(), 0.0) << f;
  }
  // the drag did pull the sheet: the grab was held and the sheet stretched
  json mid = read_json(dir + "/f40.json");
  EXPECT_TRUE(mid["grab"]["active"].get<bool>());
  EXPECT_GT(mid["stats"]["max_strain"].get<double>(), 0.05);
}

// a valid value for the first bounded Float parameter of `solver`
bool pick_param(const std::string& solver, std::string* name, double* value) {
  World w(Context{}, load_scene(source_path(kScene)));
  if (!w.set_solver(solver).empty() || !w.solver()) return false;
  const ParamTable table = w.solver()->params();  // held: entries() refers into it
  for (const ParamInfo& p : table.entries()) {
    if (p.kind != ParamKind::Float || !(p.max - p.min < 1e6)) continue;
    *name = p.name;
    *value = p.min + 0.37 * (p.max - p.min);
    return true;
  }
  return false;
}

TEST(Window, SwitchingThroughEverySolverMidMotionHasNoJumpAndNoNaN) {
  CB_REQUIRE_WINDOW();
  CB_REQUIRE_SOLVER();
  std::vector<std::string> names;
  for (const SolverEntry& e : solver_registry()) names.push_back(e.name);
  std::string dir = scratch_dir("switch");
  json ev = json::array();
  // swing the sheet with a drag and let go, so that it is moving fast when switched
  ev.push_back({{"frame", 25}, {"type", "mouse_down"}, {"button", 0}, {"vertex", 0}});
  for (int f = 26; f <= 35; ++f) ev.push_back({{"frame", f}, {"type", "mouse_move"}, {"rel", {12, -6}}});
  ev.push_back({{"frame", 36}, {"type", "mouse_up"}, {"button", 0}});
  std::vector<int> switch_frames;
  int f = 40;
  for (size_t k = 1; k <= names.size(); ++k, f += 6) {  // through all, back to the first
    // dumps just before and just after the switch, both before the frame's step
    std::string tag = std::to_string(f);
    ev.push_back({{"frame", f}, {"type", "dump_state"}, {"path", dir + "/before" + tag + ".json"}});
    ev.push_back({{"frame", f}, {"type", "set_solver"}, {"name", names[k % names.size()]}});
    ev.push_back({{"frame", f}, {"type", "dump_state"}, {"path", dir + "/after" + tag + ".json"}});
    switch_frames.push_back(f);
  }
  std::string pname;
  double pvalue = 0;
  bool edit = pick_param(names[0], &pname, &pvalue);
  if (edit) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.9g", pvalue);
    ev.push_back({{"frame", f}, {"type", "set_param"}, {"name", pname}, {"value", buf}});
    ev.push_back({{"frame", f + 1}, {"type", "set_param"}, {"name", pname}, {"value", "nan"}});  // refused
  }
  write_replay(dir + "/replay.json", ev);
  run_ok(app_args(dir, f + 5));

  json fin = read_json(dir + "/final.json");
  EXPECT_EQ(fin["solver"].get<std::string>(), names[0]);
  std::map<int, json> steps;
  for (const json& s : fin["steps"]) {
    EXPECT_FALSE(s["has_nan"].get<bool>()) << "frame " << s["frame"];
    steps[s["frame"].get<int>()] = s;
  }
  for (size_t k = 0; k < switch_frames.size(); ++k) {
    int sf = switch_frames[k];
    // the switch itself keeps positions, velocities and pins exactly
    json before = read_json(dir + "/before" + std::to_string(sf) + ".json");
    json after = read_json(dir + "/after" + std::to_string(sf) + ".json");
    EXPECT_EQ(before["positions"], after["positions"]) << "frame " << sf;
    EXPECT_EQ(before["velocities"], after["velocities"]) << "frame " << sf;
    EXPECT_EQ(before["pinned"], after["pinned"]) << "frame " << sf;
    EXPECT_EQ(before["grab"], after["grab"]) << "frame " << sf;
    // and the first step of the new solver moves no vertex far beyond the recent
    // motion: a solver that re-initialised the state would move vertices ~1 m
    // (the sheet back to its flat rest shape); 0.25 m leaves room for the elastic
    // recoil when a stiffer solver takes over a stretched state
    ASSERT_TRUE(steps.count(sf) && steps.count(sf - 3));
    EXPECT_EQ(steps[sf]["solver"].get<std::string>(), names[(k + 1) % names.size()]);
    double recent = 0;
    for (int b = sf - 3; b < sf; ++b) recent = std::max(recent, steps[b]["max_displacement"].get<double>());
    double jump = steps[sf]["max_displacement"].get<double>();
    EXPECT_LE(jump, 2.0 * recent + 0.25) << "switch to " << steps[sf]["solver"] << " at frame " << sf;
    // and it continues: the swinging sheet keeps moving under the new solver
    double after_motion = 0;
    for (int a = sf; a < sf + 5 && steps.count(a); ++a)
      after_motion = std::max(after_motion, steps[a]["max_displacement"].get<double>());
    EXPECT_GT(after_motion, 1e-4) << steps[sf]["solver"] << " froze the cloth after the switch at frame " << sf;
    std::printf("switch to %-8s at frame %d: max displacement %.4f m (previous 3 frames: %.4f m)\n",
                steps[sf]["solver"].get<std::string>().c_str(), sf, jump, recent);
  }
  if (edit) {  // the valid edit applied, the NaN was refused and changed nothing
    double got = std::stod(fin["solver_params"][pname].get<std::string>());
    EXPECT_NEAR(got, pvalue, 1e-4 * std::max(1.0, std::fabs(pvalue))) << pname;
  }
}

TEST(Window, ScreenshotShowsTheCloth) {
  CB_REQUIRE_WINDOW();
  std::string dir = scratch_dir("shot");
  write_replay(dir + "/replay.json", json::array());
  run_ok(app_args(dir, 20, "--screenshot " + dir + "/shot.png"));
  Image img;
  ASSERT_TRUE(read_png(dir + "/shot.png", &img));
  EXPECT_EQ(img.width, 800);
  EXPECT_EQ(img.height, 600);
  // front faces are orange (r > g > b), back faces blue; the background and ground are grey
  size_t cloth = 0, n = size_t(img.width) * img.height;
  for (size_t i = 0; i < n; ++i) {
    int r = img.rgb[3 * i], g = img.rgb[3 * i + 1], b = img.rgb[3 * i + 2];
    bool front = r > g && g > b && r - b > 60;
    bool back = b > r + 50 && b > g + 15;
    cloth += front || back;
  }
  EXPECT_GT(cloth, n / 200) << cloth << " cloth-coloured pixels of " << n;
  EXPECT_LT(cloth, n / 2);
}

// A sheet 2 mm above a mesh floor, seen at a grazing angle (4 degrees), is drawn
// in front of it. The cloth surface's polygon offset, meant only for the wireframe
// drawn on top, once pushed a skirt behind the thigh under it in the default view
// (the dress at frame 150: the thigh showed through the skirt).
// A scene whose sheet starts through a mesh plate: the warning is in the state
// dump and drawn under the scene's title (its orange text in the panel), and a
// clean scene shows none.
// In dir: plate.obj, an upright plate, and two scenes of a flat sheet without
// gravity, crossed.json with the sheet through the plate (13 triangle pairs) and
// clean.json with the plate lifted clear of it.
void write_plate_scenes(const std::string& dir) {
  std::ofstream(dir + "/plate.obj") << "v 0 0.2 -0.3\nv 0 0.8 -0.3\nv 0 0.8 0.3\nv 0 0.2 0.3\nf 1 2 3\nf 1 3 4\n";
  json sheet = {{"name", "sheet"},
                {"grid", {{"layout", "quad"}, {"nx", 10}, {"ny", 10}, {"width", 1.0}, {"height", 1.0}}},
                {"transform", {{"translate", {0.0, 0.5, 0.0}}, {"rotate_deg", {-90, 0, 0}}}}};
  json scene = {{"gravity", {0, 0, 0}},
                {"cloths", json::array({sheet})},
                {"obstacles", json::array({{{"type", "mesh"}, {"name", "plate"}, {"obj", "plate.obj"}}})}};
  std::ofstream(dir + "/crossed.json") << scene.dump();
  scene["obstacles"][0]["transform"] = {{"translate", {0.0, 1.0, 0.0}}};  // lifted clear of the sheet
  std::ofstream(dir + "/clean.json") << scene.dump();
}

TEST(Window, AStartThroughAnObstacleIsShownUnderTheTitle) {
  CB_REQUIRE_WINDOW();
  std::string dir = scratch_dir("start_warning");
  write_plate_scenes(dir);
  write_replay(dir + "/replay.json", json::array());
  size_t orange[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "crossed" : "clean";
    run_ok("--scene " + dir + "/" + name + ".json --solver pbd --backend cpu --replay " + dir +
           "/replay.json --frames 3 --exit --size 1000x700 --screenshot " + dir + "/" + name + ".png --dump-state " +
           dir + "/" + name + "_state.json");
    json st = json::parse(std::ifstream(dir + "/" + name + "_state.json"));
    const json& warn = st.at("warnings");
    if (k == 0) {
      ASSERT_EQ(warn.size(), 1u) << warn.dump();
      EXPECT_NE(warn[0].get<std::string>().find("cloth 'sheet' intersects an obstacle at the start ("),
                std::string::npos)
          << warn[0];
    } else {
      EXPECT_TRUE(warn.empty()) << warn.dump();
    }
    Image img;
    ASSERT_TRUE(read_png(dir + "/" + name + ".png", &img));
    for (int y = 0; y < img.height / 3; ++y)  // the Scene panel's top, at the window's left
      for (int x = 0; x < 420 && x < img.width; ++x) {
        const unsigned char* p = &img.rgb[3 * (size_t(y) * img.width + x)];
        orange[k] += p[0] > 200 && p[1] > 140 && p[1] < 215 && p[2] < 110 ? 1 : 0;
      }
  }
  EXPECT_GT(orange[0], 200u) << "the warning's text is not drawn";
  EXPECT_EQ(orange[1], 0u) << "orange text without a warning";
}

// Pixels of the magenta outline of intersecting triangles (View: intersecting triangles).
size_t magenta_pixels(const Image& img) {
  size_t n = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    n += img.rgb[i] > 180 && img.rgb[i + 1] < 90 && img.rgb[i + 2] > 180 ? 1 : 0;
  return n;
}

// A solver switched in over a cloth that already crosses an obstacle says so in
// the window and turns the magenta overlay of the crossed triangles back on (the
// replay turns it off first); over a clean cloth it says nothing of the kind and
// nothing is magenta.
TEST(Window, SwitchingOverACrossedClothSaysSoAndShowsWhere) {
  CB_REQUIRE_WINDOW();
  if (!find_solver("icloth") || !find_solver("pbd")) GTEST_SKIP() << "needs pbd and icloth";
  std::string dir = scratch_dir("crossed_switch");
  write_plate_scenes(dir);
  size_t magenta[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::string name = k == 0 ? "crossed" : "clean";
    // the notice as it stands right after the switch (the screenshot's own notice follows it)
    write_replay(dir + "/replay.json",
                 json::array({{{"frame", 1}, {"type", "intersections"}, {"on", false}},
                              {{"frame", 3}, {"type", "set_solver"}, {"name", "icloth"}},
                              {{"frame", 3}, {"type", "dump_state"}, {"path", dir + "/" + name + "_state.json"}}}),
                 1000, 700);
    run_ok("--scene " + dir + "/" + name + ".json --solver pbd --backend cpu --replay " + dir +
           "/replay.json --frames 4 --exit --size 1000x700 --hide-ui --screenshot " + dir + "/" + name + ".png");
    const json st = read_json(dir + "/" + name + "_state.json");
    EXPECT_EQ(st.at("solver").get<std::string>(), "icloth");
    const std::string msg = st.at("message").get<std::string>();
    const bool noted = msg.find("icloth takes over a cloth that already crosses itself or an obstacle in ") !=
                       std::string::npos;
    EXPECT_EQ(noted, k == 0) << name << ": " << msg;
    Image img;
    ASSERT_TRUE(read_png(dir + "/" + name + ".png", &img));
    magenta[k] = magenta_pixels(img);
  }
  EXPECT_GT(magenta[0], 50u) << "the crossed triangles are not shown";
  EXPECT_EQ(magenta[1], 0u) << "magenta without a crossing";
}

// The shipped Verlet fold crosses itself in 116 triangle pairs at frame 60.
// Switched to icloth there, the window says it untangles first, and after
// I-Cloth's first frames nothing crosses: the magenta overlay the switch
// turned on shows nothing, and the notice no longer warns of crossings but
// says they are cleared.
TEST(Window, SwitchingToIClothOverACrossedFoldUntanglesIt) {
  CB_REQUIRE_WINDOW();
  if (!find_solver("icloth") || !find_solver("verlet")) GTEST_SKIP() << "needs verlet and icloth";
  std::string dir = scratch_dir("untangle_switch");
  write_replay(dir + "/replay.json",
               json::array({{{"frame", 60}, {"type", "set_solver"}, {"name", "icloth"}},
                            {{"frame", 60}, {"type", "dump_state"}, {"path", dir + "/switch.json"}},
                            {{"frame", 62}, {"type", "dump_state"}, {"path", dir + "/clean.json"}}}),
               1000, 700);
  run_ok("--scene " + source_path("scenes/verlet_fold.json") + " --solver verlet --backend cpu --replay " + dir +
         "/replay.json --frames 63 --exit --size 1000x700 --hide-ui --screenshot " + dir + "/after.png --dump-state " +
         dir + "/after.json");
  const json at_switch = read_json(dir + "/switch.json");
  EXPECT_GT(at_switch.at("stats").at("intersecting pairs").get<double>(), 0) << "the fold should cross itself";
  const std::string msg = at_switch.at("message").get<std::string>();
  EXPECT_NE(msg.find("It first moves the cloth to shorten the intersection curves"), std::string::npos) << msg;
  const json after = read_json(dir + "/after.json");
  EXPECT_EQ(after.at("solver").get<std::string>(), "icloth");
  EXPECT_EQ(after.at("stats").at("intersecting pairs").get<double>(), 0);
  const json clean = read_json(dir + "/clean.json");  // before the screenshot's own notice
  ASSERT_EQ(clean.at("stats").at("intersecting pairs").get<double>(), 0);
  const std::string cleared = clean.at("message").get<std::string>();
  const long handed = long(at_switch.at("stats").at("intersecting pairs").get<double>());
  EXPECT_NE(cleared.find("icloth: the " + std::to_string(handed) + " crossed triangle pairs it took over are cleared"),
            std::string::npos)
      << cleared;
  Image img;
  ASSERT_TRUE(read_png(dir + "/after.png", &img));
  size_t cloth = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    cloth += img.rgb[i] > 150 && img.rgb[i + 1] > 60 && img.rgb[i + 1] < 140 && img.rgb[i + 2] < 80 ? 1 : 0;
  EXPECT_EQ(magenta_pixels(img), 0u) << "crossed triangles are still shown";
  EXPECT_GT(cloth, 5000u) << "the cloth is not in the picture";
}

TEST(Window, ClothJustAboveAnObstacleIsDrawnInFrontOfIt) {
  CB_REQUIRE_WINDOW();
  std::string dir = scratch_dir("cloth_over_floor");
  std::ofstream(dir + "/floor.obj") << "v -3 0 -3\nv 3 0 -3\nv 3 0 3\nv -3 0 3\nf 1 3 2\nf 1 4 3\n";
  json material = {{"density", 0.2}, {"stretch", 5000}, {"shear", 500}, {"bend", 1e-5}, {"thickness", 0.001}};
  json sheet = {{"name", "sheet"},
                {"grid", {{"layout", "quad"}, {"nx", 20}, {"ny", 20}, {"width", 1.0}, {"height", 1.0}}},
                {"transform", {{"translate", {0.0, 0.002, 0.0}}, {"rotate_deg", {-90, 0, 0}}}},
                {"material", material}};
  json scene = {{"dt", 0.016666667},
                {"substeps", 1},
                {"gravity", {0, 0, 0}},
                {"camera", {{"eye", {0.0, 0.11, 1.6}}, {"target", {0.0, 0.0, 0.0}}, {"fov", 40}}},
                {"cloths", json::array({sheet})},
                {"obstacles", json::array({{{"type", "mesh"}, {"name", "floor"}, {"obj", "floor.obj"}}})}};
  std::ofstream(dir + "/scene.json") << scene.dump();
  write_replay(dir + "/replay.json", json::array());
  run_ok("--scene " + dir + "/scene.json --solver pbd --backend cpu --replay " + dir +
         "/replay.json --frames 1 --exit --hide-ui --screenshot " + dir + "/shot.png");
  Image img;
  ASSERT_TRUE(read_png(dir + "/shot.png", &img));
  // the sheet's middle projects around the image centre: a 200 x 6 pixel band there
  size_t cloth = 0, other = 0;
  for (int y = img.height / 2 - 3; y < img.height / 2 + 3; ++y)
    for (int x = img.width / 2 - 100; x < img.width / 2 + 100; ++x) {
      const unsigned char* p = &img.rgb[3 * (size_t(y) * img.width + x)];
      const int r = p[0], g = p[1], b = p[2];
      const bool front = r > g && g > b && r - b > 60, back = b > r + 50 && b > g + 15;
      (front || back ? cloth : other)++;
    }
  EXPECT_EQ(other, 0u) << cloth << " cloth pixels, " << other << " others (the floor drawn over the sheet)";
}

TEST(Window, ARecordedReplayReproducesTheSameState) {
  CB_REQUIRE_WINDOW();
  CB_REQUIRE_SOLVER();
  std::string dir = scratch_dir("record");
  json ev = json::array();
  ev.push_back({{"frame", 3}, {"type", "key"}, {"key", "W"}});
  ev.push_back({{"frame", 8}, {"type", "mouse_down"}, {"button", 0}, {"vertex", 39}});
  for (int f = 9; f <= 20; ++f) ev.push_back({{"frame", f}, {"type", "mouse_move"}, {"rel", {-5, -4}}});
  ev.push_back({{"frame", 22}, {"type", "mouse_up"}, {"button", 0}});
  ev.push_back({{"frame", 24}, {"type", "mouse_down"}, {"button", 1}, {"x", 400}, {"y", 300}});
  ev.push_back({{"frame", 25}, {"type", "mouse_move"}, {"x", 460}, {"y", 280}});
  ev.push_back({{"frame", 26}, {"type", "mouse_up"}, {"button", 1}});
  write_replay(dir + "/replay.json", ev);
  run_ok(app_args(dir, 40, "--record " + dir + "/recorded.json"));
  json first = read_json(dir + "/final.json");
  json rec = read_json(dir + "/recorded.json");
  EXPECT_EQ(rec["events"].size(), ev.size());
  // replay the recording
  std::string dir2 = scratch_dir("record2");
  std::rename((dir + "/recorded.json").c_str(), (dir2 + "/replay.json").c_str());
  run_ok(app_args(dir2, 40));
  json second = read_json(dir2 + "/final.json");
  ASSERT_EQ(first["positions"].size(), second["positions"].size());
  EXPECT_EQ(first["positions"], second["positions"]);
  EXPECT_EQ(first["pinned"], second["pinned"]);
}

}  // namespace
}  // namespace cb::test
