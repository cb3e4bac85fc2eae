#include "sim/collision/ccd_batch.h"

#include "sim/core/parallel.h"

namespace cb {

void ccd_batch(const Context& ctx, const CcdQuery* queries, int n, bool edge_edge, const CcdOptions& opt,
               CcdResult* out) {
  if (edge_edge)
    parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = ccd_edge_edge(queries[i].x0, queries[i].x1, opt); });
  else
    parallel_for(ctx, n, [=] CB_HD(int i) { out[i] = ccd_vertex_face(queries[i].x0, queries[i].x1, opt); });
}

}  // namespace cb
