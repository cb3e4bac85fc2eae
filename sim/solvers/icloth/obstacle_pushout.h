// Cloth that starts inside a mesh obstacle (a garment placed through a body),
// pushed out to the body's surface before the untangle of a crossed start.
//
// The contour descent (contour_untangle.h) cannot clear such a start: where a
// garment's whole waistband lies inside the hips, the intersection curves run
// around the body, and a loop around a body does not get shorter by sliding
// over it (its curvature is normal to the surface: no gradient). The body's
// side is known, though: it is closed enough for the ray-traced detector's
// cloth -> volumetric rule (Lehericey et al. 2015, ray_classify.h). A ray
// leaves each cloth vertex along its normal and one against it; a vertex whose
// ray's first obstacle hit is a back face is inside (the detector keeps the
// shallower of two such exits), and moves to the ray's exit point and e
// beyond it along the exit face's outward normal. Passes repeat until no
// vertex is inside.
//
// A vertex pushed out to a flat face leaves the edges to its neighbours
// outside the body through the face's rim (a sheet through a box, pushed out
// of its top, still crosses the walls' upper edge). So then, ring by ring,
// each vertex of a triangle that still crosses an obstacle takes the mean
// move of its moved neighbours (`rim_rounds` rings at most).
//
// Only the vertices near the crossed cloth-obstacle triangles move (`near`):
// a ray from outside a body that enters it through an opening (the neck, a
// sleeve; the mannequins of ../shared have 124 open edges) meets a back face
// too, and the rule cannot tell that vertex from one inside.
#pragma once

#include <cstddef>
#include <vector>

#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/model/topology.h"
#include "sim/scene/obstacle_set.h"

namespace cb::icloth {

struct PushOutSettings {
  float half_thickness = 0.002f;  ///< m, e: a vertex pushed out ends this far outside the surface
  float ray_length = 0.05f;       ///< m, the deepest a vertex can be and be found
  int max_passes = 4;
  int rim_rounds = 4;  ///< rings of the rim carried along (0 = none)
};

struct PushOutResult {
  size_t moved = 0;  ///< vertex moves out of an obstacle over all passes
  int passes = 0;    ///< passes that moved a vertex
  size_t rim = 0;    ///< rim vertices carried along
};

/// Pushes the cloth vertices that are inside a mesh obstacle and flagged in
/// `near` (nverts, 1 = may move; inv_mass 0, pinned, never moves) out of it.
/// tris: the cloth's triangles, vert_tris the triangles around each vertex,
/// ring1 the vertices sharing an edge with each; x: (nverts) m, backend
/// memory, moved in place; the obstacles synced, at the poses whose inside is
/// meant (their end-of-frame arrays, d_mesh_x).
PushOutResult push_out_of_obstacles(const Context& ctx, const std::vector<Int3>& tris, const Csr& vert_tris,
                                    const Csr& ring1, const ObstacleSet& obstacles, const std::vector<float>& inv_mass,
                                    const std::vector<uint8_t>& near, const PushOutSettings& s,
                                    DeviceBuffer<Vec3f>& x);

}  // namespace cb::icloth
