// Wavefront OBJ read/write (tinyobjloader). Polygons are triangulated; vertex
// positions are shared across UV seams so a cloth stays one connected surface.
#pragma once

#include <string>
#include <vector>

#include "sim/model/tri_mesh.h"

namespace cb {

struct ObjReadOptions {
  bool want_uvs = true;
  /// Merge vertices closer than this (m); 0 = keep all (sewn garments whose seam
  /// vertices are duplicated need about 1e-4).
  float weld_distance = 0.f;
};

/// Reads an OBJ file. Throws cb::Error naming the file for a missing or broken
/// file (parse errors, bad indices, no triangles). Where one position carries
/// several UVs (a seam), the first UV seen is kept.
TriMesh read_obj(const std::string& path, const ObjReadOptions& opts = {});

/// Reads only the positions of an OBJ (fast path for keyframe sequences).
std::vector<Vec3f> read_obj_positions(const std::string& path);

/// Writes positions and triangles (and UVs when given, one per vertex).
void write_obj(const std::string& path, const std::vector<Vec3f>& positions, const std::vector<Int3>& tris,
               const std::vector<Vec2f>* uvs = nullptr);

/// Merges vertices closer than `distance` (m); triangles that collapse are dropped.
/// Returns the number of vertices removed.
size_t weld_vertices(TriMesh& m, float distance);

}  // namespace cb
