#include "sim/world_kernels.h"

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb {

bool any_nonfinite(const Context& ctx, const Vec3f* x, const Vec3f* v, int n, DeviceBuffer<float>& scratch) {
  if (scratch.size() < size_t(n)) scratch.resize(ctx, size_t(n));
  float* flag = scratch.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { flag[i] = (is_finite(x[i]) && is_finite(v[i])) ? 0.f : 1.f; });
  return reduce_max(ctx, flag, size_t(n)) > 0.f;
}

}  // namespace cb
