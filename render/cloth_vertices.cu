#include "render/cloth_vertices.h"

#include "sim/core/parallel.h"

namespace cb::render {

void ClothTopologyBuffers::upload(const Context& ctx, const ClothModel& m) {
  tris.upload(ctx, m.tris);
  vt_offsets.upload(ctx, m.topo.vert_tris.offsets);
  vt_ids.upload(ctx, m.topo.vert_tris.indices);
  nverts = int(m.num_vertices());
}

void write_cloth_vertices(const Context& ctx, const ClothTopologyBuffers& topo, const Vec3f* x, Vec3f* out_x,
                          Vec3f* out_n) {
  const Int3* tris = topo.tris.data();
  const uint32_t* off = topo.vt_offsets.data();
  const uint32_t* ids = topo.vt_ids.data();
  // one thread per vertex gathers its triangles (no atomics)
  parallel_for(ctx, topo.nverts, [=] CB_HD(int v) {
    Vec3f n{0, 0, 0};
    for (uint32_t k = off[v]; k < off[v + 1]; ++k) {
      Int3 t = tris[ids[k]];
      n += cross(x[t.b] - x[t.a], x[t.c] - x[t.a]);
    }
    out_x[v] = x[v];
    out_n[v] = normalize(n);
  });
}

}  // namespace cb::render
