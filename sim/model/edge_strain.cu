// Edge strain kernels (see edge_strain.h).
#include "sim/model/edge_strain.h"

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb {

void edge_strain(const Context& ctx, const Vec3f* x, const Int2* edges, const float* rest, int nedges, float* strain) {
  parallel_for(ctx, nedges, [=] CB_HD(int e) {
    Int2 ed = edges[e];
    strain[e] = length(x[ed.b] - x[ed.a]) / rest[e] - 1.f;
  });
}

float max_edge_strain_growth(const Context& ctx, const Vec3f* x0, const Vec3f* x1, const Int2* edges,
                             const float* rest, int nedges, float* scratch) {
  if (nedges <= 0) return 0.f;
  parallel_for(ctx, nedges, [=] CB_HD(int e) {
    const Int2 ed = edges[e];
    scratch[e] = (length(x1[ed.b] - x1[ed.a]) - length(x0[ed.b] - x0[ed.a])) / rest[e];
  });
  return reduce_max(ctx, scratch, size_t(nedges));
}

}  // namespace cb
