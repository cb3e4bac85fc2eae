// Batched CCD on a backend: many vertex–face or edge–edge queries at once (used by
// the CCD benchmark command and by tests that compare the backends).
#pragma once

#include <cstdint>

#include "sim/collision/ccd.h"
#include "sim/core/backend.h"

namespace cb {

/// One query as the kernels read it: the four points at t = 0, then at t = 1 (m).
struct CcdQuery {
  Vec3d x0[4];  ///< VF: p, a, b, c; EE: a0, a1, b0, b1
  Vec3d x1[4];
};

/// Runs n queries (backend memory) and writes one result per query (backend memory).
void ccd_batch(const Context& ctx, const CcdQuery* queries, int n, bool edge_edge, const CcdOptions& opt,
               CcdResult* out);

}  // namespace cb
