// I-Cloth taking over a state it did not make: a sheet swung hard by a mouse
// drag under the Verlet solver (large strain, triangles that may already
// intersect), and hand-built starts with crossed triangles. The solver must keep
// the cloth moving (no freeze at the start positions), stay finite, bound its
// collision work per step, and untangle instead of pinning the tangle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "sim/collision/penetration.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "sim/solvers/icloth/collision_defaults.h"
#include "sim/solvers/icloth/collision_handler.h"
#include "sim/solvers/icloth/params.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

// the free vertex farthest from every pinned vertex, and one triangle on it
int far_free_corner(const World& w, int* tri) {
  const auto x = w.positions();
  const auto pins = w.pinned_vertices();
  int best = -1;
  float best_d = -1;
  for (size_t v = 0; v < x.size(); ++v) {
    if (w.is_pinned(uint32_t(v))) continue;
    float d = 1e30f;
    for (uint32_t p : pins) d = std::min(d, length(x[v] - x[p]));
    if (d > best_d) best_d = d, best = int(v);
  }
  for (size_t t = 0; t < w.model().num_tris(); ++t)
    for (int k = 0; k < 3; ++k)
      if (w.model().tris[t][k] == best) *tri = int(t);
  return best;
}

Vec3f bary_of(const World& w, int tri, int v) {
  const Int3 T = w.model().tris[size_t(tri)];
  return Vec3f{T.a == v ? 1.f : 0.f, T.b == v ? 1.f : 0.f, T.c == v ? 1.f : 0.f};
}

float max_move(const std::vector<Vec3f>& a, const std::vector<Vec3f>& b, const World& w) {
  float m = 0;
  for (size_t v = 0; v < a.size(); ++v)
    if (!w.is_pinned(uint32_t(v))) m = std::max(m, length(a[v] - b[v]));
  return m;
}

// The drag path's size (m) of the swings the tests were first measured on.
constexpr float kRecordedReach = 0.6f;

// hanging_sheet.json under verlet: grab the free corner farthest from the pins
// and drag it up across the sheet and back, ~5 m/s, for `frames` frames along a
// path `reach` m in size: the Verlet state ends with large strain and a few
// intersecting triangle pairs. `grab_holds` false: the grab projected after
// Verlet's strain passes, as when the first of these hand-overs were recorded
// (strain ~9 at the grab); true: Verlet's default grab, which the cloth
// follows (strain ~1-2, since the thirty-eighth session). `strain_reach`:
// Verlet's parameter, its default when empty.
void swing_with_verlet(World& w, int frames, bool release, float reach = kRecordedReach, bool grab_holds = false,
                       const std::string& strain_reach = "", bool hoops = true) {
  ASSERT_EQ(w.set_solver("verlet"), "");
  ASSERT_EQ(w.set_solver_param("grab_holds", grab_holds ? "true" : "false"), "");
  if (!strain_reach.empty()) ASSERT_EQ(w.set_solver_param("strain_reach", strain_reach), "");
  ASSERT_EQ(w.set_solver_param("hoops", hoops ? "true" : "false"), "");
  for (int f = 0; f < 20; ++f) w.step();  // the sheet falls and swings from its pins
  int tri = -1;
  const int v = far_free_corner(w, &tri);
  ASSERT_GE(tri, 0);
  const Vec3f p0 = w.positions()[size_t(v)];
  w.grab_begin(tri, bary_of(w, tri, v), p0);
  for (int f = 0; f < frames; ++f) {
    const float a = 2.f * 3.14159265f * float(f) / 40.f;
    // up and across the sheet and back: folds the sheet onto itself
    w.grab_move(p0 + reach * Vec3f{0.8f * std::sin(a), 0.7f * (1.f - std::cos(a)), 0.5f * std::sin(2.f * a)});
    w.step();
    ASSERT_FALSE(w.stats().has_nan) << "verlet frame " << f;
  }
  if (release) {
    w.grab_end();
    for (int f = 0; f < 5; ++f) w.step();  // let go: the sheet flaps on under verlet
  }
}

