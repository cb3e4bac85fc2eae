// Kinetic energy of a cloth's velocities: World's statistics read it, and the
// solvers' takeover settle and ease (a state handed over by another solver may
// not turn that solver's strain into motion) bound it.
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb {

/// J, sum over the vertices of 1/2 m_i |v_i|^2 (mass: (n) kg, v: (n) m/s);
/// scratch: (n) floats, grown as needed.
double kinetic_energy(const Context& ctx, const float* mass, const Vec3f* v, int n, DeviceBuffer<float>& scratch);

/// J, the most kinetic energy a step of h seconds that starts with e0 (J) can end
/// with when only gravity g (m/s^2) adds energy to a cloth of mass M (kg): per
/// vertex |v + h g| <= |v| + h |g|, so by Cauchy-Schwarz
/// (sqrt(e0) + sqrt(1/2 M (h g)^2))^2.
double gravity_energy_bound(double e0, double cloth_mass, float h, const Vec3f& g);

/// The takeover ease's cap: when the kinetic energy of v exceeds `bound` (J),
/// every velocity is scaled by sqrt(bound / E) so that it equals the bound.
/// Returns true when it scaled.
bool cap_kinetic_energy(const Context& ctx, const float* mass, Vec3f* v, int n, double bound,
                        DeviceBuffer<float>& scratch);

}  // namespace cb
