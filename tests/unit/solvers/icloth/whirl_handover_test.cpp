// I-Cloth taking over a sheet whirled in the window under Verlet. The
// hand-overs are recorded states (tests/data/states/hanging_sheet_whirl*.txt,
// from the CPU backend's trajectories; their replays are beside them).
// - 178 crossed triangle pairs in a crumple too deep for the untangle's first
//   descent (it leaves 48-80 pairs, and the sheet went on crossed for good):
//   the eager second untangle (IClothParams::untangle_eager_smoothings) clears it.
// - 101 pairs, the sheet rolled around the line between its pins, crossing
//   itself from edge to edge: no untangle clears it. Its steps must still move:
//   one impact left after the rigid zones clamped the whole cloth to no motion
//   (IClothParams::hold_impacts).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/solvers/icloth/params.h"
#include "sim/world.h"
#include "support/test_support.h"

namespace cb {
namespace {

// Positions (m) then velocities (m/s) of every vertex, '#' lines skipped.
bool read_state(const std::string& path, size_t n, std::vector<Vec3f>& x, std::vector<Vec3f>& v) {
  std::ifstream in(path);
  std::vector<Vec3f> all;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    Vec3f p;
    if (!(s >> p.x >> p.y >> p.z)) return false;
    all.push_back(p);
  }
  if (all.size() != 2 * n) return false;
  x.assign(all.begin(), all.begin() + long(n));
  v.assign(all.begin() + long(n), all.end());
  return true;
}

// The hanging sheet at the recorded hand-over's time (71 Verlet frames, so the
// switch is a takeover at t > 0, as in the window) with the recorded state
// tests/data/states/hanging_sheet_<name>.txt.
void hand_over_whirl(World& w, const std::string& name) {
  ASSERT_EQ(w.set_solver("verlet"), "");
  for (int f = 0; f < 71; ++f) w.step();
  std::vector<Vec3f> x, v;
  const std::string path = test::source_path("tests/data/states/hanging_sheet_" + name + ".txt");
  ASSERT_TRUE(read_state(path, w.model().num_vertices(), x, v)) << path;
  w.mutable_state().x.upload(w.context(), x);
  w.mutable_state().v.upload(w.context(), v);
}

// Largest edge strain (|e| / rest - 1) of the current state.
double max_strain(const World& w) {
  const std::vector<Vec3f> x = w.positions();
  const ClothModel& m = w.model();
  double worst = 0;
  for (size_t e = 0; e < m.topo.edges.size(); ++e) {
    const Int2 E = m.topo.edges[e];
    worst = std::max(worst, double(length(x[size_t(E.a)] - x[size_t(E.b)]) / m.rest_edge_length[e]) - 1.0);
  }
  return worst;
}

// One stat after each of `frames` I-Cloth frames, with one solver parameter set.
std::vector<double> run_icloth(World& w, const std::string& param, const std::string& value, int frames,
                               const std::string& stat = "intersecting pairs") {
  std::vector<double> out;
  EXPECT_EQ(w.set_solver("icloth"), "");
  EXPECT_EQ(w.set_solver_param(param, value), "");
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan) << "I-Cloth frame " << f;
    out.push_back(w.stats().get(stat));
  }
  return out;
}

std::string joined(const std::vector<double>& v) {
  std::ostringstream s;
  for (double p : v) s << p << ' ';
  return s.str();
}

}  // namespace

TEST(IClothWhirlHandover, TheFirstUntangleAloneLeavesTheWhirlCrossed) {
  World w(Context{}, load_scene(test::source_path("scenes/hanging_sheet.json")));
  hand_over_whirl(w, "whirl178");
  if (HasFatalFailure()) return;
  const std::vector<double> pairs = run_icloth(w, "untangle_eager_smoothings", "0", 4);
  std::printf("without the eager untangle, crossed pairs per frame: %s\n", joined(pairs).c_str());
  for (double p : pairs) EXPECT_GT(p, 100) << joined(pairs);
}

