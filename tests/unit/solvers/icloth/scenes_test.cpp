// The small I-Cloth scenes (scenes/icloth_*.json): the penetration counter of
// the collision core reports no intersecting triangle pair after any frame.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "sim/scene/scene.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

// Runs scenes/<file> for `frames` frames on every backend: no NaN, no
// intersecting pair, edge strain under `strain_bound` after each frame.
// `params`: solver parameters (name, value) set before the first frame.
void run_scene(const std::string& file, int frames, float strain_bound = 0.5f,
               const std::vector<std::pair<std::string, std::string>>& params = {}) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/" + file)));
    ASSERT_EQ(w.solver_name(), "icloth");
    for (const auto& [name, value] : params) ASSERT_EQ(w.set_solver_param(name, value), "") << name;
    double impacts = 0;
    float worst_strain = 0;
    for (int f = 0; f < frames; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << file << " frame " << f;
      ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << file << " frame " << f;
      ASSERT_LT(w.stats().max_strain, strain_bound) << file << " frame " << f;
      impacts += w.stats().get("impacts");
      worst_strain = std::max(worst_strain, w.stats().max_strain);
    }
    ::testing::Test::RecordProperty("impacts", std::to_string(impacts));
    ::testing::Test::RecordProperty("max_strain", std::to_string(worst_strain));
  }
}

TEST(IClothScenes, SphereStaysPenetrationFree) { run_scene("icloth_sphere.json", 100); }
TEST(IClothScenes, TwistingStaysPenetrationFree) { run_scene("icloth_twisting.json", 100); }
// the sheets reach the funnel and each other at frames ~15-25, then rest stacked
// in it (the proximity springs and repulsion keep that contact cheap). Edges
// stretch by 0.15 (CPU, this file, 150 frames), by 0.15-0.24 when the first
// sheet starts 1 mm up to 2 mm to the side (0.23-0.40 before the resting
// contacts' friction moved into the solve), and once by 0.81 on the CUDA
// backend, with the repulsion filter alone, whose rounding took another
// trajectory (RESULTS.md). The bound of 1 catches a blow-up; the landing is
// tested below.
TEST(IClothScenes, FunnelStaysPenetrationFree) { run_scene("icloth_funnel.json", 100, 1.f); }
TEST(IClothScenes, ScarfStaysPenetrationFree) { run_scene("icloth_scarf.json", 100); }

// Coulomb's law on the friction of the stacked sheets' springs: after each
// step's last solve, the impulses of their drags beyond mu times the springs'
// normal impulses (ClothRepulsion::check_friction), summed over the funnel's
// first 100 frames, against the sum of those bounds. The drags are lagged from
// the round before, so the law holds only as far as the rounds converge: 1.5
// times the bound beyond it on the CPU, 6.9 times before the lag was damped
// (it alternated between held and sliding from round to round; RESULTS.md,
// eleventh session).
TEST(IClothScenes, StackedSheetsFrictionStaysNearCoulombsBound) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/icloth_funnel.json")));
    double bound = 0, beyond = 0;
    for (int f = 0; f < 100; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << "frame " << f;
      bound += w.stats().get("pair friction bound");
      beyond += w.stats().get("pair friction beyond coulomb");
    }
    std::printf("%s: pair friction beyond Coulomb %.3g N s, bound %.3g N s\n", backend_name(ctx.backend), beyond, bound);
    ASSERT_GT(bound, 0.0) << "the sheets should rest on each other";
    EXPECT_LT(beyond, 2.5 * bound);
  }
}

