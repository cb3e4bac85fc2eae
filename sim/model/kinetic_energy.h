// Kinetic energy of a cloth's velocities: World's statistics and the I-Cloth
// solver's takeover settle read it.
#pragma once

#include "sim/core/buffer.h"
#include "sim/core/math.h"

namespace cb {

/// J, sum over the vertices of 1/2 m_i |v_i|^2 (mass: (n) kg, v: (n) m/s);
/// scratch: (n) floats, grown as needed.
double kinetic_energy(const Context& ctx, const float* mass, const Vec3f* v, int n, DeviceBuffer<float>& scratch);

}  // namespace cb
