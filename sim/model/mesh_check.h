// Input checks for meshes: what makes a mesh unusable (error) or suspect (warning).
#pragma once

#include <string>
#include <vector>

#include "sim/model/tri_mesh.h"

namespace cb {

struct MeshReport {
  std::vector<std::string> errors;    ///< "<source>: triangle 12 uses vertex 40 twice"
  std::vector<std::string> warnings;  ///< "<source>: 3 zero-area triangles (first: 7)"
};

/// Checks: empty mesh, index out of range, NaN/inf coordinates, a triangle using a
/// vertex twice (errors); zero-area triangles, non-manifold edges (warnings; the
/// first offending element is named).
MeshReport check_mesh(const TriMesh& m);

/// Throws cb::Error with the first error of check_mesh; appends warnings.
void require_valid_mesh(const TriMesh& m, std::vector<std::string>* warnings);

}  // namespace cb
