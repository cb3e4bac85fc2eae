// I-Cloth taking over a sheet whirled in the window under Verlet. The
// hand-overs are recorded states (tests/data/states/hanging_sheet_whirl*.txt,
// from the CPU backend's trajectories; their replays are beside them).
// - 178 crossed triangle pairs in a crumple too deep for the untangle's first
//   descent (it leaves 48-80 pairs, and the sheet went on crossed for good):
//   the eager second untangle (IClothParams::untangle_eager_smoothings) clears it.
// - 101 pairs, the sheet rolled around the line between its pins, crossing
//   itself from edge to edge: no untangle clears it. Its steps must still move:
//   one impact left after the rigid zones clamped the whole cloth to no motion
//   (IClothParams::hold_impacts; the state 218 frames on, roll289).
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

// Crossed pairs after each of `frames` I-Cloth frames, with one solver parameter set.
std::vector<double> run_icloth(World& w, const std::string& param, const std::string& value, int frames) {
  std::vector<double> out;
  EXPECT_EQ(w.set_solver("icloth"), "");
  EXPECT_EQ(w.set_solver_param(param, value), "");
  for (int f = 0; f < frames; ++f) {
    w.step();
    EXPECT_FALSE(w.stats().has_nan) << "I-Cloth frame " << f;
    out.push_back(w.stats().get("intersecting pairs"));
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
              w.stats().max_strain);
  const auto first_clean = std::find(pairs.begin(), pairs.end(), 0.0);
  ASSERT_NE(first_clean, pairs.end()) << joined(pairs);
  EXPECT_LE(first_clean - pairs.begin(), 2) << "cleared by I-Cloth's third frame: " << joined(pairs);
  for (auto p = first_clean; p != pairs.end(); ++p)
    EXPECT_EQ(*p, 0) << "I-Cloth frame " << (p - pairs.begin()) << ": once clean, the promise holds";
  EXPECT_LT(w.stats().max_strain, 1.0) << "the untangle must not tear the sheet";
}

// The rolled sheet 218 frames on (the shipped scene, friction on): at every
// sub-step the rigid zones left one impact, between features that do not move
// (a query at t = 0 for a pair touching at the start), and the clamp to half
// that time of impact held the whole cloth where it started, frame after frame.
// Holding the impacts' vertices instead (their CCD checked again; an impact
// whose four vertices are all held cannot change) lets the rest move, and the
// tangle does not grow.
TEST(IClothWhirlHandover, ATangledStepHoldsItsImpactsNotTheWholeCloth) {
  const int frames = 3, substeps = 4;  // the scene's sub-steps
  for (const bool hold : {false, true}) {
    World w(Context{}, load_scene(test::source_path("scenes/hanging_sheet.json")));
    hand_over_whirl(w, "roll289");
    if (HasFatalFailure()) return;
    const std::vector<Vec3f> start = w.positions();
    EXPECT_EQ(w.set_solver("icloth"), "");
    EXPECT_EQ(w.set_solver_param("hold_impacts", hold ? "true" : "false"), "");
    // no untangle, for time: on this roll it leaves pairs, so its result is dropped
    EXPECT_EQ(w.set_solver_param("untangle_iterations", "0"), "");
    std::vector<double> energy, clamped, held, pairs;
    for (int f = 0; f < frames; ++f) {
      w.step();
      ASSERT_FALSE(w.stats().has_nan) << "I-Cloth frame " << f;
      energy.push_back(w.stats().get("kinetic energy"));
      clamped.push_back(w.stats().get("clamped steps"));
      held.push_back(w.stats().get("held steps"));
      pairs.push_back(w.stats().get("intersecting pairs"));
    }
    double moved = 0;  // m, the largest move of a vertex over the frames
    const std::vector<Vec3f> end = w.positions();
    for (size_t v = 0; v < end.size(); ++v) moved = std::max(moved, double(length(end[v] - start[v])));
    std::printf("hold_impacts %d: kinetic energy %s; clamped %s; held %s; crossed pairs %s; largest move %.2e m\n", hold,
                joined(energy).c_str(), joined(clamped).c_str(), joined(held).c_str(), joined(pairs).c_str(), moved);
    for (int f = 0; f < frames; ++f) {
      if (!hold) {
        EXPECT_EQ(clamped[size_t(f)], substeps) << "clamp alone, frame " << f << ": every sub-step clamped";
        continue;
      }
      EXPECT_EQ(clamped[size_t(f)], 0) << "holding, frame " << f;
      EXPECT_GT(held[size_t(f)], 0) << "holding, frame " << f;
      EXPECT_LE(pairs[size_t(f)], 1.1 * pairs[0]) << "the tangle must not grow: " << joined(pairs);
    }
    if (hold)
      EXPECT_GT(moved, 1e-3) << "the cloth moves";
    else
      EXPECT_LT(moved, 1e-5) << "clamp alone: the cloth frozen";
  }
}

}  // namespace cb