// The funnel's landing (frames ~13-19: corners reach the wall first, then the
// sheets slide down it) from 16 starts: the first sheet moved -1.5 ... +2 mm
// along x, the second 0 or 0.7 mm along z. Largest edge strain over the first 30
// frames, CPU: mean 0.20, at most 0.28 with further Newton iterations of steps
// that stretch an edge past 0.2 (solver.cpp; tenth session); mean 0.22, at most
// 0.38, with one linearisation and the resting contacts' friction in the solve
// (resting_contacts.h); mean 0.30, up to 0.40, when a corner stuck by its
// landing impulse was held for the whole next step and its kinetic friction cut
// its velocity after the solve (RESULTS.md, ninth session). The bound on each
// start catches a tear; the mean, the landing.
TEST(IClothScenes, FunnelLandsWithoutTearingFromSixteenStarts) {
  const SceneSpec base = load_scene(test::source_path("scenes/icloth_funnel.json"));
  ASSERT_GE(base.cloths.size(), 2u);
  const Context ctx = test::backends()[0];
  float sum = 0, worst = 0;
  int runs = 0;
  for (float dx : {-1.5f, -1.f, -0.5f, 0.f, 0.5f, 1.f, 1.5f, 2.f})
    for (float dz : {0.f, 0.7f}) {
      SceneSpec s = base;
      for (Vec3f& p : s.cloths[0].mesh.positions) p.x += 1e-3f * dx;
      for (Vec3f& p : s.cloths[1].mesh.positions) p.z += 1e-3f * dz;
      World w(ctx, std::move(s));
      float run_worst = 0;
      for (int f = 0; f < 30; ++f) {
        w.step();
        ASSERT_FALSE(w.stats().has_nan) << "dx " << dx << " dz " << dz << " frame " << f;
        ASSERT_EQ(w.stats().get("intersecting pairs", -1), 0) << "dx " << dx << " dz " << dz << " frame " << f;
        run_worst = std::max(run_worst, w.stats().max_strain);
      }
      EXPECT_LT(run_worst, 0.35f) << "dx " << dx << " mm, dz " << dz << " mm";
      sum += run_worst, worst = std::max(worst, run_worst), ++runs;
    }
  std::printf("funnel landing: largest strain mean %.3f, worst %.3f over %d starts\n", sum / float(runs), worst, runs);
  EXPECT_LT(sum / float(runs), 0.25f);
}

// The PCG preconditioned by the multigrid V-cycle (opt-in, multigrid.h) keeps the
// guarantee on the scenes with cloth-cloth springs and obstacles: the funnel's
// stack (springs in every step from frame ~20) and the sphere pushing two sheets
// (largest strain 0.48 and 0.15 on the CPU over 150 and 120 frames).
TEST(IClothScenes, FunnelAndSphereWithTheMultigridStayPenetrationFree) {
  run_scene("icloth_funnel.json", 100, 1.f, {{"multigrid", "true"}});
  run_scene("icloth_sphere.json", 100, 0.5f, {{"multigrid", "true"}});
}

// The PCG's product with two threads a row (product_lanes, to measure on a
// device) keeps the guarantee where the stack's springs fill the rows.
TEST(IClothScenes, FunnelWithTwoThreadsARowStaysPenetrationFree) {
  run_scene("icloth_funnel.json", 100, 1.f, {{"product_lanes", "2"}});
}

// The fine-mesh settings (opt-in: the stiffness product on differences and the
// PCG's coarse start) keep the guarantee on the funnel's stack and the sphere
// pushing two sheets (largest strain 0.13 and 0.14 on the CPU over 150 and 120
// frames, quality_runs.sh).
TEST(IClothScenes, FunnelAndSphereWithTheFineMeshSettingsStayPenetrationFree) {
  const std::vector<std::pair<std::string, std::string>> fine{{"stiffness_on_differences", "true"},
                                                              {"cg_coarse_start", "true"}};
  run_scene("icloth_funnel.json", 100, 0.5f, fine);
  run_scene("icloth_sphere.json", 100, 0.5f, fine);
}

// The skirt (skirt4K, 7,496 triangles) on the kicking mannequin (25,472 moving
// triangles): it falls onto the hips, the kick starts at 0.5 s (frame 50) and the
// leg lifts the skirt by frame ~80. No NaN, no intersecting pair, and edge strain
// below 0.3 after every frame: 0.20 at most on the CPU (0.07-0.17 on most frames).
// It was 1.1 while the obstacle contact was a filter after the solve, then 0.38
// for the one frame where the kick starts, while the PCG's tolerance was relative
// to the right-hand side, which holds the skirt's momentum (RESULTS.md).
TEST(IClothScenes, DressOnTheKickingMannequinStaysPenetrationFree) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  run_scene("shared/icloth_dress.json", 100, 0.3f);
}

// The same bound on trajectories a little off the shipped one (the PCG's
// tolerance 0.8 and 2 times the default). Until the seventh session a
// compressed fold gave a vertex a spring against the neighbour of its own
// squashed triangle, and single frames reached 0.46-0.67 on such trajectories
// (up to 0.40 before the re-solves were capped); now 0.25 and 0.24 (RESULTS.md).
TEST(IClothScenes, DressStaysBelowTheBoundOffTheShippedTrajectory) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  for (const char* tol : {"8e-4", "2e-3"}) run_scene("shared/icloth_dress.json", 120, 0.3f, {{"cg_tolerance", tol}});
}

}  // namespace
}  // namespace cb

