// Triangle meshes of the analytic obstacle shapes, in the shape's local frame
// (the frame Shape::pose maps to world), for drawing only.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/math.h"
#include "sim/scene/shape.h"

namespace cb::render {

struct TessMesh {
  std::vector<Vec3f> positions;   ///< (n) m, local frame
  std::vector<Vec3f> normals;     ///< (n) unit, outward
  std::vector<uint32_t> indices;  ///< (3 * ntris)
};

/// UV sphere of `radius` m centred at the origin.
TessMesh tessellate_sphere(float radius, int slices = 48, int stacks = 24);
/// Capsule: segment from -half_length to +half_length along y, `radius` m.
TessMesh tessellate_capsule(float radius, float half_length, int slices = 48, int stacks = 24);
/// Box with half extents (m); flat-shaded faces.
TessMesh tessellate_box(Vec3f half_extents);
/// Square of side 2*half_size in the local xz plane, normal +y.
TessMesh tessellate_plane(float half_size);
/// The mesh of any analytic shape (planes: `plane_half_size` m).
TessMesh tessellate_shape(const Shape& s, float plane_half_size);

/// Area-weighted smooth vertex normals of a triangle soup. x: (nverts), tris: (ntris).
std::vector<Vec3f> smooth_normals(const std::vector<Vec3f>& x, const std::vector<Int3>& tris);

}  // namespace cb::render