struct SwitchRun {
  double max_move_first3 = 0;  ///< m, largest per-frame displacement of a free vertex, frames 0-2
  double min_move_last3 = 1e30; ///< m, the smallest of those displacements over the last 3 frames
  double max_rounds = 0, max_rigid = 0, fallbacks = 0, unresolved = 0;
  double start_pairs = 0;      ///< intersecting pairs in the state icloth was handed
  double end_pairs = 0;        ///< after the last frame
};

SwitchRun switch_to_icloth(World& w, int frames) {
  SwitchRun r;
  r.start_pairs = w.stats().get("intersecting pairs");
  EXPECT_EQ(w.set_solver("icloth"), "");
  // The tangled-start handling itself, without the takeover ease (the default
  // caps the release's kinetic energy, sim/model/takeover_ease.h): these swings
  // hand over strain near 9, and the ease releases it over more frames than
  // the 6 measured here (RESULTS.md, twenty-fifth session). The ease's own
  // promise: IClothTakeover.ATangledStateIsEasedNotThrown.
  EXPECT_EQ(w.set_solver_param("ease_frames", "0"), "");
  auto prev = w.positions();
  for (int f = 0; f < frames; ++f) {
    w.step();
    const FrameStats& st = w.stats();
    EXPECT_FALSE(st.has_nan) << "icloth frame " << f;
    auto x = w.positions();
    const float m = max_move(prev, x, w);
    if (f < 3) r.max_move_first3 = std::max(r.max_move_first3, double(m));
    if (f >= frames - 3) r.min_move_last3 = std::min(r.min_move_last3, double(m));
    prev = x;
    r.max_rounds = std::max(r.max_rounds, st.get("ccd rounds"));
    r.max_rigid = std::max(r.max_rigid, st.get("rigid rounds"));
    r.fallbacks += st.get("fallbacks");
    r.unresolved += st.get("unresolved steps");
    r.end_pairs = st.get("intersecting pairs");
    // the promise holds for every frame that starts clean
    if (st.get("tangled pairs") == 0) EXPECT_EQ(st.get("intersecting pairs"), 0) << "icloth frame " << f;
    // bounded work: CCD passes per frame within the caps (4 sub-steps of at
    // most collision_rounds + rigid_rounds passes, of which 5 rigid rounds from
    // a tangled start); a frame that begins with the takeover settle may spend
    // one frame's worth more, and the pass that crosses it (IClothSolver::settle
    // stops its passes there)
    const double step_work = icloth::kCollisionRounds + icloth::kRigidRounds, frame_work = 4 * step_work;
    const double settle_work = st.get("settle passes") > 0 ? frame_work + step_work : 0;
    EXPECT_LE(st.get("ccd rounds") + st.get("rigid rounds"), frame_work + settle_work) << "icloth frame " << f;
    std::printf("icloth frame %d: move %.4f m, pairs %.0f (start %.0f), rounds %.0f, rigid %.0f, fallbacks %.0f, "
                "stalls %.0f, clamped %.0f, unresolved %.0f, reverted %.0f, excluded %.0f, cg %.0f, strain %.3f, %.3f J, %.1f ms\n",
                f, m, st.get("intersecting pairs"), st.get("tangled pairs"), st.get("ccd rounds"),
                st.get("rigid rounds"), st.get("fallbacks"), st.get("zone stalls"), st.get("clamped steps"), st.get("unresolved steps"), st.get("reverted steps"),
                st.get("excluded features"), st.get("cg iterations"), st.max_strain, st.get("kinetic energy"), st.step_ms);
  }
  return r;
}

