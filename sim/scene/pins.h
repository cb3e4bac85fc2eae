// Pin selectors: which vertices of a cloth a scene pins.
#pragma once

#include <string>
#include <vector>

#include "sim/model/tri_mesh.h"

namespace cb {

/// Corner names: "top-left", "top-right", "bottom-left", "bottom-right". Corners
/// and edges are taken in the cloth's local frame (before its transform): top =
/// largest local y, left = smallest local x. Returns the local vertex id nearest
/// to the corner of the bounding rectangle; throws cb::Error for an unknown name.
uint32_t select_corner(const TriMesh& local, const std::string& corner);

/// Vertices on a side ("top", "bottom", "left", "right"): those within `tolerance`
/// (m) of the bounding rectangle's side in the local frame.
std::vector<uint32_t> select_edge(const TriMesh& local, const std::string& side, float tolerance);

/// Vertices of a world-space mesh inside the box [lo, hi].
std::vector<uint32_t> select_box(const TriMesh& world, Vec3f lo, Vec3f hi);

}  // namespace cb
