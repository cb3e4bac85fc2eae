// Penetration handling of I-Cloth (collision_handler.h): full against incremental
// CCD on recorded states, and a step that drives one sheet through another ends
// without impacts and without intersecting triangles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <set>

#include "sim/collision/penetration.h"
#include "sim/model/grid.h"
#include "sim/model/topology.h"
#include "sim/solvers/icloth/collision_handler.h"
#include "sim/solvers/icloth/collision_kernels.h"
#include "support/test_support.h"

namespace cb::icloth {
namespace {

// cloth vertices and triangles with their per-vertex data
struct Sheets {
  std::vector<Vec3f> x0;
  std::vector<Int3> tris;
  std::vector<float> mass, w, thick;
};

// unit masses of 1e-4 kg (inverse 1e4) and a 2 mm thickness for every vertex
void uniform_vertices(Sheets& s) {
  s.mass.assign(s.x0.size(), 1e-4f);
  s.w.assign(s.x0.size(), 1e4f);
  s.thick.assign(s.x0.size(), 0.002f);
}

// two horizontal 0.2 m sheets (n x n), the upper one 1 cm above the lower one
Sheets two_sheets(int n) {
  GridSpec g;
  g.nx = g.ny = n;
  g.width = g.height = 0.2f;
  TriMesh m = make_grid(g);
  Sheets s;
  for (int layer = 0; layer < 2; ++layer) {
    const int off = int(s.x0.size());
    for (const Vec3f& p : m.positions) s.x0.push_back(Vec3f{p.x + 0.013f * layer, 0.01f * layer, p.y + 0.007f * layer});
    for (const Int3& t : m.tris) s.tris.push_back({t.a + off, t.b + off, t.c + off});
  }
  uniform_vertices(s);
  return s;
}

// the upper sheet pushed 1 cm down onto the lower one, bumpy: it ends half through
std::vector<Vec3f> pushed_through(const Sheets& s) {
  std::vector<Vec3f> x1 = s.x0;
  const size_t half = x1.size() / 2;
  for (size_t i = half; i < x1.size(); ++i) x1[i].y -= 0.01f + 0.006f * std::sin(0.7f * float(i));
  return x1;
}

CollisionInput input(const Sheets& s, const std::vector<Vec3f>& x_free) {
  CollisionInput in;
  in.x0 = &s.x0;
  in.x_free = &x_free;
  in.mass = &s.mass;
  in.inv_mass = &s.w;
  in.thickness = &s.thick;
  return in;
}

std::set<std::array<int, 4>> keys(const std::vector<Impact>& imps) {
  std::set<std::array<int, 4>> k;
  for (const Impact& im : imps) k.insert({im.v[0], im.v[1], im.v[2], im.v[3]});
  return k;
}

// One resolve() of the step x0 -> in.x_free of the cloth s by a handler h set up
// for it; x1: the end positions.
CollisionStats resolve_step(const Context& ctx, CollisionHandler& h, const Sheets& s, const CollisionInput& in,
                            const CollisionSettings& cs, std::vector<Vec3f>& x1) {
  h.set_cloth(s.x0.size(), s.tris, build_topology(s.x0.size(), s.tris));
  x1 = *in.x_free;
  return h.resolve(ctx, in, cs, x1);
}

// true when the CCD finds no impact left over the step x0 -> x1
bool no_impact_left(const Context& ctx, CollisionHandler& h, const CollisionInput& in, const CollisionSettings& cs,
                    const std::vector<Vec3f>& x1) {
  CollisionStats st;
  return h.detect(ctx, in, cs, x1, nullptr, &st).empty();
}

// A cloth grid (cn x cn vertices, cw m wide, 4 mm above the obstacle and moving
// 6 mm down through its level) and an obstacle grid (on x n vertices, ow m wide,
// at y = 0): candidate_pairs must list exactly the overlapping cloth-cloth and
// cloth-obstacle box pairs that share no vertex, as brute force does.
void expect_candidates_match_brute_force(int cn, float cw, int on, float ow) {
  GridSpec small, large;
  small.nx = small.ny = cn;
  small.width = small.height = cw;
  large.nx = large.ny = on;
  large.width = large.height = ow;
  const TriMesh cm = make_grid(small), om = make_grid(large);
  std::vector<Vec3f> x0, x1;
  std::vector<Int3> tris;
  for (const Vec3f& p : cm.positions) x0.push_back(Vec3f{p.x + 0.2f, 0.004f, p.y - 0.1f});  // cloth just above
  for (const Vec3f& p : om.positions) x0.push_back(Vec3f{p.x, 0.f, p.y});                 // a floor
  const int nv_cloth = int(cm.positions.size());
  for (const Int3& t : cm.tris) tris.push_back(t);
  for (const Int3& t : om.tris) tris.push_back({t.a + nv_cloth, t.b + nv_cloth, t.c + nv_cloth});
  x1 = x0;
  for (int v = 0; v < nv_cloth; ++v) x1[size_t(v)].y -= 0.006f;  // the cloth moves down through the floor's level
  const int nc = int(cm.tris.size()), nt = int(tris.size());
  const float margin = 0.001f;
  for (const Context& ctx : test::backends()) {
    DeviceBuffer<Vec3f> dx0(ctx, x0), dx1(ctx, x1);
    DeviceBuffer<Int3> dt(ctx, tris);
    DeviceBuffer<Aabb> boxes(ctx, size_t(nt));
    const SweptSoup soup{dx0.data(), dx1.data(), dt.data(), nt, nc};
    swept_boxes(ctx, soup, margin, boxes.data());
    for (bool self : {true, false}) {
      DeviceBuffer<Int2> pairs;
      const size_t np = candidate_pairs(ctx, soup, boxes.data(), nullptr, self, pairs);
      std::set<std::pair<int, int>> got;
      for (const Int2& p : pairs.to_host()) got.insert({p.a, p.b});
      EXPECT_EQ(got.size(), np);
      const std::vector<Aabb> hb = boxes.to_host();
      std::set<std::pair<int, int>> want;
      size_t with_obstacle = 0;
      for (int i = 0; i < nc; ++i)
        for (int j = i + 1; j < nt; ++j) {
          if (j < nc && !self) continue;
          bool shared = false;
          for (int p = 0; p < 3; ++p)
            for (int q = 0; q < 3; ++q) shared = shared || tris[size_t(i)][p] == tris[size_t(j)][q];
          if (!shared && overlaps(hb[size_t(i)], hb[size_t(j)])) {
            want.insert({i, j});
            with_obstacle += j >= nc ? 1 : 0;
          }
        }
      EXPECT_GT(with_obstacle, 20u);
      EXPECT_EQ(got, want) << backend_name(ctx.backend) << ", self-collision " << self;
    }
  }
}

// The broad phase leaves out of its hash the obstacle triangles whose boxes miss
// the box around the cloth (when the obstacle has more triangles than the
// cloth): a small cloth over a wide, fine floor.
TEST(IClothCollisions, CandidatePairsAreTheOverlappingBoxPairsWithALargeObstacle) {
  expect_candidates_match_brute_force(6, 0.1f, 30, 1.f);
}

// Few obstacle triangles, each much larger than the cloth's (the funnel's): they
// enter the hash only in cells that a cloth triangle occupies (box_pairs.h,
// find_box_pairs_with_first), and a floor 4 m wide under a 0.5 m cloth occupies
// thousands of cells no cloth triangle is in.
TEST(IClothCollisions, CandidatePairsAreTheOverlappingBoxPairsWithFewLargeObstacleTriangles) {
  expect_candidates_match_brute_force(30, 0.5f, 3, 4.f);
}

// The solver's path: the first CCD pass on the backend's arrays
// (CollisionHandler::first_pass), its impacts handed to resolve(). The result
// and the counts are those of resolve() alone, bit for bit; a motion with no
// impact is found clean there and needs no resolve().
TEST(IClothCollisions, FirstPassOnTheBackendHandsResolveTheSameFirstRound) {
  Sheets s = two_sheets(9);
  const std::vector<Vec3f> pushed = pushed_through(s);
  std::vector<Vec3f> moved = s.x0;  // a small motion that meets nothing
  for (Vec3f& p : moved) p.x += 1e-4f;
  const std::vector<Vec3f>& still = moved;
  for (const Context& ctx : test::backends())
    for (const std::vector<Vec3f>* motion : {&pushed, &still}) {
      const CollisionInput in = input(s, *motion);
      const CollisionSettings cs;
      CollisionHandler alone, split;
      const Topology topo = build_topology(s.x0.size(), s.tris);
      alone.set_cloth(s.x0.size(), s.tris, topo);
      split.set_cloth(s.x0.size(), s.tris, topo);
      std::vector<Vec3f> x1a = *motion, x1b = *motion;
      const CollisionStats sa = alone.resolve(ctx, in, cs, x1a);
      DeviceBuffer<Vec3f> d0(ctx, s.x0), d1(ctx, *motion);
      DeviceBuffer<float> dw(ctx, s.w);
      const CollisionHandler::FirstPass first = split.first_pass(ctx, {d0.data(), d1.data(), dw.data()}, in, cs);
      ASSERT_TRUE(first.ran);
      EXPECT_EQ(first.stats.rounds, 1u);
      if (motion == &still) {
        EXPECT_TRUE(first.hits.empty());
        EXPECT_EQ(sa.impacts, 0u);
        EXPECT_EQ(first.stats.pairs_full, sa.pairs_full);
        continue;
      }
      ASSERT_GT(first.hits.size(), 10u);
      const CollisionStats sb = split.resolve(ctx, in, cs, x1b, &first);
      EXPECT_EQ(sa.rounds, sb.rounds);
      EXPECT_EQ(sa.impacts, sb.impacts);
      EXPECT_EQ(sa.pairs_full, sb.pairs_full);
      EXPECT_EQ(sa.pairs_incremental, sb.pairs_incremental);
      EXPECT_EQ(sa.feature_tests, sb.feature_tests);
      EXPECT_EQ(sa.zone_iterations, sb.zone_iterations);
      size_t differ = 0;
      for (size_t v = 0; v < x1a.size(); ++v) differ += x1a[v] == x1b[v] ? 0 : 1;
      EXPECT_EQ(differ, 0u) << backend_name(ctx.backend);
      // resolve() takes the handed-over round as it is (no CCD of its own there):
      // told that the first round found nothing, it leaves x1 as it was
      CollisionHandler::FirstPass told_clean = first;
      told_clean.hits.clear();
      std::vector<Vec3f> x1c = *motion;
      const CollisionStats sc = split.resolve(ctx, in, cs, x1c, &told_clean);
      EXPECT_EQ(sc.rounds, 1u);
      EXPECT_EQ(x1c, *motion);
    }
}

TEST(IClothCollisions, IncrementalCcdFindsTheSameImpactsAsFullCcd) {
  Sheets s = two_sheets(9);
  std::vector<Vec3f> x1 = pushed_through(s);
  CollisionInput in = input(s, x1);
  for (const Context& ctx : test::backends()) {
    CollisionHandler h;
    h.set_cloth(s.x0.size(), s.tris, build_topology(s.x0.size(), s.tris));
    CollisionSettings cs;
    CollisionStats st;
    std::vector<Impact> first = h.detect(ctx, in, cs, x1, nullptr, &st);
    ASSERT_GT(first.size(), 10u);
    // a recorded "resolution": every other vertex of the impacts goes back to its start
    std::vector<Vec3f> x2 = x1;
    std::vector<uint8_t> moved(s.x0.size(), 0), td(s.tris.size(), 0);
    for (const Impact& im : first)
      for (int k = 0; k < 4; ++k)
        if (im.v[k] % 2 == 0) moved[size_t(im.v[k])] = 1;
    for (size_t v = 0; v < x2.size(); ++v)
      if (moved[v]) x2[v] = s.x0[v];
    for (size_t t = 0; t < s.tris.size(); ++t)
      for (int k = 0; k < 3; ++k) td[t] |= moved[size_t(s.tris[t][k])];
    // the impacts that remain involve a moved vertex, or were there before
    std::vector<Impact> full = h.detect(ctx, in, cs, x2, nullptr, &st);
    std::vector<Impact> incr = h.detect(ctx, in, cs, x2, &td, &st);
    std::set<std::array<int, 4>> kf = keys(full), ki = keys(incr), k0 = keys(first);
    for (const auto& k : kf)
      if (!ki.count(k)) {
        bool touches_moved = moved[size_t(k[0])] || moved[size_t(k[1])] || moved[size_t(k[2])] || moved[size_t(k[3])];
        EXPECT_FALSE(touches_moved) << "an impact of a moved feature was missed by the incremental pass";
        EXPECT_TRUE(k0.count(k)) << "an impact of unmoved features must be an old one";
      }
    for (const auto& k : ki) EXPECT_TRUE(kf.count(k)) << "incremental impacts are a subset of the full ones";
    EXPECT_LT(st.pairs_incremental, st.pairs_full) << "incremental CCD tests fewer pairs";
  }
}

TEST(IClothCollisions, ResolvedStepHasNoImpactsAndNoIntersections) {
  Sheets s = two_sheets(9);
  const std::vector<Vec3f> x_free = pushed_through(s);
  CollisionInput in = input(s, x_free);
  for (const Context& ctx : test::backends()) {
    // the unconstrained end state intersects
    DeviceBuffer<Vec3f> dx(ctx, x_free);
    DeviceBuffer<Int3> dt(ctx, s.tris);
    TriSet cloth{dx.data(), dt.data(), int(s.tris.size()), nullptr}, none{};
    ASSERT_GT(count_intersections(ctx, cloth, none).total(), 0u);
    CollisionHandler h;
    CollisionSettings cs;
    std::vector<Vec3f> x1;
    CollisionStats st = resolve_step(ctx, h, s, in, cs, x1);
    EXPECT_GT(st.impacts, 0u);
    EXPECT_GT(st.zones, 0u);
    EXPECT_TRUE(no_impact_left(ctx, h, in, cs, x1)) << "no impact is left over the step";
    dx.upload(ctx, x1);
    EXPECT_EQ(count_intersections(ctx, cloth, none).total(), 0u);
    // the upper sheet lies above the lower one
    const size_t half = x1.size() / 2;
    float low_top = 1e9f, high_bottom = -1e9f;
    for (size_t i = 0; i < half; ++i) high_bottom = std::max(high_bottom, x1[i].y);
    for (size_t i = half; i < x1.size(); ++i) low_top = std::min(low_top, x1[i].y);
    EXPECT_GT(low_top, -0.03f);
    (void)high_bottom;
  }
}

// a horizontal square sheet of n x n vertices, `width` m wide, at height y (m)
Sheets horizontal_sheet(int n, float width, float y) {
  GridSpec g;
  g.nx = g.ny = n;
  g.width = g.height = width;
  const TriMesh m = make_grid(g);
  Sheets s;
  for (const Vec3f& p : m.positions) s.x0.push_back(Vec3f{p.x, y, p.y});
  s.tris = m.tris;
  uniform_vertices(s);
  return s;
}

// a horizontal 0.1 m sheet of 5 x 5 vertices, 1 cm above the origin
Sheets small_sheet() { return horizontal_sheet(5, 0.1f, 0.01f); }

// A moving obstacle sweeps up into a cloth that would stay still: a square of two
// triangles rises from y = 0 to 3 cm under a 5 x 5 sheet resting 1 cm above it.
// With the zone solver off (max_rounds 0) the rigid zones must resolve it: a zone
// that holds obstacle vertices moves with them (staying at the start positions,
// as for a still obstacle, would let the obstacle pass through the sheet).
TEST(IClothCollisions, RigidZonesMoveWithAMovingObstacle) {
  const Sheets s = small_sheet();
  const std::vector<Vec3f> ox0{{-0.15f, 0, -0.15f}, {0.15f, 0, -0.15f}, {0.15f, 0, 0.15f}, {-0.15f, 0, 0.15f}};
  std::vector<Vec3f> ox1 = ox0;
  for (Vec3f& p : ox1) p.y = 0.03f;
  const std::vector<Int3> otris{{0, 1, 2}, {0, 2, 3}};
  const std::vector<Vec3f> x_free = s.x0;  // the cloth alone would not move
  CollisionInput in = input(s, x_free);
  in.obs_x0 = &ox0;
  in.obs_x1 = &ox1;
  in.obs_tris = &otris;
  for (const Context& ctx : test::backends()) {
    CollisionHandler h;
    CollisionSettings cs;
    cs.max_rounds = 0;
    std::vector<Vec3f> x1;
    CollisionStats st = resolve_step(ctx, h, s, in, cs, x1);
    EXPECT_GT(st.rigid_rounds, 0);
    EXPECT_EQ(st.reverted, 0);
    EXPECT_EQ(st.unresolved, 0);
    EXPECT_TRUE(no_impact_left(ctx, h, in, cs, x1)) << "no impact is left over the step";
    for (const Vec3f& p : x1) EXPECT_GT(p.y, 0.03f) << "the sheet stays above the risen square";
  }
}

// The caps leave impacts (no zone or rigid rounds here) in a step where a tilted
// square rises 3 cm and cuts through the sheet's start positions along a line:
// going back to x0 would leave the sheet crossing it there. The free end state
// lies above the square but for one corner, which the square sweeps past: that
// impact is left, and the end state crosses the square only at the corner's
// triangles. The clamp's result, near x0, crosses along the line. The step
// keeps the free end state (last_resort), not x0. With `untangle` a shallow
// crossing left there is then pushed apart (push_left_crossings): with the
// corner 1.5 mm under the risen square the step ends with none. The corner
// left 2.75 cm under it (deeper than 3 thicknesses) is no poke and stays.
TEST(IClothCollisions, LastResortKeepsTheResultThatCrossesTheFewestPairs) {
  const Sheets s = small_sheet();
  auto square = [](float y0) {  // y = y0 + 0.2 x, 0.3 m wide
    std::vector<Vec3f> q{{-0.15f, 0, -0.15f}, {0.15f, 0, -0.15f}, {0.15f, 0, 0.15f}, {-0.15f, 0, 0.15f}};
    for (Vec3f& p : q) p.y = y0 + 0.2f * p.x;
    return q;
  };
  // below the sheet, then through x0 along x = 1.25 cm (between grid lines)
  const std::vector<Vec3f> ox0 = square(-0.0225f), ox1 = square(0.0075f);
  const std::vector<Int3> otris{{0, 1, 2}, {0, 2, 3}};
  for (bool shallow : {false, true}) {
    std::vector<Vec3f> x_free = s.x0;
    size_t corner = 0;  // the vertex of largest x + z: left behind
    for (size_t i = 0; i < x_free.size(); ++i) {
      if (x_free[i].x + x_free[i].z > x_free[corner].x + x_free[corner].z) corner = i;
      x_free[i].y = 0.0075f + 0.2f * x_free[i].x + 0.004f;  // two thicknesses above the risen square
    }
    x_free[corner] = s.x0[corner];  // where it was
    if (shallow) x_free[corner].y = 0.0075f + 0.2f * x_free[corner].x - 0.0015f;
    CollisionInput in = input(s, x_free);
    in.obs_x0 = &ox0;
    in.obs_x1 = &ox1;
    in.obs_tris = &otris;
    for (const Context& ctx : test::backends()) {
      DeviceBuffer<Vec3f> dx(ctx, s.x0), dox(ctx, ox1);
      DeviceBuffer<Int3> dt(ctx, s.tris), dot(ctx, otris);
      TriSet cloth{dx.data(), dt.data(), int(s.tris.size()), nullptr}, obst{dox.data(), dot.data(), 2, nullptr};
      const uint64_t at_x0 = count_intersections(ctx, cloth, obst).total();
      dx.upload(ctx, x_free);
      const uint64_t at_free = count_intersections(ctx, cloth, obst).total();
      ASSERT_GT(at_free, 0u) << "the test needs the corner to cross";
      ASSERT_GT(at_x0, at_free) << "the test needs x0 to cross more";
      for (bool untangle : {false, true}) {
        CollisionHandler h;
        CollisionSettings cs;
        cs.max_rounds = 0;
        cs.max_rigid_rounds = 0;
        cs.untangle = untangle;
        std::vector<Vec3f> x1;
        CollisionStats st = resolve_step(ctx, h, s, in, cs, x1);
        EXPECT_EQ(st.clamped, 1u);
        EXPECT_EQ(st.reverted, 0u) << "x0 crosses the risen square";
        EXPECT_EQ(st.unresolved, 1u);
        const bool pushed = untangle && shallow;
        EXPECT_EQ(st.tangle_pushes, pushed ? 1u : 0u) << "shallow " << shallow << ", untangle " << untangle;
        dx.upload(ctx, x1);
        const uint64_t left = count_intersections(ctx, cloth, obst).total();
        EXPECT_EQ(left, pushed ? 0u : at_free) << "shallow " << shallow << ", untangle " << untangle << ": "
                                               << at_free << " pairs at the free end state, " << at_x0 << " at x0";
      }
    }
  }
}

// A tangled start's step whose zones and rigid rounds leave impacts
// (hold_impacts_at_start): the 5 x 5 sheet falls 1 mm, pierced near one corner
// by a still vertical blade (the tangle), onto a still triangle 0.5 mm below
// its other corner and sloping away (the CCD's separation is 0.2 mm). Holding
// the cloth vertices of the impacts at x0 leaves the step CCD-clean and lets
// the rest of the sheet fall its full millimetre (9 of the 25 vertices held);
// without the hold the clamp takes the whole sheet back to half the first time
// of impact (0.225 mm of the fall). The filter of impacts between held
// features is tested on a recorded roll (whirl_handover_test.cpp).
TEST(IClothCollisions, ATangledStepHoldsOnlyTheVerticesOfItsImpacts) {
  const Sheets s = small_sheet();  // y = 1 cm, x and z in [-5, 5] cm, 2.5 cm cells
  std::vector<Vec3f> x_free = s.x0;
  for (Vec3f& p : x_free) p.y -= 0.001f;
  const std::vector<Vec3f> obstacle{
      // the blade in the plane z = -3.4 cm, through one triangle's interior (2.5 mm from its edges)
      {-0.0445f, -0.01f, -0.034f}, {-0.0435f, -0.01f, -0.034f}, {-0.044f, 0.03f, -0.034f},
      // a floor under the corner x, z > 0, 0.5 mm below the sheet at x = 1.5 cm and
      // sloping down 2 cm per metre along x: the fallen sheet would cross it at x = 4 cm
      {0.015f, 0.0095f, 0.015f}, {0.09f, 0.008f, 0.015f}, {0.015f, 0.0095f, 0.09f}};
  const std::vector<Int3> otris{{0, 1, 2}, {3, 4, 5}};
  CollisionInput in = input(s, x_free);
  in.obs_x0 = in.obs_x1 = &obstacle;
  in.obs_tris = &otris;
  size_t far = 0;  // the corner at x = -5, z = +5 cm: far from both
  for (size_t i = 0; i < s.x0.size(); ++i)
    if (s.x0[i].z - s.x0[i].x > s.x0[far].z - s.x0[far].x) far = i;
  for (const Context& ctx : test::backends()) {
    for (const bool hold : {false, true}) {
      CollisionHandler h;
      h.set_cloth(s.x0.size(), s.tris, build_topology(s.x0.size(), s.tris));
      const std::vector<Int2> tangles = h.find_tangles(ctx, in);
      ASSERT_FALSE(tangles.empty()) << "the blade should cross the sheet at the start";
      h.set_tangles(tangles);
      CollisionSettings cs;
      cs.max_rounds = 0;
      cs.max_rigid_rounds = 0;
      cs.untangle = false;
      cs.hold_impacts = hold;
      std::vector<Vec3f> x1 = x_free;
      const CollisionStats st = h.resolve(ctx, in, cs, x1);
      EXPECT_TRUE(no_impact_left(ctx, h, in, cs, x1)) << "hold " << hold;
      size_t still = 0;
      for (size_t i = 0; i < x1.size(); ++i) still += x1[i] == s.x0[i] ? 1 : 0;
      const float fall = s.x0[far].y - x1[far].y;
      std::printf("hold %d: held steps %llu, held vertices %llu, clamped %llu; %zu of %zu vertices at x0, the far "
                  "corner fell %.3f mm\n",
                  int(hold), (unsigned long long)st.held_steps, (unsigned long long)st.held_vertices,
                  (unsigned long long)st.clamped, still, x1.size(), double(fall) * 1e3);
      if (hold) {
        EXPECT_EQ(st.held_steps, 1u);
        EXPECT_EQ(st.clamped, 0u);
        EXPECT_GT(still, 0u) << "the vertices over the floor stay where they were";
        EXPECT_LT(still, x1.size() / 2) << "the rest of the sheet falls";
        EXPECT_EQ(x1[far], x_free[far]) << "the far corner falls its full millimetre";
      } else {
        EXPECT_EQ(st.held_steps, 0u);
        EXPECT_EQ(st.clamped, 1u);
        EXPECT_LT(fall, 0.5e-3f) << "the clamp stops the whole sheet short";
      }
    }
  }
}

// A zone is trusted only as far as the step reaches. A triangle hangs from two
// pinned vertices; its free vertex, 10 cm out, drops 5 mm and sweeps both its
// edges past the top edge of a still blade 8 mm from the pins, where the free
// vertex weighs 0.08 in the edge-edge impacts. Holding the edges a thickness
// (2 mm) above the blade there throws the free vertex up (19 mm above its start
// without the bound, five times the step's motion). The zone counts as not
// converged (zone_overreach) and the rigid fallback holds the vertex with the
// still blade: the step ends where it began.
TEST(IClothCollisions, ZoneThatWouldThrowAVertexBeyondTheStepFallsBack) {
  Sheets s;
  s.x0 = {{0, 0, 0}, {0.02f, 0, 0}, {0, 0, 0.1f}};
  s.tris = {{0, 1, 2}};
  uniform_vertices(s);
  s.w[0] = s.w[1] = 0.f;  // pinned
  std::vector<Vec3f> x_free = s.x0;
  x_free[2].y -= 0.005f;
  // a vertical blade in the plane z = 8 mm, its top edge 0.3 mm below the cloth
  const std::vector<Vec3f> blade{{-0.05f, -0.0003f, 0.008f}, {0.05f, -0.0003f, 0.008f}, {0, -0.1f, 0.008f}};
  const std::vector<Int3> btris{{0, 1, 2}};
  CollisionInput in = input(s, x_free);
  in.obs_x0 = in.obs_x1 = &blade;
  in.obs_tris = &btris;
  for (const Context& ctx : test::backends()) {
    CollisionHandler h;
    CollisionSettings cs;
    std::vector<Vec3f> x1;
    CollisionStats st = resolve_step(ctx, h, s, in, cs, x1);
    EXPECT_GT(st.obstacle_impacts, 0u);
    EXPECT_EQ(st.zone_overreach, 1u);
    EXPECT_EQ(st.fallbacks, 1u);
    EXPECT_TRUE(no_impact_left(ctx, h, in, cs, x1)) << "no impact is left over the step";
    EXPECT_LT(length(x1[2] - s.x0[2]), 1e-6f) << "held with the still blade, not thrown";
  }
}

// A heavy triangle dropped 1.8 cm through a free, resting sheet with 5 mm
// edges: the zone rounds resolve it with cs, and no impact is left. Returns the
// sheet's worst edge strain over its free length.
float heavy_triangle_through_a_sheet(const Context& ctx, const CollisionSettings& cs, CollisionStats* st_out) {
  Sheets s = horizontal_sheet(21, 0.1f, 0.f);
  const std::vector<Int3> sheet_tris = s.tris;
  const int nsheet = int(s.x0.size());
  s.x0.push_back({-0.0031f, 0.003f, -0.0017f});
  s.x0.push_back({0.0029f, 0.003f, -0.0021f});
  s.x0.push_back({0.0003f, 0.003f, 0.0035f});
  s.tris.push_back({nsheet, nsheet + 2, nsheet + 1});
  uniform_vertices(s);
  for (int k = 0; k < 3; ++k) {
    s.mass[size_t(nsheet + k)] = 1e-2f;
    s.w[size_t(nsheet + k)] = 1e2f;
  }
  std::vector<Vec3f> x_free = s.x0;
  for (int k = 0; k < 3; ++k) x_free[size_t(nsheet + k)].y -= 0.018f;
  const CollisionInput in = input(s, x_free);
  CollisionHandler h;
  std::vector<Vec3f> x1;
  const CollisionStats st = resolve_step(ctx, h, s, in, cs, x1);
  EXPECT_GT(st.impacts, 0u);
  EXPECT_EQ(st.fallbacks, 0u);
  EXPECT_TRUE(no_impact_left(ctx, h, in, cs, x1)) << "no impact is left over the step";
  *st_out = st;
  float worst = 0.f;
  for (const Int3& t : sheet_tris)
    for (int k = 0; k < 3; ++k) {
      const size_t a = size_t(t[k]), b = size_t(t[(k + 1) % 3]);
      worst = std::max(worst, length(x1[a] - x1[b]) / length(x_free[a] - x_free[b]) - 1.f);
    }
  return worst;
}

// A zone moves its own vertices only (zone_followers.h). The heavy triangle (100
// times a sheet vertex's mass) is stopped by the zone pushing the sheet vertices
// under it down nearly as far, and without followers (or the membrane) their
// edges to the vertices outside the zone end the step 2.09 times as long as at
// the free end state. With the rim following (limit 0.3) no sheet edge ends
// more than 1.3 times as long (1.300), and no impact is left over the step.
TEST(IClothCollisions, TheRimOfAZoneFollowsItInsteadOfStretching) {
  for (const Context& ctx : test::backends()) {
    float strain[2];
    for (int on = 0; on < 2; ++on) {
      CollisionSettings cs;
      cs.follow_strain = on ? 0.3f : 0.f;
      cs.zone.membrane = 0.f;
      CollisionStats st;
      strain[on] = heavy_triangle_through_a_sheet(ctx, cs, &st);
      EXPECT_EQ(st.followers > 0, on == 1);
    }
    std::printf("zone rim: strain %.3f without followers, %.3f with\n", strain[0], strain[1]);
    EXPECT_GT(strain[0], 1.f) << "the test needs the zone to stretch the sheet";
    EXPECT_LT(strain[1], 0.35f);
  }
}

// the same drop with the zones' membrane (zone_solver.h) and no followers: the
// zone moves the sheet around the triangle's path with it instead of its
// colliding vertices alone
TEST(IClothCollisions, TheZonesMembraneKeepsTheSheetFromStretching) {
  for (const Context& ctx : test::backends()) {
    float strain[2];
    for (int on = 0; on < 2; ++on) {
      CollisionSettings cs;
      cs.follow_strain = 0.f;
      cs.zone.membrane = on ? 100.f : 0.f;
      CollisionStats st;
      strain[on] = heavy_triangle_through_a_sheet(ctx, cs, &st);
      EXPECT_EQ(st.zone_failures, 0u);
    }
    std::printf("zone membrane: strain %.3f without, %.3f with\n", strain[0], strain[1]);
    EXPECT_GT(strain[0], 1.f) << "the test needs the zone to stretch the sheet";
    EXPECT_LT(strain[1], 0.35f);
  }
}

}  // namespace
}  // namespace cb::icloth