TEST(IClothTangledStart, VerletSwingThenSwitchKeepsMoving) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/hanging_sheet.json")));
    swing_with_verlet(w, 40, true);
    if (HasFatalFailure()) return;
    EXPECT_GT(w.stats().get("intersecting pairs"), 0) << "the scenario should hand over a tangled state";
    std::printf("verlet hand-over: strain %.3f, intersecting pairs %.0f\n", w.stats().max_strain,
                w.stats().get("intersecting pairs"));
    SwitchRun r = switch_to_icloth(w, 6);
    EXPECT_GT(r.max_move_first3, 1e-3) << "the cloth froze after the switch";
    // that the tangle shrinks and the strain relaxes: TangledSweep
  }
}

// Swings of `lengths` frames along paths of each size in `reaches` (m), the grab
// released or held through the switch, then 6 I-Cloth frames on each backend of
// `ctxs`: the tangle may not grow (intersecting triangle pairs at the end <= at
// the hand-over), the cloth may not freeze (a free vertex moves more than 1 mm
// in each of the last 3 frames: the sheet hangs from a held grab or flaps after
// a release, it is never at rest within 6 frames) and the strain handed over
// (about 9 at the grab without grab_holds, 1-2 with it) must come down below `max_strain`.
void sweep_swings(float max_strain, std::initializer_list<int> lengths, std::initializer_list<float> reaches,
                  const std::vector<Context>& ctxs, bool grab_holds) {
  for (const Context& ctx : ctxs)
    for (float reach : reaches)
      for (bool release : {true, false})
        for (int frames : lengths) {
          World w(ctx, load_scene(test::source_path("scenes/hanging_sheet.json")));
          // without grab_holds: Verlet as these hand-overs were recorded, the
          // strain limit on springs alone too (strain_reach 0; see TangledSweep)
          swing_with_verlet(w, frames, release, reach, grab_holds, grab_holds ? "" : "0");
          if (::testing::Test::HasFatalFailure()) return;
          SwitchRun r = switch_to_icloth(w, 6);
          std::ostringstream what;
          what << backend_name(ctx.backend) << ", swing of " << frames << " frames reaching " << reach << " m, grab "
               << (release ? "released" : "held") << ": ";
          EXPECT_LE(r.end_pairs, r.start_pairs)
              << what.str() << "the tangle grew, " << r.start_pairs << " -> " << r.end_pairs;
          EXPECT_GT(r.min_move_last3, 1e-3) << what.str() << "the cloth froze";
          EXPECT_LT(w.stats().max_strain, max_strain) << what.str() << "the strain is still " << w.stats().max_strain;
        }
}

// The sweep over the drag's path size (0.58-0.62 m, the recorded 0.6 in the
// middle): 90 swings. The hand-over is chaotic: before the takeover untangle,
// the swings the tangled-start handling was developed on (0.6 m) passed while
// 23 of the 90 failed (twenty-eighth session: tangles grown up to 48 -> 74
// pairs, strain up to 6.8, one held swing frozen), and on CUDA two recorded
// swings failed. With the untangle (contour_untangle.h), retried at each frame
// until one starts clean, 83 of the 90 start I-Cloth clean, 5 more within 4
// frames, and none fails (twenty-ninth session); with the untangle's
// smoothing of a crumple (thirty-ninth session) all 90 start clean. On the CPU backend alone,
// whose trajectories do not depend on the thread count (repulsion.h, cg.h), so
// that it fails when a change alters what these swings do; the CUDA backend's
// hand-overs are the single swings' tests around it (ASwingHandedOver...).
// One test per path size, 70-90 s each on 2 cores. These swings are Verlet's
// as they were recorded: the grab projected after the strain passes and the
// strain limit on springs alone. With Verlet's long strain constraints
// (forty-second session) in the first half of the passes, these violent swings
// hand over other tangles, and 4 of the 5 path sizes had a swing whose tangle
// grew by 2-11 pairs, or whose strain stayed at 2.4-2.7, or that froze
// (RESULTS.md); the default grab's family below passes with them.
class TangledSweep : public ::testing::TestWithParam<float> {};

