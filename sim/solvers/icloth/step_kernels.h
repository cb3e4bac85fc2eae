// Per-vertex kernels of one I-Cloth step: external forces, the right-hand side
// and the final position update.
#pragma once

#include "sim/core/backend.h"
#include "sim/scene/environment.h"
#include "sim/scene/grab.h"

namespace cb::icloth {

/// Per-vertex constants (backend memory, nverts each).
struct VertexData {
  const float* mass = nullptr;  ///< kg
  const float* area = nullptr;  ///< m^2, a third of the adjacent rest triangle areas
  const float* inv_mass = nullptr;  ///< 1/kg, 0 = pinned
};

/// f += m g - air_drag * area |v_rel| v_rel (v_rel = v - wind(x, t)) and the grab
/// spring -k bary_i (sum_j bary_j x_j - target). Pinned vertices get f = 0.
void add_external_forces(const Context& ctx, const VertexData& vd, const Vec3f* x, const Vec3f* v, int n,
                         const Environment& env, float time, const Grab& grab, float grab_k, Vec3f* f);

/// rhs = m v + h f.
void implicit_rhs(const Context& ctx, const float* mass, const Vec3f* v, const Vec3f* f, int n, float h, Vec3f* rhs);

/// x_new = x + h v for free vertices; pinned vertices keep x (and v = 0).
void predict_positions(const Context& ctx, const Vec3f* x, Vec3f* v, const float* w, int n, float h, Vec3f* x_new);

/// v = (x_new - x) / h, then x = x_new, for free vertices; v_pred (m/s) is the
/// velocity predict_positions last moved x by (x_new = x + h v_pred before the
/// collision response), so that v is exact where the response left x_new
/// alone (step_velocity).
void commit_positions(const Context& ctx, Vec3f* x, Vec3f* v, const Vec3f* x_new, const Vec3f* v_pred, const float* w,
                      int n, float h);

/// dv = v1 - v0 (m/s), (n) each.
void velocity_change(const Context& ctx, const Vec3f* v0, const Vec3f* v1, int n, Vec3f* dv);

/// max_i |v[i]| (m/s); scratch: (n).
float max_speed(const Context& ctx, const Vec3f* v, int n, float* scratch);

}  // namespace cb::icloth
