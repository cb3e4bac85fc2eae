// Input checks for meshes: what makes a mesh unusable (error) or suspect (warning).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/tri_mesh.h"

namespace cb {

struct MeshReport {
  std::vector<std::string> errors;    ///< "<source>: triangle 12 uses vertex 40 twice"
  std::vector<std::string> warnings;  ///< "<source>: 3 zero-area triangles (first: 7)"
};

/// m: the farthest a vertex may lie from the origin along an axis. Beyond it a
/// mesh is an input error: a scene larger than 1000 km is a typo, most often of
/// units, and the simulation's squared lengths of such coordinates overflow.
constexpr float kMaxCoordinate = 1e6f;

/// What is wrong with vertex position v, as the end of a sentence that names
/// the vertex ("has a non-finite coordinate (NaN or inf)", "lies 3.4e+38 m
/// from the origin ..."); "" when it is finite and within kMaxCoordinate.
std::string coordinate_problem(Vec3f v);

/// The index of the first of the points x with a coordinate_problem, or -1;
/// *problem receives it.
int64_t first_coordinate_problem(const std::vector<Vec3f>& x, std::string* problem);

/// Checks: empty mesh, index out of range, NaN/inf coordinates or ones beyond
/// kMaxCoordinate, a triangle using a vertex twice (errors); zero-area
/// triangles, non-manifold edges (warnings; the first offending element is named).
MeshReport check_mesh(const TriMesh& m);

/// Throws cb::Error with the first error of check_mesh; appends warnings.
void require_valid_mesh(const TriMesh& m, std::vector<std::string>* warnings);

}  // namespace cb
