// Kernels of the Verlet solver (one thread per vertex, each writes only its own
// vertex; passes that read neighbours read one buffer and write another).
#pragma once

#include <cstdint>

#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/particle_hash.h"
#include "sim/core/backend.h"
#include "sim/core/math.h"
#include "sim/scene/environment.h"
#include "sim/scene/grab.h"
#include "sim/scene/shape.h"
#include "sim/solvers/verlet/dense_grid.h"

namespace cb::verlet {

/// Per-model arrays (backend memory), set when the solver is built; k and c
/// change with the sub-step length.
struct ModelView {
  const uint32_t* off = nullptr;  ///< (n + 1) spring rows
  const uint32_t* nbr = nullptr;  ///< (nnz) neighbour ids
  const float* rest = nullptr;    ///< (nnz) m
  const uint8_t* kind = nullptr;  ///< (nnz) SpringKind
  const float* k = nullptr;       ///< (nnz) N/m
  const float* c = nullptr;       ///< (nnz) N s/m
  const float* area = nullptr;    ///< (n) m^2, lumped vertex area (air drag)
  const float* damp = nullptr;    ///< (n) 1/s, velocity damping
  const float* thickness = nullptr;  ///< (n) m, obstacle collision thickness
  /// (n) m, each vertex's longest rest edge for its clearance from mesh
  /// obstacles (sim/model/edge_clearance.h); null: the thickness alone
  const float* longest_edge = nullptr;
  const uint32_t* soff = nullptr;    ///< (n + 1) rows of the strain limit: structural + shear springs, long constraints
  const uint32_t* snbr = nullptr;    ///< (snnz) their other vertex
  const float* srest = nullptr;      ///< (snnz) m, their rest lengths (rest path lengths for long constraints)
  const uint32_t* slong = nullptr;   ///< (n) where each strain row's long constraints begin (strain_rows.h)
  int n = 0;
};

/// Forces of the world during one sub-step.
struct ForceInputs {
  Vec3f gravity;  ///< m/s^2
  Wind wind;
  float air_drag = 0;  ///< kg/m^2 per m/s
  float time = 0;      ///< s, at the start of the sub-step
  float h = 0;         ///< s, sub-step
};

/// Position Verlet in velocity form (x_{n+1} = x_n + h v_{n+1}, v_{n+1} =
/// (1 - damp h) v_n + h a_n, identical to x_{n+1} = 2 x_n - x_{n-1} + h^2 a_n
/// with v_n = (x_n - x_{n-1}) / h): springs, gravity, wind drag. x1 = prediction,
/// v1 = v_{n+1} (0 at pinned vertices; finish_velocity's start).
void predict(const Context& ctx, const ModelView& m, const ForceInputs& f, const Vec3f* x, const Vec3f* v,
             const float* w, Vec3f* x1, Vec3f* v1);

/// Long-range attachments (Kim, Chentanez & Mueller-Fischer 2012): vertex i with
/// anchor[i] >= 0 (a pinned vertex) is pulled back onto the sphere of radius
/// (1 + max_stretch) geodesic[i] around it. In place (anchors never move here).
void long_range_attach(const Context& ctx, int n, const int32_t* anchor, const float* geodesic, float max_stretch,
                       const float* w, Vec3f* x);

/// The mouse grab, projected once (one thread).
void apply_grab(const Context& ctx, const Grab& g, Vec3f* x, const float* w);

/// held = w with the grabbed triangle's vertices that carry the grab set to 0
/// (the largest barycentric weight, and any of at least kHeldWeight): the
/// strain passes then treat them as pinned where the grab put them. A vertex
/// of small weight stays free, or its edge to the grabbed vertex could not
/// shorten. n vertices; the grab active.
void hold_grabbed(const Context& ctx, const Grab& g, const float* w, int n, float* held);

/// One Jacobi pass of strain limiting (Provot 1995) on structural and shear
/// springs, and with `with_long` on the rows' long constraints (strain_rows.h):
/// xb = xa + mean correction of the constraints stretched beyond (1 + s) L.
/// moved_out[i] = 1 where vertex i was corrected. With moved_in (the previous
/// pass's moved_out; null = first pass) a vertex that was not corrected and
/// whose strain neighbours were not either has the same inputs as in that pass
/// and is skipped (copied): the result is identical, the work ~ the active set.
/// A stretched constraint's excess is shared by inverse mass, or with
/// equal_split half to each free end (Provot's procedure); a held end (w = 0)
/// takes none either way.
void strain_limit(const Context& ctx, const ModelView& m, float max_stretch, const float* w, const Vec3f* xa,
                  Vec3f* xb, const uint8_t* moved_in, uint8_t* moved_out, bool with_long, bool equal_split);

/// Pushes x out of the analytic shapes to the vertex's edge clearance
/// (ModelView::longest_edge, shape_curvature: its thickness from a plane), with Coulomb
/// friction against the shape's surface velocity (x0: start of the sub-step).
/// moved (optional): set to 1 where a vertex was pushed (the strain passes' flags);
/// with only_moved, vertices whose flag is 0 are not looked at (they have not
/// moved since they were last pushed out).
void collide_shapes(const Context& ctx, const ModelView& m, const Shape* shapes, const Shape* shapes_prev,
                    int nshapes, float frame_dt, float h, const Vec3f* x0, const float* w, Vec3f* x,
                    uint8_t* moved = nullptr, bool only_moved = false);

/// Moves every free vertex with a sweep hit (obstacle_sweep.h) to the touched
/// point at the end of the sub-step, out to its edge clearance
/// (ModelView::longest_edge) on the side it came from: the vertex stops where
/// its path first met the surface (inelastic). stops: (n) incremented where a
/// vertex was stopped.
void stop_at_hits(const Context& ctx, const ModelView& m, const SweepHit* hits, const float* w, Vec3f* x,
                  float* stops);

/// As collide_shapes for triangle-mesh obstacles, given each vertex's closest
/// obstacle contact: pushed out of the plane of the contact's triangle to its
/// edge clearance (ModelView::longest_edge; moved and only_moved as for
/// collide_shapes).
void collide_meshes(const Context& ctx, const ModelView& m, const ObstacleContact* contacts, float h,
                    const Vec3f* x0, const float* w, Vec3f* x, uint8_t* moved = nullptr, bool only_moved = false);

/// Which sphere pairs are never contacts: the same vertex, spring neighbours, and
/// vertices of one piece that already overlap in the rest shape.
struct ContactFilter {
  const uint32_t* off = nullptr;      ///< (n + 1) spring rows, or null = no springs
  const uint32_t* nbr = nullptr;
  const Vec3f* rest_x = nullptr;      ///< (n) m, or null = no rest test
  const uint32_t* piece = nullptr;    ///< (n)
  float diameter = 0;                 ///< m, 2r
};

/// Per-sphere contact lists: for sphere i, ids[i K .. i K + count[i]) are the
/// (at most K) closest other spheres within `radius` m, ordered by distance then id.
struct ContactLists {
  uint32_t* count = nullptr;  ///< (n)
  uint32_t* ids = nullptr;    ///< (n K)
  int K = 0;
  int n = 0;
};

void find_contacts_hash(const Context& ctx, const ParticleHashView& grid, const Vec3f* x, int n, float radius,
                        const ContactFilter& filter, ContactLists out);
void find_contacts_dense(const Context& ctx, const DenseGridView& grid, const Vec3f* x, int n, float radius,
                         const ContactFilter& filter, ContactLists out);
/// The all-pairs marble test (Wojciechowski & Galaj 2016, Listing 2): O(n^2).
void find_contacts_all_pairs(const Context& ctx, const Vec3f* x, int n, float radius, const ContactFilter& filter,
                             ContactLists out);

/// One Jacobi pass of the sphere response: for each listed pair overlapping in
/// xa, the time of impact from x0 -> xa gives the contact normal, and the pair is
/// moved apart along it (by inverse mass) to touching distance. xb = xa + mean.
void sphere_response(const Context& ctx, const ContactLists& c, const Vec3f* rest_x, float diameter, const float* w,
                     const Vec3f* x0, const Vec3f* xa, Vec3f* xb);

/// v = (xf - x0) / h (step_velocity, from predict's v1), then at each touching pair the given fraction of the
/// approaching relative normal velocity is removed (averaged over contacts).
void finish_velocity(const Context& ctx, const ContactLists& c, float diameter, float contact_damping, float h,
                     const float* w, const Vec3f* x0, const Vec3f* xf, const Vec3f* v1, Vec3f* v);

/// overlap[i] = max over listed pairs of (diameter - |x_j - x_i|) (m), 0 if none;
/// touching[i] = 1 where overlap[i] > 0, else 0 (summed on the device for the stats).
void contact_overlap(const Context& ctx, const ContactLists& c, float diameter, const Vec3f* x, float* overlap,
                     float* touching);

}  // namespace cb::verlet
