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
// moving away from it. A mesh obstacle's contacts are measured to its
// end-of-step surface, so a vertex that the moving surface sweeps past in the
// step (a kicking thigh under a skirt) is among them, overtaken, with a softer
// spring (kOvertakenStiffness): the solve draws it out with its neighbours
// instead of leaving it to the filter and the impact zones, which moved it alone.
//
// Coulomb friction of these contacts acts inside the solve, in three parts:
//  - static: a vertex that friction brought to rest relative to the obstacle
//    ("stuck") gets the spring in all three directions (E = k I);
//  - slip within the step: after each solve, a stuck vertex whose spring's
//    tangential impulse exceeds mu times its normal one by a margin slips at
//    once (E = k n n^T, kinetic friction on the right-hand side) and the step
//    is solved again; a spring that pulls lets go the same way
//    (update_resting_friction);
//  - friction decided within the step: a resting contact that carries no
//    friction from the step before (a new one), or only what stopped it alone
//    then (kCapped), gets its friction from its own normal impulse after the
//    first solve: held if that stops it alone, kinetic friction if not, and the
//    step is solved again. Before, a new contact slid freely for a step, and a
//    capped one carried too little into a step whose gravity pulled it on: a
//    sheet set on a slope at mu 0.3 slid 8 % further than Coulomb says, and
//    at mu 0.38 crept 14 mm where it should hold (RESULTS.md, sixteenth session);
//  - kinetic: a sliding vertex gets mu J_n against its motion as an impulse on
//    the right-hand side, from the step before (finish_resting_friction).
// Friction applied to velocities after the solve stops a vertex that the solve
// moved together with its neighbours, and the cloth tears along the contact; a
// stuck vertex held for the whole next step after its normal force has gone
// (a corner that landed first, then the sheet slides on) tore a funnel's sheets
// to twice their length (RESULTS.md, ninth session).
#pragma once

#include "sim/collision/obstacle_proximity.h"
#include "sim/core/backend.h"
#include "sim/core/rows_sum.h"
#include "sim/scene/shape.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

/// One vertex's resting contact (k = 0: none).
struct RestingContact {
  Vec3f normal;        ///< unit, out of the obstacle
  Vec3f velocity;      ///< m/s, of the obstacle surface under the vertex over the step
  Vec3f impulse;       ///< kg m/s, kinetic friction on the right-hand side (tangential; 0 when stuck)
  float k = 0;         ///< N/m, stiffness of the normal spring
  float diag = 0;      ///< kg, the vertex's diagonal of A without the spring (scalar_diagonal)
  float friction = 0;  ///< Coulomb coefficient of that obstacle
  float approach = 0;  ///< kg m/s, m max(0, -v_n) at the start of the step: an impact's share of J_n
  int stick = 0;       ///< 1: held in all three directions (static friction)
  int released = 0;    ///< 1: was stuck at the start of the step and slipped within it
  int fresh = 0;       ///< 1: its friction is decided after the step's first solve (update_resting_friction)
};

/// A vertex's friction state at the end of a step (the `stuck` array): not held
/// (sliding with the friction in `carried`, or no contact), held by static
/// friction, held until the hold gave way at the end of the step (the next step
/// has no friction: deciding it within that step made a crumpled sheet on the
/// ground stick and give way every step, 5 times the PCG iterations), or
/// sliding with friction that would have stopped it alone (capped at that in
/// `carried`).
constexpr uint8_t kFree = 0, kHeld = 1, kGaveWay = 2, kCapped = 3;

/// Finds the resting contacts at the start of the step (positions x, velocities
/// v) against the mesh contacts (one per vertex, null = no meshes) and the
/// analytic shapes posed at `start` / `end` of the step, and writes E (N/m, the
/// SystemView::extra blocks): k n n^T, or k I where stuck[i] (the last step's
/// finish_resting_friction) and the vertex still rests. k = gamma D_i / h^2 with
/// D_i the size of the vertex's diagonal block of A without E (kg,
/// scalar_diagonal): the solve's motion of a resting vertex against its spring
/// is 1 / (1 + gamma) of what it would be. A sliding contact starts with the
/// kinetic impulse `carried` (kg m/s) in its tangent plane.
void find_resting_contacts(const Context& ctx, const ObstacleContact* mesh, const Shape* start, const Shape* end,
                           int nshapes, const SystemView& A, const Vec3f* x, const Vec3f* v,
                           const float* thickness, const uint8_t* stuck, const Vec3f* carried, float reach,
                           float gamma, RestingContact* rc, M3* E);

/// rhs += h^2 E v_obstacle + the kinetic friction impulse (kg m/s).
void add_resting_rhs(const Context& ctx, const RestingContact* rc, int n, float h, Vec3f* rhs);

/// One round of the contacts' active set inside the step, after a solve
/// (velocities v, m/s) and before the next. With J_n = h^2 k max(0, -v_n) the
/// spring's normal impulse and the slack tol D_i (kg m/s: what changes the
/// vertex's velocity by tol m/s, alone):
///  - a spring that pulls by more than the slack lets go (no contact this step);
///  - a stuck contact whose tangential impulse h^2 k |v_t| exceeds mu J_n by more
///    than the slack slips: E -> k n n^T, and -mu J_n along v_t on the rhs;
///  - a fresh contact, with B = mu (lambda_n - approach) its Coulomb bound
///    (lambda: its impulse read as in finish_resting_friction), is held
///    (E -> k I) where B stops it alone (m |v_t| <= B), else gets -B along v_t
///    on the rhs; it is left as it is where B changes its velocity by less than
///    tol alone (B <= tol m), and held without a re-solve where it already
///    moves by less than tol (|v_t| <= tol); either way it is fresh no more.
/// Updates rc, E and rhs in place; *count (backend memory, not read back: the
/// round reads its counts at once) = how many contacts changed (then the step
/// is solved again).
void update_resting_friction(const Context& ctx, const SystemView& A, RestingContact* rc, int n, const Vec3f* v,
                             float tol, M3* E, Vec3f* rhs, double* count, RowsSumScratch& scratch);

/// How many vertices have a resting contact this step (a spring, k > 0).
/// `scratch` is (n) floats.
size_t count_resting_contacts(const Context& ctx, const RestingContact* rc, int n, float* scratch);

/// After the step's last solve (v: the solved velocities, rhs: the last
/// right-hand side): the friction states (stuck: kFree ... kCapped) and the
/// kinetic impulses (carried, kg m/s) of the next step. The contact's impulse lambda is
/// read from the system's row without it (accurate where h^2 k |v - v_o| is not:
/// k is 100 times the vertex's diagonal), and the next step's bound is
/// mu (lambda_n - approach): an impact's share does not recur.
///  - A stuck contact stays stuck while it pushes and |lambda_t| is within the
///    bound (kHeld), else kGaveWay.
///  - A sliding one sticks when the bound would have stopped it alone (not after
///    slipping in this step); otherwise it carries the bound against its motion,
///    at most what stops it alone (m |v_t|; kCapped when that is less).
void finish_resting_friction(const Context& ctx, const SystemView& A, const RestingContact* rc, int n,
                             const Vec3f* v, const Vec3f* rhs, uint8_t* stuck, Vec3f* carried);

}  // namespace cb::icloth