namespace cb {
namespace {

// An n x n grid of 0.2 m dropped as a bare OBJ (scene_from_obj: 0.5 m above the
// ground) under I-Cloth, with its material's thickness set to `thickness` (m;
// 0: the dropped thickness). Its material's rest limit is off, as in a scene
// file, so that these tests see the thickness alone decide it.
SceneSpec dropped_grid(const char* name, int n, float thickness) {
  SceneSpec s = scene_from_obj(test::write_grid_obj(name, n, 0.2f));
  if (thickness > 0.f) s.cloths[0].material.thickness = thickness;
  s.cloths[0].material.rest_limit = false;
  s.solver = "icloth";
  return s;
}

// the largest edge strain over the next `frames` frames
float largest_strain(World& w, int frames) {
  float worst = 0.f;
  for (int f = 0; f < frames; ++f) {
    w.step();
    worst = std::max(worst, w.stats().max_strain);
  }
  return worst;
}

// A fine grid (3.4 mm edges) dropped as a bare OBJ falls freely for 20 frames
// (0.33 s: it falls 0.55 m, the ground is 0.5 m below): with the default 4 mm
// thickness each vertex's ring was within the contact distance and the
// repulsion stretched it by 11 %; at the dropped thickness (a quarter of the
// short edges) it falls unstretched.
TEST(IClothScenes, AFineObjDroppedAsClothFallsUnstretched) {
  World w(Context{}, dropped_grid("fine_drop", 60, 0.f));
  EXPECT_LT(largest_strain(w, 20), 0.01f);
  EXPECT_EQ(w.stats().get("intersecting pairs"), 0.0);
}

// A body mesh dropped as cloth (../shared's wm2_15k.obj) intersects itself at
// rest: 496 triangle pairs at the fingers and the hair. I-Cloth untangles the
// crossed start before its first step (contour_untangle.h), and its promise
// holds from then on: no frame ends crossed. Left crossed (untangle_iterations
// 0), the repulsion pushed the crossed parts apart along their normals: strain
// 2.43 by the fourth frame, ~490 pairs crossed every frame (RESULTS.md,
// thirtieth session).
TEST(IClothScenes, ABodyMeshCrossedAtRestIsUntangledBeforeTheFirstStep) {
  const std::string path = test::shared_path("data/meshes/codim-ipc/wm2_15k.obj");
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/meshes/codim-ipc";
  SceneSpec s = scene_from_obj(path);  // as the app drops a bare OBJ
  s.solver = "icloth";
  World w(Context{}, s);
  ASSERT_FALSE(w.warnings().empty()) << "the load warns of the crossing";
  float worst = 0.f;
  for (int f = 0; f < 4; ++f) {
    w.step();
    ASSERT_FALSE(w.stats().has_nan);
    if (f == 0) {
      EXPECT_GT(w.stats().get("untangle pairs before"), 400.0) << "crossed at rest";
      EXPECT_EQ(w.stats().get("untangle pairs after", -1), 0.0) << "cleared";
    }
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0.0) << "frame " << f;
    worst = std::max(worst, w.stats().max_strain);
  }
  EXPECT_LT(worst, 0.2f) << "untangled, not torn";
}

// A mannequin dropped as cloth (../shared's GarmentCode mean_all.obj, 23,752
// vertices) has parts closer than its dropped thickness (0.28 mm) at rest,
// where the arms and legs lie against the body: ~5,000 proximity pairs in free
// fall. The repulsion pushed them apart and stretched the mesh, strain 1.3 by
// the second frame and up to 2.2 in 20 frames with no contact at all. A dropped
// OBJ keeps its rest gaps (Material::rest_limit): those pairs repel only below
// 0.9 x their rest distance (RESULTS.md, forty-first session).
TEST(IClothScenes, ADroppedMannequinKeepsItsRestGapsAndFallsUnstretched) {
  const std::string path = test::shared_path("data/meshes/garmentcode/mean_all.obj");
  if (path.empty()) GTEST_SKIP() << "needs ../shared/data/meshes/garmentcode";
  float worst[2] = {0.f, 0.f};
  for (const bool keep : {false, true}) {
    SceneSpec s = scene_from_obj(path);  // as the app drops a bare OBJ
    ASSERT_TRUE(s.cloths.at(0).material.rest_limit);
    s.cloths[0].material.rest_limit = keep;
    s.solver = "icloth";
    World w(Context{}, s);
    worst[keep] = largest_strain(w, 3);
    EXPECT_EQ(w.stats().get("rest-limited pieces", 0.0), keep ? 1.0 : 0.0);
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0.0);
  }
  std::printf("mannequin dropped as cloth, 3 frames: strain %.3f pushed apart, %.3f keeping its rest gaps\n",
              double(worst[0]), double(worst[1]));
  EXPECT_GT(worst[0], 0.5f) << "the test needs the repulsion to stretch it";
  EXPECT_LT(worst[1], 0.1f);
}

