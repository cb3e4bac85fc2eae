// Kinetic energy (see kinetic_energy.h).
#include "sim/model/kinetic_energy.h"

#include "sim/core/algorithms.h"
#include "sim/core/parallel.h"

namespace cb {

double kinetic_energy(const Context& ctx, const float* mass, const Vec3f* v, int n, DeviceBuffer<float>& scratch) {
  if (n <= 0) return 0;
  if (scratch.size() < size_t(n)) scratch.resize(ctx, size_t(n));
  float* e = scratch.data();
  parallel_for(ctx, n, [=] CB_HD(int i) { e[i] = 0.5f * mass[i] * dot(v[i], v[i]); });
  return reduce_sum(ctx, e, size_t(n));
}

}  // namespace cb