TEST_P(TangledSweep, TangleRelaxesBelowStrain2AfterAnySwing) {
  sweep_swings(2.f, {36, 38, 39, 40, 41, 42, 44, 45, 46}, {GetParam()}, {Context{}}, false);
}

INSTANTIATE_TEST_SUITE_P(PathSizes, TangledSweep, ::testing::Values(0.58f, 0.59f, kRecordedReach, 0.61f, 0.62f));

// The same sweep on the swings of Verlet's default grab (grab_holds), which
// hand over other crossed states: strain ~1-2, and crumples at the mesh's
// scale along the sheet's free side that the contour descent alone flattens
// instead of opening (ACrumpleTheDescent... below). Before the untangle's
// smoothing, 5 of these 90 swings failed (thirty-eighth session); 40-50 s each
// on 2 cores.
class TangledSweepDefaultGrab : public ::testing::TestWithParam<float> {};

TEST_P(TangledSweepDefaultGrab, TangleRelaxesBelowStrain2AfterAnySwing) {
  sweep_swings(2.f, {36, 38, 39, 40, 41, 42, 44, 45, 46}, {GetParam()}, {Context{}}, true);
}

INSTANTIATE_TEST_SUITE_P(PathSizes, TangledSweepDefaultGrab,
                         ::testing::Values(0.58f, 0.59f, kRecordedReach, 0.61f, 0.62f));

// A swing of Verlet's default grab (46 frames along the 0.59 m path,
// released) hands over 7 crossed pairs where the sheet's free side has rolled
// over itself within three cells. The contour descent alone flattens the
// rolled cells into slivers (a contour of length zero, 2 pairs left), so the
// untangle's result was dropped and the sheet went on crossed. Started again
// from its best state smoothed around the crossed triangles
// (`untangle_smoothings`, contour_untangle.h), it clears them before the
// first step, and no frame after it ends crossed. CPU backend: the hand-over
// is the CPU's trajectory, with Verlet's strain limit on springs only as when
// it was recorded (its long constraints, forty-second session, and the sheet's
// edge as a hoop, forty-third, each hand over a crumple the descent clears alone).
TEST(IClothTangledStart, ACrumpleTheDescentCannotShortenIsSmoothedOpen) {
  for (const int smoothings : {0, icloth::IClothParams{}.untangle_smoothings}) {
    World w(Context{}, load_scene(test::source_path("scenes/hanging_sheet.json")));
    swing_with_verlet(w, 46, true, 0.59f, true, "0", false);
    if (HasFatalFailure()) return;
    const double handed = w.stats().get("intersecting pairs");
    ASSERT_GT(handed, 0) << "the swing should hand over a crossed sheet";
    ASSERT_EQ(w.set_solver("icloth"), "");
    ASSERT_EQ(w.set_solver_param("untangle_smoothings", std::to_string(smoothings)), "");
    if (smoothings == 0) ASSERT_EQ(w.set_solver_param("untangle_eager_smoothings", "0"), "");  // nor smooths later
    w.step();
    const FrameStats& st = w.stats();
    ASSERT_FALSE(st.has_nan);
    EXPECT_EQ(st.get("untangle pairs before"), handed);
    std::printf("smoothings %d: untangle %.0f -> %.0f pairs (%.0f smoothings), strain growth %.2f\n", smoothings,
                handed, st.get("untangle pairs after"), st.get("untangle smoothings"),
                st.get("untangle strain growth"));
    if (smoothings == 0) {
      EXPECT_GT(st.get("untangle pairs after"), 0) << "the descent alone should not clear this crumple";
      continue;
    }
    EXPECT_EQ(st.get("untangle pairs after"), 0);
    EXPECT_GT(st.get("untangle smoothings"), 0);
    EXPECT_EQ(st.get("intersecting pairs"), 0) << "I-Cloth frame 0";
    for (int f = 1; f < 6; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan);
      EXPECT_EQ(w.stats().get("intersecting pairs"), 0) << "I-Cloth frame " << f;
    }
  }
}

