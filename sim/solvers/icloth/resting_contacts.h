// Resting obstacle contacts inside the implicit solve.
//
// The obstacle response of the solver is a velocity filter after the solve
// (obstacle_kernels.h): the solve itself does not know the obstacle. For a
// vertex lying on one, the elastic response the solve computes points largely
// into the surface, and the filter drops it: a tight band on a widening body
// (a skirt's waistband on the hips) then slides down step after step while its
// inward pull is thrown away, and stretches to twice its length. Baraff &
// Witkin 1998 (Sec. 5.3) put such contacts into the solve as constraints; here
// they enter as a stiff normal spring, E = k n n^T (SystemView::extra), anchored
// to the moving surface (its velocity goes to the right-hand side), so that the
// solve moves a resting vertex along the surface. A vertex rests on an obstacle
// when, at the start of the step, it is within `reach` thicknesses of it and not
// moving away from it (a vertex pulled off is released one step later, the lag
// of Baraff & Witkin's constraint release). The spring takes the normal impulse
// that the filter used to apply, so Coulomb friction on these vertices is taken
// from the spring's impulse (resting_friction), once per step. Static friction
// is in the solve too: a vertex that friction brought to rest relative to the
// obstacle ("stuck") gets the spring in all three directions on the next step,
// and slips again once the spring's tangential impulse exceeds mu times its
// normal impulse (again one step late). Friction applied after a solve alone
// stops a vertex that the solve moved together with its neighbours, and the
// cloth tears along the contact.
#pragma once

#include "sim/collision/obstacle_proximity.h"
#include "sim/core/backend.h"
#include "sim/scene/shape.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// One vertex's resting contact (k = 0: none).
struct RestingContact {
  Vec3f normal;    ///< unit, out of the obstacle
  Vec3f velocity;  ///< m/s, of the obstacle surface under the vertex over the step
  float k = 0;     ///< N/m, stiffness of the normal spring
  float friction = 0;  ///< Coulomb coefficient of that obstacle
  int stick = 0;       ///< 1: held in all three directions (static friction)
};

/// Finds the resting contacts at the start of the step (positions x, velocities
/// v) against the mesh contacts (one per vertex, null = no meshes) and the
/// analytic shapes posed at `start` / `end` of the step, and writes E (N/m, the
/// SystemView::extra blocks): k n n^T, or k I where stuck[i] (the last step's
/// resting_friction) and the vertex still rests. k = gamma D_i / h^2 with D_i
/// the size of the vertex's diagonal block of A without E (kg, scalar_diagonal):
/// the solve's motion of a resting vertex against its spring is 1 / (1 + gamma)
/// of what it would be.
void find_resting_contacts(const Context& ctx, const ObstacleContact* mesh, const Shape* start, const Shape* end,
                           int nshapes, const SystemView& A, const Vec3f* x, const Vec3f* v,
                           const float* thickness, const uint8_t* stuck, float reach, float gamma, RestingContact* rc,
                           M3* E);

/// rhs += h^2 E v_obstacle: the springs follow the moving surface (kg m/s).
void add_resting_rhs(const Context& ctx, const RestingContact* rc, int n, float h, Vec3f* rhs);

/// Coulomb friction of the resting contacts on the solved velocities v (m/s),
/// and the stuck flags of the next step. The spring's normal impulse per unit
/// mass, dv_n = -h^2 k n.(v - v_o) / m, bounds the tangential one, mu dv_n: a
/// sliding vertex loses up to that much of its tangential velocity relative to
/// the obstacle (stuck when none is left); a stuck vertex stays stuck while its
/// spring's tangential impulse h^2 k |v_t| / m stays within the bound.
void resting_friction(const Context& ctx, const RestingContact* rc, const float* mass, int n, float h, Vec3f* v,
                      uint8_t* stuck);

}  // namespace cb::icloth