// A sheet that starts through a mesh pedestal (a closed box, its top 5 cm
// above the sheet) crosses the box's four walls along a loop around it, which
// the contour descent cannot shorten (a loop around a prism). The untangle
// first pushes the sheet's part inside the box out through its top
// (obstacle_pushout.h); then nothing crosses, from the first frame on, and
// the sheet drapes over the pedestal. Left crossed (untangle_iterations 0) it
// stays skewered.
TEST(IClothScenes, ASheetThroughAPedestalAtTheStartIsPushedOutOfIt) {
  SceneSpec s = test::grid_scene(30, 30, 0.6f, 0.6f, 0.45f);
  for (Vec3f& p : s.cloths[0].mesh.positions) p += Vec3f{-0.3f + 0.004f, 0.f, 0.3f + 0.003f};  // centred, off the walls
  s.cloths[0].material.thickness = 0.002f;
  ObstacleSpec box;
  box.name = "pedestal";
  box.kind = ObstacleKind::Mesh;
  box.mesh = test::box_mesh(Vec3f{-0.15f, 0.f, -0.15f}, Vec3f{0.15f, 0.5f, 0.15f});
  s.obstacles.push_back(box);
  s.solver = "icloth";
  for (const bool untangle : {true, false}) {
    World w(Context{}, s);
    if (!untangle) ASSERT_EQ(w.set_solver_param("untangle_iterations", "0"), "");
    double crossed = 0;
    for (int f = 0; f < 10; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan);
      crossed = w.stats().get("intersecting pairs", -1);
      if (untangle && f == 0) {
        EXPECT_GT(w.stats().get("untangle pairs before"), 0.0) << "through the walls";
        EXPECT_GT(w.stats().get("untangle pushed out"), 0.0);
        EXPECT_EQ(w.stats().get("untangle pairs after", -1), 0.0);
      }
      if (untangle) EXPECT_EQ(crossed, 0.0) << "frame " << f;
    }
    if (!untangle) {
      EXPECT_GT(crossed, 0.0) << "left crossed, it stays skewered";
      continue;
    }
    float centre = -1.f;  // the height of the sheet over the pedestal's middle
    for (const Vec3f& p : w.positions())
      if (std::fabs(p.x) < 0.05f && std::fabs(p.z) < 0.05f) centre = std::max(centre, p.y);
    EXPECT_GT(centre, 0.5f) << "on the pedestal";
    EXPECT_LT(w.stats().max_strain, 0.3f);
  }
}

// kick_skirt.json's skirt placed at scale `scale` instead of its fitted 0.711
// (about the scene's translate, the OBJ's origin), under I-Cloth.
SceneSpec shrunk_kick_skirt(float scale, Vec3f origin = Vec3f{0.f, 0.904f, -0.015f}) {
  SceneSpec s = load_scene(test::source_path("scenes/shared/kick_skirt.json"));
  s.solver = "icloth";
  s.solver_params.clear();
  const Vec3f fitted{0.f, 0.904f, -0.015f};
  for (Vec3f& p : s.cloths[0].mesh.positions) p = origin + (p - fitted) * (scale / 0.711f);
  return s;
}