// A swing handed over crossed (40 frames, the grab held: 9 crossed pairs) is
// untangled before I-Cloth's first step (contour_untangle.h), and from then on
// the promise holds: no frame ends crossed.
TEST(IClothTangledStart, ASwingHandedOverCrossedIsCleanFromTheFirstFrame) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/hanging_sheet.json")));
    swing_with_verlet(w, 40, false);
    if (HasFatalFailure()) return;
    const double handed = w.stats().get("intersecting pairs");
    ASSERT_GT(handed, 0) << "the swing should hand over a crossed sheet";
    ASSERT_EQ(w.set_solver("icloth"), "");
    for (int f = 0; f < 4; ++f) {
      w.step();
      const FrameStats& st = w.stats();
      ASSERT_FALSE(st.has_nan);
      if (f == 0) {
        EXPECT_EQ(st.get("untangle pairs before"), handed);
        EXPECT_EQ(st.get("untangle pairs after"), 0) << backend_name(ctx.backend);
      }
      EXPECT_EQ(st.get("intersecting pairs"), 0) << backend_name(ctx.backend) << ", I-Cloth frame " << f;
    }
  }
}

TEST(IClothTangledStart, VerletSwingWithGrabHeldThenSwitchKeepsMoving) {
  for (const Context& ctx : test::backends()) {
    World w(ctx, load_scene(test::source_path("scenes/hanging_sheet.json")));
    swing_with_verlet(w, 40, false);
    if (HasFatalFailure()) return;
    std::printf("verlet hand-over (grab held): strain %.3f, intersecting pairs %.0f\n", w.stats().max_strain,
                w.stats().get("intersecting pairs"));
    SwitchRun r = switch_to_icloth(w, 6);
    EXPECT_GT(r.max_move_first3, 1e-3) << "the cloth froze after the switch";
    // "the tangle does not grow" held on some trajectories only before the
    // takeover untangle (on the H100 the 40-frame swing once went 6 -> 8 pairs):
    // see the sweep above
  }
}

// two 0.2 m sheets (n x n): A flat at y = 0, B tilted so that it passes
// through A along the line x = 0 (a few crossed triangle pairs), plus a third
// sheet C 1 cm above A's far end, clear of both
struct Crossed {
  std::vector<Vec3f> x0;
  std::vector<Int3> tris;
  std::vector<float> mass, w, thick;
  size_t b_first = 0, c_first = 0;
};

Crossed crossed_sheets(int n) {
  GridSpec g;
  g.nx = g.ny = n;
  g.width = g.height = 0.2f;
  TriMesh m = make_grid(g);
  Crossed s;
  for (int sheet = 0; sheet < 3; ++sheet) {
    const int off = int(s.x0.size());
    (sheet == 1 ? s.b_first : s.c_first) = size_t(off);
    for (const Vec3f& p : m.positions) {
      if (sheet == 0) s.x0.push_back(Vec3f{p.x, 0.f, p.y});
      if (sheet == 1) s.x0.push_back(Vec3f{p.x + 0.013f, 0.2f * (p.x + 0.013f), p.y + 0.007f});
      if (sheet == 2) s.x0.push_back(Vec3f{p.x - 0.15f, 0.01f, p.y});
    }
    for (const Int3& t : m.tris) s.tris.push_back({t.a + off, t.b + off, t.c + off});
  }
  s.mass.assign(s.x0.size(), 1e-4f);
  s.w.assign(s.x0.size(), 1e4f);
  s.thick.assign(s.x0.size(), 0.002f);
  return s;
}