TEST(IClothWhirlHandover, TheEagerUntangleClearsItAndNothingCrossesAfter) {
  World w(Context{}, load_scene(test::source_path("scenes/hanging_sheet.json")));
  hand_over_whirl(w, "whirl178");
  if (HasFatalFailure()) return;
  const int frames = 12;
  const std::vector<double> pairs =
      run_icloth(w, "untangle_eager_smoothings", std::to_string(icloth::IClothParams{}.untangle_eager_smoothings), frames);
  std::printf("with the eager untangle, crossed pairs per frame: %s; strain %.2f\n", joined(pairs).c_str(),
              max_strain(w));
  const auto first_clean = std::find(pairs.begin(), pairs.end(), 0.0);
  ASSERT_NE(first_clean, pairs.end()) << joined(pairs);
  EXPECT_LE(first_clean - pairs.begin(), 2) << "cleared by I-Cloth's third frame: " << joined(pairs);
  for (auto p = first_clean; p != pairs.end(); ++p)
    EXPECT_EQ(*p, 0) << "I-Cloth frame " << (p - pairs.begin()) << ": once clean, the promise holds";
  EXPECT_LT(max_strain(w), 1.0) << "the untangle must not tear the sheet";
}

// The rolled sheet without friction between its layers: from I-Cloth's tenth
// frame on, every sub-step's rigid zones left an impact, and the clamp to half
// the first time of impact (0) held the whole cloth where it started, frame
// after frame. Holding only the impacts' vertices (their CCD checked again)
// lets the rest move, and the tangle does not grow.
TEST(IClothWhirlHandover, ATangledStepHoldsItsImpactsNotTheWholeCloth) {
  SceneSpec spec = load_scene(test::source_path("scenes/hanging_sheet.json"));
  spec.cloths.at(0).material.friction = 0.f;
  const int frames = 12;
  std::vector<double> energy[2], clamped[2], pairs[2], held[2];
  for (const bool hold : {false, true}) {
    World w(Context{}, spec);
    hand_over_whirl(w, "whirl101");
    if (HasFatalFailure()) return;
    EXPECT_EQ(w.set_solver("icloth"), "");
    EXPECT_EQ(w.set_solver_param("hold_impacts", hold ? "true" : "false"), "");
    // no untangle, for time: each try leaves 33-46 pairs, so its result is
    // dropped and the trajectory is the same
    EXPECT_EQ(w.set_solver_param("untangle_iterations", "0"), "");
    for (int f = 0; f < frames; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << "I-Cloth frame " << f;
      energy[hold].push_back(w.stats().get("kinetic energy"));
      clamped[hold].push_back(w.stats().get("clamped steps"));
      pairs[hold].push_back(w.stats().get("intersecting pairs"));
      held[hold].push_back(w.stats().get("held steps"));
    }
    std::printf("hold_impacts %d: kinetic energy %s\n  clamped steps %s\n  held steps %s\n  crossed pairs %s\n", hold,
                joined(energy[hold]).c_str(), joined(clamped[hold]).c_str(), joined(held[hold]).c_str(),
                joined(pairs[hold]).c_str());
  }
  const int substeps = 4;  // the scene's
  for (int f = 10; f < frames; ++f) {
    EXPECT_EQ(clamped[0][size_t(f)], substeps) << "clamp alone, frame " << f << ": every sub-step clamped";
    EXPECT_LT(energy[0][size_t(f)], 1e-4) << "clamp alone, frame " << f << ": the cloth all but frozen";
    EXPECT_EQ(clamped[1][size_t(f)], 0) << "holding, frame " << f;
    EXPECT_GT(energy[1][size_t(f)], 1e-2) << "holding, frame " << f << ": the cloth moves";
  }
  double holds = 0;
  for (double h : held[1]) holds += h;
  EXPECT_GT(holds, 0) << "some tangled step was cleared by holding its impacts";
  for (double p : pairs[1]) EXPECT_LE(p, 1.1 * pairs[1][0]) << "the tangle must not grow: " << joined(pairs[1]);
}

}  // namespace cb
