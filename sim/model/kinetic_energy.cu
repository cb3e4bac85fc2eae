// Kinetic energy (see kinetic_energy.h).
#include "sim/model/kinetic_energy.h"

#include <cmath>

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

double gravity_energy_bound(double e0, double cloth_mass, float h, const Vec3f& g) {
  const double hg = double(h) * double(length(g));
  const double root = std::sqrt(e0 > 0 ? e0 : 0.0) + std::sqrt(0.5 * cloth_mass * hg * hg);
  return root * root;
}

bool cap_kinetic_energy(const Context& ctx, const float* mass, Vec3f* v, int n, double bound,
                        DeviceBuffer<float>& scratch) {
  const double e = kinetic_energy(ctx, mass, v, n, scratch);
  if (!(e > bound)) return false;
  const float s = float(std::sqrt(bound / e));
  parallel_for(ctx, n, [=] CB_HD(int i) { v[i] = v[i] * s; });
  return true;
}

}  // namespace cb