// the handler excludes the crossed pairs, lets B slide along its own plane
// through A, and still stops C from falling through A
TEST(IClothTangledStart, CrossedTrianglesMayMoveButCleanPairsStillCollide) {
  using namespace icloth;
  const Crossed s = crossed_sheets(8);
  std::vector<Vec3f> x_free = s.x0;
  for (size_t v = s.b_first; v < s.c_first; ++v) x_free[v] += Vec3f{0.01f, 0.002f, 0.f};  // B slides 1 cm
  for (size_t v = s.c_first; v < x_free.size(); ++v) x_free[v].y -= 0.02f;                // C falls through A
  CollisionInput in;
  in.x0 = &s.x0;
  in.x_free = &x_free;
  in.mass = &s.mass;
  in.inv_mass = &s.w;
  in.thickness = &s.thick;
  for (const Context& ctx : test::backends()) {
    CollisionHandler h;
    h.set_cloth(s.x0.size(), s.tris, build_topology(s.x0.size(), s.tris));
    std::vector<Int2> tangles = h.find_tangles(ctx, in);
    ASSERT_GT(tangles.size(), 0u);
    for (const Int2& p : tangles) {  // only A-B pairs cross
      EXPECT_LT(size_t(s.tris[size_t(p.a)].a), s.b_first);
      EXPECT_GE(size_t(s.tris[size_t(p.b)].a), s.b_first);
      EXPECT_LT(size_t(s.tris[size_t(p.b)].a), s.c_first);
    }
    h.set_tangles(tangles);
    EXPECT_EQ(h.num_tangles(), tangles.size());
    CollisionSettings cs;
    std::vector<Vec3f> x1 = x_free;
    CollisionStats st = h.resolve(ctx, in, cs, x1);
    EXPECT_GT(st.excluded, 0u);
    EXPECT_GT(st.impacts, 0u) << "C against A";
    EXPECT_EQ(st.reverted + st.unresolved, 0u);
    // B moved (nearly) freely: the crossing does not pin it
    float b_moved = 0;
    for (size_t v = s.b_first; v < s.c_first; ++v) b_moved = std::max(b_moved, length(x1[v] - s.x0[v]));
    EXPECT_GT(b_moved, 0.008f);
    // C stays above A
    for (size_t v = s.c_first; v < x1.size(); ++v)
      if (s.x0[v].x > 0.f && s.x0[v].x < 0.1f) EXPECT_GT(x1[v].y, 0.f) << "vertex " << v;
    // the step added no new intersecting pair
    DeviceBuffer<Vec3f> dx(ctx, x1);
    DeviceBuffer<Int3> dt(ctx, s.tris);
    TriSet cloth{dx.data(), dt.data(), int(s.tris.size()), nullptr}, none{};
    std::vector<Int2> after;
    count_intersections(ctx, cloth, none, &after);
    for (const Int2& p : after) {
      EXPECT_GE(size_t(s.tris[size_t(p.b)].a), s.b_first);
      EXPECT_LT(size_t(s.tris[size_t(p.b)].a), s.c_first) << "only A-B pairs may intersect";
    }
    // without the exclusion the same step cannot move B: the crossed pairs are impacts
    CollisionHandler strict;
    strict.set_cloth(s.x0.size(), s.tris, build_topology(s.x0.size(), s.tris));
    CollisionStats st2;
    EXPECT_GT(strict.detect(ctx, in, cs, x_free, nullptr, &st2).size(), 0u);
  }
}

