#include "sim/scene/obstacle_set.h"

namespace cb {

void ObstacleSet::sync(const Context& ctx) {
  d_shapes.upload(ctx, shapes);
  d_shapes_prev.upload(ctx, shapes_prev);
  d_mesh_x.upload(ctx, mesh_x);
  d_mesh_x_prev.upload(ctx, mesh_x_prev);
  if (d_mesh_tris.size() != mesh_tris.size() || d_mesh_tris.context().backend != ctx.backend)
    d_mesh_tris.upload(ctx, mesh_tris);
}

}  // namespace cb
