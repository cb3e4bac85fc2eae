// Kernels of the pbd solver (kernels.cu): prediction, XPBD constraint passes
// (one colour of Gauss-Seidel, or a Jacobi pass), collisions, friction and the
// velocity update. Arguments are plain views of backend memory.
#pragma once

#include <cstdint>

#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/particle_hash.h"
#include "sim/core/backend.h"
#include "sim/core/buffer.h"
#include "sim/core/math.h"
#include "sim/scene/environment.h"
#include "sim/scene/grab.h"
#include "sim/scene/shape.h"
#include "sim/solvers/pbd/constraint_set.h"

namespace cb::pbd {

/// Contact bookkeeping of one vertex over a substep (for friction).
struct VertexContact {
  Vec3f normal;     ///< unit, last contact normal
  float push = 0;   ///< m, total normal correction this substep (0 = no contact)
  Vec3f velocity;   ///< m/s, velocity of the obstacle surface at the contact
  float friction = 0;  ///< Coulomb coefficient
};

/// Everything the kernels read and write (backend pointers). Built per step.
struct PbdView {
  int nverts = 0, nedges = 0, nbends = 0;
  Vec3f* x = nullptr;         ///< (nverts) m, positions (projected in place)
  Vec3f* v = nullptr;         ///< (nverts) m/s
  Vec3f* x0 = nullptr;        ///< (nverts) m, positions at the start of the substep
  const float* w = nullptr;   ///< (nverts) 1/kg, inverse mass (0 = pinned)
  /// (nverts) 1/kg, the inverse masses the constraint projections share their
  /// corrections by: w, or with PbdParams::split equal one value for every free vertex
  const float* wp = nullptr;
  const float* area = nullptr, *damping = nullptr, *thickness = nullptr;  ///< (nverts)
  /// (nverts) m, each vertex's longest rest edge for its clearance from mesh
  /// obstacles (sim/model/edge_clearance.h); null: the thickness alone
  const float* longest_edge = nullptr;
  VertexContact* contact = nullptr;  ///< (nverts)
  Vec3f* dx = nullptr;        ///< (nverts) m, scratch (self-collision deltas)
  const Int2* edges = nullptr;  ///< (nedges) colour order
  const float* edge_rest = nullptr, *edge_factor = nullptr, *edge_theta = nullptr;
  const uint8_t* edge_shear = nullptr;
  float* edge_lambda = nullptr;  ///< (nedges)
  Vec3f* edge_corr = nullptr;    ///< (nedges) Jacobi: n * theta * dlambda
  const Int4* bends = nullptr;   ///< (nbends) colour order
  const BendCoef* bend_coef = nullptr;
  const float* bend_factor = nullptr, *bend_rest_norm = nullptr, *bend_theta = nullptr;
  Vec3f* bend_lambda = nullptr;  ///< (nbends)
  Vec3f* bend_corr = nullptr;    ///< (nbends) Jacobi: theta * dlambda
  const uint32_t* vert_edge_off = nullptr;
  const int32_t* vert_edge = nullptr;
  const uint32_t* vert_bend_off = nullptr, *vert_bend = nullptr;
};

/// Compliances of one substep, already divided by h^2 (alpha~ = alpha / h^2).
struct Compliance {
  float stretch_t = 0, shear_t = 0, bend_t = 0;
  float relax = 1.f;  ///< Gauss-Seidel over-relaxation of each multiplier step (1 = plain)
};

/// External forces for one substep.
struct ForceArgs {
  Vec3f gravity;   ///< m/s^2
  Wind wind;
  float air_drag = 0;  ///< kg/m^2 per (m/s)
  float time = 0;      ///< s, at the start of the substep
  float h = 0;         ///< s, substep
};

/// x0 = x; v += h (g + drag / m); x += h v. Pinned vertices keep x and get v = 0.
/// Also clears the contacts and the multipliers.
void predict(const Context& ctx, const PbdView& p, const ForceArgs& f);
/// Gauss-Seidel over one colour: constraints [first, first + count) in parallel.
void stretch_color(const Context& ctx, const PbdView& p, int first, int count, Compliance c);
void bend_color(const Context& ctx, const PbdView& p, int first, int count, Compliance c);
/// One Jacobi pass over all stretch (bend) constraints: corrections computed from
/// the same positions, scaled by omega / (max vertex degree), then gathered.
void stretch_jacobi(const Context& ctx, const PbdView& p, Compliance c, float omega);
void bend_jacobi(const Context& ctx, const PbdView& p, Compliance c, float omega);
/// Mouse grab (one projection of the attachment, Grab::stiffness of the gap).
void grab(const Context& ctx, const PbdView& p, const Grab& g);
/// Pushes vertices out of the analytic shapes to their edge clearance
/// (PbdView::longest_edge, shape_curvature: the thickness from a plane); records contacts.
/// shapes: (nshapes) at the current substep; now/prev: end and start of the frame.
void collide_shapes(const Context& ctx, const PbdView& p, const Shape* shapes, const Shape* now, const Shape* prev,
                    int nshapes, float frame_dt);
/// wp[i] = w_equal for every free vertex (w[i] > 0), 0 for a pinned one (PbdSplit::Equal).
void equal_inverse_masses(const Context& ctx, const float* w, int n, float w_equal, float* wp);
/// Pushes vertices out along the mesh-obstacle contact planes found this substep,
/// to their edge clearance (PbdView::longest_edge).
void collide_mesh(const Context& ctx, const PbdView& p, const ObstacleContact* contacts);
/// Particle-particle self-collision (Macklin et al. 2014 style, Jacobi-averaged):
/// every pair closer than 2 radius is pushed apart along their line, split by
/// inverse mass, unless their rest distance is below 2 radius * 1.5 (mesh
/// neighbours). `hash` must be built on the current positions p.x; rest: (nverts)
/// rest positions. Uses p.dx as scratch.
void self_collide(const Context& ctx, const PbdView& p, const ParticleHashView& hash, const Vec3f* rest, float radius);
/// Position-level Coulomb friction from the recorded contacts, then
/// v = (x - x0) / h with the material's damping (as v + (x - (x0 + h v)) / h:
/// exact where no projection moved x, at any h). Pinned: v = 0.
void friction_and_velocity(const Context& ctx, const PbdView& p, float h);
/// The largest |x - x0| over the vertices (m): how far the projections since
/// predict() moved a vertex. scratch: (nverts) floats, grown as needed.
float max_move(const Context& ctx, const PbdView& p, DeviceBuffer<float>& scratch);
/// RMS of |C + alpha~ lambda| over all stretch and bending constraints (m).
double residual(const Context& ctx, const PbdView& p, Compliance c, bool bending, DeviceBuffer<float>& scratch);

}  // namespace cb::pbd