// Two 0.2 m sheets 1 mm thick, 5 mm apart, without gravity; the lower one is
// pinned. After a frame that started clean, the upper sheet's middle vertex is
// moved 1.5 mm through the lower one (the dress's crossings: a vertex 1.1 mm
// through a layer of the skirt). With the pushes (untangle.h) the poke is gone
// within a frame; with them off (`untangle` 0) the vertex stays through. A
// scene that starts with the poke is a tangle the solver did not make: the
// untangle of a crossed start (contour_untangle.h) pulls it back before the
// first step, and after a reset again; with that off (`untangle_iterations`
// 0) it keeps the conservative handling, and the poke stays there.
TEST(IClothTangledStart, AVertexPokedThroughTheSheetBelowIsPushedBack) {
  const int n = 10;
  SceneSpec s = test::grid_scene(n, n, 0.2f, 0.2f, 0.f);
  for (uint32_t v = 0; v < uint32_t((n + 1) * (n + 1)); ++v) s.cloths[0].pinned.push_back(v);
  ClothSpec top = s.cloths[0];
  top.pinned.clear();
  for (Vec3f& p : top.mesh.positions) p = Vec3f{p.x + 0.006f, 0.005f, p.z + 0.004f};  // off the grid below
  s.cloths.push_back(top);
  for (ClothSpec& c : s.cloths) c.material.thickness = 0.001f;
  s.env.gravity = Vec3f{0, 0, 0};
  s.dt = 0.01f;
  s.substeps = 1;
  const size_t below = size_t((n / 2) * (n + 1) + n / 2);  // the middle vertex, in the upper sheet's numbering
  const size_t middle = size_t((n + 1) * (n + 1)) + below;
  SceneSpec poked_from_start = s;
  poked_from_start.cloths[1].mesh.positions[below].y = -0.0015f;
  for (const Context& ctx : test::backends()) {
    struct Case {
      const char* name;
      const SceneSpec* scene;
      bool untangle, untangle_start, poke_later, expect_untangled;
    };
    for (const Case& c :
         {Case{"pushes", &s, true, false, true, true}, Case{"no pushes", &s, false, false, true, false},
          Case{"poked from the start", &poked_from_start, true, false, false, false},
          Case{"poked from the start, untangled", &poked_from_start, true, true, false, true}}) {
      World w(ctx, *c.scene);
      ASSERT_EQ(w.set_solver("icloth"), "");
      ASSERT_EQ(w.set_solver_param("untangle", c.untangle ? "1" : "0"), "");
      if (!c.untangle_start) ASSERT_EQ(w.set_solver_param("untangle_iterations", "0"), "");
      if (c.poke_later) {
        w.step();  // the world's check vouches for the next frame's start
        w.step();
        ASSERT_EQ(w.stats().get("intersecting pairs"), 0) << "the sheets start clean";
        std::vector<Vec3f> x = w.positions();
        x[middle].y = -0.0015f;  // 1.5 mm through the lower sheet
        w.mutable_state().x.upload(ctx, x);
      }
      for (int run = 0; run < (c.untangle_start ? 2 : 1); ++run) {
        if (run == 1) w.reset();  // the scene's start again: untangled again
        double tangled = 0, pushes = 0;
        for (int f = 0; f < 10; ++f) {
          w.step();
          ASSERT_FALSE(w.stats().has_nan);
          if (f == 0)  // the untangle of the start, else the step, finds the crossed pairs
            tangled = w.stats().get(c.untangle_start ? "untangle pairs before" : "tangled pairs");
          pushes += w.stats().get("tangle pushes");
          if (c.untangle_start) EXPECT_EQ(w.stats().get("intersecting pairs"), 0) << c.name << ", frame " << f;
        }
        const double left = w.stats().get("intersecting pairs");
        std::printf("%s, %s: tangled pairs %.0f, pushes kept %.0f, intersecting after 10 frames %.0f\n",
                    backend_name(ctx.backend), c.name, tangled, pushes, left);
        EXPECT_GT(tangled, 0) << c.name << ", run " << run << ": the poke crosses the lower sheet";
        if (c.untangle_start) EXPECT_EQ(pushes, 0) << c.name << ", run " << run << ": cleared before the first step";
        if (c.expect_untangled) EXPECT_EQ(left, 0) << backend_name(ctx.backend) << ", " << c.name << ": the poke stayed";
        else EXPECT_GT(left, 0) << backend_name(ctx.backend) << ", " << c.name << ": the poke went without pushes";
      }
    }
  }
}

}  // namespace
}  // namespace cb
