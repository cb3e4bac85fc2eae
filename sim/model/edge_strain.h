// Edge strain of a cloth's positions against its rest lengths (the model's
// edges): World's statistics and I-Cloth's Newton iterations read it.
#pragma once

#include "sim/core/backend.h"
#include "sim/core/math.h"

namespace cb {

/// strain[e] = |x_b - x_a| / rest[e] - 1 for each edge. (nedges)
void edge_strain(const Context& ctx, const Vec3f* x, const Int2* edges, const float* rest, int nedges, float* strain);

/// The largest growth of an edge's strain from positions x0 to x1 (0 without
/// edges); scratch: (nedges).
float max_edge_strain_growth(const Context& ctx, const Vec3f* x0, const Vec3f* x1, const Int2* edges,
                             const float* rest, int nedges, float* scratch);

}  // namespace cb
