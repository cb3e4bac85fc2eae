// Warnings about the state a scene starts in: cloth that already intersects
// itself, another cloth or an obstacle before the first step. Verlet and pbd
// keep crossings they start with, and I-Cloth, which first tries to untangle
// them, promises no intersecting pair after a step only once a frame starts
// clean; so the user hears of them at load, not from a counter after pressing
// play.
#pragma once

#include <string>
#include <vector>

#include "sim/core/math.h"
#include "sim/model/cloth_model.h"

namespace cb {

/// One warning per cloth piece that intersects itself, per pair of pieces that
/// intersect each other and per piece that intersects the obstacles, each with
/// its count and first pair (triangles numbered within their piece, from 0).
/// pairs: count_intersections' pairs at the start (cloth triangles [0, ntris),
/// obstacle triangles ntris + j).
std::vector<std::string> start_intersection_warnings(const ClothModel& model, const std::vector<Int2>& pairs);

}  // namespace cb