// The skirt at scale 0.55 starts with its waist inside the mannequin's hips
// all around: 227 crossed pairs on one loop, which the contour descent alone
// cannot shorten (it left 213). The untangle pushes the cloth inside out to
// the body's surface (446 vertices), which clears it, and no frame crosses;
// the skirt, stretched over the hips, is at strain 0.34 after the first frame
// and 0.25 after the third. Left crossed (untangle_iterations 0) it hangs
// skewered at strain 3.2 (RESULTS.md, thirtieth session).
TEST(IClothScenes, ASkirtStartedInsideTheHipsIsPushedOutOfThem) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  World w(Context{}, shrunk_kick_skirt(0.55f));
  float worst = 0.f;
  for (int f = 0; f < 3; ++f) {
    w.step();
    ASSERT_FALSE(w.stats().has_nan);
    worst = std::max(worst, w.stats().max_strain);
    if (f == 0) {
      EXPECT_GT(w.stats().get("untangle pairs before"), 100.0) << "inside the hips";
      EXPECT_GT(w.stats().get("untangle pushed out"), 100.0);
      EXPECT_EQ(w.stats().get("untangle pairs after", -1), 0.0);
    }
    EXPECT_EQ(w.stats().get("intersecting pairs", -1), 0.0) << "frame " << f;
    std::printf("frame %d: before %.0f pushed %.0f rim %.0f after %.0f iterations %.0f strain %.3f\n", f,
                w.stats().get("untangle pairs before"), w.stats().get("untangle pushed out"),
                w.stats().get("untangle rim carried"), w.stats().get("untangle pairs after"),
                w.stats().get("untangle iterations"), w.stats().max_strain);
  }
  EXPECT_LT(worst, 0.6f);
  EXPECT_LT(w.stats().max_strain, 0.35f) << "the stretch relaxes";
}

// An untangle that clears the crossing but tears the cloth is dropped: the
// skirt at the scene's first placement (scale 0.42, 8 cm higher: its waist up
// to 6 cm inside the ribs) comes out of the push-out and the descent clean,
// with an edge stretched 110-fold (a waistband vertex pushed out through the
// body's far side). The frame then starts from the state as loaded: the same
// positions, bit for bit, as with the untangle off.
TEST(IClothScenes, AnUntangleThatTearsTheClothIsDropped) {
  CB_REQUIRE_SHARED("data/meshes/codim-ipc/kick");
  const SceneSpec s = shrunk_kick_skirt(0.42f, Vec3f{0.f, 0.98f, 0.f});
  World on(Context{}, s), off(Context{}, s);
  ASSERT_EQ(off.set_solver_param("untangle_iterations", "0"), "");
  on.step();
  off.step();
  EXPECT_EQ(on.stats().get("untangle pairs after", -1), 0.0) << "clean, but";
  EXPECT_GT(on.stats().get("untangle strain growth"), 3.0) << "torn";
  EXPECT_GT(on.stats().get("intersecting pairs"), 0.0) << "dropped: still crossed";
  EXPECT_EQ(on.positions(), off.positions());
}

// A scene's cloth whose thickness is above its edges (8 mm on 5.1 mm edges, as
// kick_skirt.json's skirt is: 4 mm on 2.6 mm) under I-Cloth: each vertex's own
// ring lies within the proximity distance at rest, and the repulsion used to
// push it off its neighbours every step (kick_skirt: strain 2.11 in 30 frames).
// Such a piece takes the rest limit whatever repulsion_rest_limit says: the
// sheet falls 0.5 m onto the ground and lies there unstretched, and the stat
// says so.
TEST(IClothScenes, AClothThickerThanItsEdgesFallsUnstretched) {
  World w(Context{}, dropped_grid("thick_drop", 40, 0.008f));
  EXPECT_LT(largest_strain(w, 30), 0.05f);
  EXPECT_EQ(w.stats().get("rest-limited pieces"), 1.0);
  EXPECT_EQ(w.stats().get("intersecting pairs"), 0.0);
}

// The limit follows the proximity distance D = repulsion_scale x thickness, not
// the thickness alone: a 2 mm cloth on 5.1 mm edges keeps the full D at the
// default scale (D = 2.5 mm, under 0.625 of the edges: 3.2 mm) and takes the
// limit at scale 10 (D = 2 cm; verlet_fold under I-Cloth at that scale reached
// strain 1.55 without it), and keeps the full D again when the scale goes back.
TEST(IClothScenes, TheRestLimitFollowsTheProximityDistance) {
  World w(Context{}, dropped_grid("reach_drop", 40, 0.002f));
  w.step();
  EXPECT_EQ(w.stats().get("rest-limited pieces", 0.0), 0.0);
  ASSERT_EQ(w.set_solver_param("repulsion_scale", "10"), "");
  w.step();
  EXPECT_EQ(w.stats().get("rest-limited pieces", 0.0), 1.0);
  ASSERT_EQ(w.set_solver_param("repulsion_scale", "1.25"), "");
  w.step();
  EXPECT_EQ(w.stats().get("rest-limited pieces", 0.0), 0.0);
}

}  // namespace
}  // namespace cb
