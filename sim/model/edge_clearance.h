// How far a cloth vertex is held from an obstacle so that the cloth's edges, and
// not only its vertices, stay outside a curved body.
//
// A solver that pushes vertices out of obstacles (Verlet, pbd) leaves the straight
// edge between two vertices free to dip into a convex body: an edge of length l
// whose ends sit at distance c outside a surface of curvature radius R has its
// middle at sqrt((R + c)^2 - l^2 / 4) - R from it. With c = thickness + l^2 /
// (8 R) (the chord's sagitta) that is at least the thickness, exactly:
// (R + c)^2 - l^2 / 4 = (R + thickness)^2 + c^2 - thickness^2.
//
// ../shared's skirt has 27 mm triangles at its hem and a 1 mm thickness; on the
// inner thighs (R ~ 6 cm) the sagitta is 1.5 mm, and under Verlet and pbd the
// body's edges crossed the hem between its vertices in 47 and 66 of 150 frames
// (RESULTS.md, forty-fifth session). For a mesh the curvature is the contact
// triangle's (mesh_curvature.h), so a flat mesh floor holds the cloth at its
// thickness; for an analytic shape its own (shape_curvature, shape.h).
#pragma once

#include <vector>

#include "sim/core/hd.h"
#include "sim/model/cloth_model.h"

namespace cb {

/// m: the tightest radius of curvature the clearance is made for. A sharper
/// bend (a crease, a fingertip, a mesh's coarse facets) counts as this radius,
/// so that a long cloth edge over a crease is not held centimetres away.
constexpr float kSharpestClearedRadius = 0.02f;

/// m: the distance to keep a vertex of thickness `thickness` (m) whose longest
/// rest edge is `longest_edge` (m) from an obstacle that bends with
/// `curvature` (1/m) at its contact: thickness + l^2 k / 8, with k at most
/// 1 / kSharpestClearedRadius.
CB_HD inline float edge_clearance(float thickness, float longest_edge, float curvature) {
  const float k = curvature < 1.f / kSharpestClearedRadius ? curvature : 1.f / kSharpestClearedRadius;
  return thickness + longest_edge * longest_edge * k * 0.125f;
}

/// m: edge_clearance of vertex i given the per-vertex thickness and longest
/// rest edge arrays; `longest` null (the edge clearance off): its thickness.
CB_HD inline float vertex_edge_clearance(const float* thickness, const float* longest, int i, float curvature) {
  return longest ? edge_clearance(thickness[i], longest[i], curvature) : thickness[i];
}

/// (nverts) m: the longest rest edge at each vertex (0 for a vertex on no edge).
std::vector<float> longest_rest_edges(const ClothModel& model);

/// m: the largest edge_clearance any vertex of `model` can ask for (at the
/// sharpest curvature), for the reach of a contact query, given its
/// longest_rest_edges; 0 without vertices.
float largest_edge_clearance(const ClothModel& model, const std::vector<float>& longest);

}  // namespace cb
