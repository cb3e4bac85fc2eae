// The clearance that keeps a cloth's edges outside a curved mesh obstacle
// (edge_clearance.h): the chord's middle keeps the thickness exactly, the cap
// for sharp bends, and each vertex's longest rest edge.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/model/grid.h"
#include "sim/model/edge_clearance.h"

namespace cb {
namespace {

// m: how far the middle of a chord of length l between two points at distance c
// outside a ball of radius R lies outside it (negative: inside)
double chord_middle_gap(double R, double c, double l) { return std::sqrt((R + c) * (R + c) - l * l / 4.0) - R; }

TEST(EdgeClearance, AnEdgesMiddleKeepsTheThicknessFromABallOfThatCurvature) {
  for (float R : {0.03f, 0.06f, 0.15f})
    for (float l : {0.003f, 0.01f, 0.027f})
      for (float th : {0.0005f, 0.001f, 0.004f}) {
        const float c = edge_clearance(th, l, 1.f / R);
        EXPECT_GE(chord_middle_gap(R, c, l), double(th) * (1.0 - 1e-4)) << "R " << R << " l " << l << " th " << th;
        EXPECT_LE(chord_middle_gap(R, c, l), double(th) * 1.5 + 1e-6) << "not held needlessly far";
      }
  // held at the thickness alone the hem's 27 mm edge on a 6 cm thigh dips 1.5 mm
  // past its 1 mm thickness: into the body
  EXPECT_LT(chord_middle_gap(0.06, 0.001, 0.027), 0.0);
}

TEST(EdgeClearance, FlatIsTheThicknessAndSharperThanTheCapIsTheCap) {
  EXPECT_EQ(edge_clearance(0.001f, 0.02f, 0.f), 0.001f);
  const float cap = edge_clearance(0.001f, 0.02f, 1.f / kSharpestClearedRadius);
  EXPECT_EQ(edge_clearance(0.001f, 0.02f, 1e4f), cap);
  EXPECT_NEAR(cap, 0.001f + 0.02f * 0.02f / (8.f * kSharpestClearedRadius), 1e-7f);
}

TEST(EdgeClearance, EachVertexTakesItsLongestRestEdge) {
  GridSpec g;
  g.nx = 3;
  g.ny = 3;
  g.width = 0.2f;
  g.height = 0.2f;
  ClothInput in;
  in.mesh = make_grid(g);  // 0.1 m cells with one diagonal each
  in.material.thickness = 0.002f;
  const ClothModel m = build_cloth_model({in});
  const std::vector<float> longest = longest_rest_edges(m);
  ASSERT_EQ(longest.size(), 9u);
  float shortest = 1e30f, largest = 0.f;
  for (float l : longest) shortest = std::min(shortest, l), largest = std::max(largest, l);
  EXPECT_NEAR(largest, 0.1f * std::sqrt(2.f), 1e-5f) << "the diagonal";
  EXPECT_NEAR(shortest, 0.1f, 1e-5f) << "a corner on no diagonal";
  EXPECT_NEAR(largest_edge_clearance(m, longest), edge_clearance(0.002f, largest, 1.f / kSharpestClearedRadius), 1e-7f);
}

}  // namespace
}  // namespace cb
