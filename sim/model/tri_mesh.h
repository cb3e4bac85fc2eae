// A plain triangle mesh: what loaders and generators produce, before topology.
#pragma once

#include <string>
#include <vector>

#include "sim/core/math.h"

namespace cb {

struct TriMesh {
  std::vector<Vec3f> positions;  ///< (nverts) m
  std::vector<Vec2f> uvs;        ///< (nverts) or empty
  std::vector<Int3> tris;        ///< (ntris) counter-clockwise vertex ids
  std::string source;            ///< file name or generator description, for messages
};

/// Axis-aligned bounds of the positions.
Aabb bounds(const TriMesh& m);
/// Applies p' = T (scale p) to every point.
void transform_points(std::vector<Vec3f>& x, const Transform& T, float scale = 1.f);
/// Applies p' = T (scale p) to every position.
inline void transform_mesh(TriMesh& m, const Transform& T, float scale = 1.f) { transform_points(m.positions, T, scale); }

/// The mesh's short edges (m): the first percentile of its triangles' shortest
/// edges (a few slivers do not set it), over `tris` (ids into x); 0 without
/// triangles. The scale a collision thickness must stay well below: a vertex
/// closer than the proximity distance to its own neighbours is repelled by them.
float short_edge(const std::vector<Vec3f>& x, const std::vector<Int3>& tris);
inline float short_edge(const TriMesh& m) { return short_edge(m.positions, m.tris); }

}  // namespace cb
