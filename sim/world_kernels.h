// Kernels World uses for statistics.
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb {

/// flag[i] = 1 when x[i] or v[i] has a NaN/inf component, else 0. Returns true if any.
bool any_nonfinite(const Context& ctx, const Vec3f* x, const Vec3f* v, int n, DeviceBuffer<float>& scratch);

}  // namespace cb
