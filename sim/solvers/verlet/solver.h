// Verlet mass-spring cloth with virtual-sphere self-collision.
//
// Zheng 2021 (thesis): position Verlet integration of a mass-spring cloth with
// structural, shear and bend springs on the quad (12 neighbours) or equilateral
// (18) lattice; each vertex carries a virtual sphere of radius r = half the rest
// length; sphere centres are binned in a grid with one centre per cell (side
// 2r/sqrt(3)) and pairs found in a 5x5x5 neighbourhood; overlapping pairs are
// separated using the sphere-sphere time of impact (Sec. 4.3, the quadratic
// |p0 + t dp| = 2r) and their approaching normal velocity is damped.
// Wojciechowski & Galaj 2016: the all-pairs "marble" test (Listing 2), kept as
// the baseline store.
//
// One sub-step (h = dt / substeps), every pass one thread per vertex:
//   1. predict   x1 = x + h ((1 - damp h) v + h a), a = springs + gravity + wind drag
//   2. grab      project the mouse grab (grab_holds: then held through step 3)
//   3. strain    Jacobi strain limiting of structural/shear springs (Provot 1995)
//                and of long constraints strain_reach rings long (strain_rows.h),
//                each pass followed by the hoops' length limit (sim/model/hoops.h),
//                long-range attachments (without grab_holds: the grab after them)
//   4. obstacles analytic shapes (shape_distance) and meshes: a vertex that may
//                have moved beyond the query's reach relative to a mesh stopped
//                where its path first touches it (mesh_ccd, obstacle_sweep.h),
//                then pushed out of its closest triangle (ObstacleProximity,
//                normals to the side a vertex came from); with obstacles_in_passes
//                also after every strain pass of step 3
//   5. spheres   contact lists from the chosen store, Jacobi TOI response, obstacles again
//   6. finish    v = (x1 - x) / h with contact damping; x = x1
// Fixes over the thesis: the TOI quadratic's degenerate cases are defined
// (sphere_toi.h); springs are softened to the explicit stability limit of the
// sub-step (springs.h); the hash store works anywhere in space.
#pragma once

#include <memory>

#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/particle_hash.h"
#include "sim/solvers/solver.h"
#include "sim/solvers/verlet/dense_grid.h"
#include "sim/model/hoops.h"
#include "sim/solvers/verlet/params.h"
#include "sim/solvers/verlet/springs.h"
#include "sim/solvers/verlet/verlet_kernels.h"

namespace cb {

class VerletSolver : public Solver {
 public:
  VerletSolver(const Context& ctx, const ClothModel& model);
  std::string name() const override { return "verlet"; }
  ParamTable params() const override { return params_.to_table(); }
  std::string set_params(const ParamTable& table) override;
  void step(const StepInputs& in, SimState& state) override;
  void debug_draw(DebugDraw& out) const override;
  size_t device_bytes() const override;

  const VerletParams& typed_params() const { return params_; }
  /// Virtual sphere radius (m).
  float sphere_radius() const { return radius_; }
  /// Host copy of the spring lists (tests).
  const SpringLists& springs() const { return springs_; }
  /// The filter of pairs that never collide (spring neighbours, rest overlaps).
  verlet::ContactFilter contact_filter() const;

 private:
  void upload_strain_rows(const ClothModel& model);
  void update_coefficients(const ClothModel& model, float h);
  void update_attachments(const SimState& state);
  /// Sub-step `index` of `count` in the frame.
  struct SubstepSpan {
    int index = 0, count = 1;
    /// The part of the frame it covers (the obstacles' poses at its start and end).
    FrameSpan frame() const { return {float(index) / float(count), float(index + 1) / float(count)}; }
  };
  void substep(const StepInputs& in, SimState& state, float h, SubstepSpan span);
  void collide_obstacles(const StepInputs& in, SimState& state, float h, SubstepSpan span);
  void sweep_meshes(const SimState& state, SubstepSpan span);
  /// m: how far from a vertex the closest-point query looks for a mesh obstacle.
  float mesh_reach() const;
  void query_meshes(const Vec3f* x0);
  void self_collide(const StepInputs& in, SimState& state, float h);
  void find_contacts(const Vec3f* x, int n, float radius);
  void report_stats(const StepInputs& in);
  verlet::ModelView model_view() const;
  verlet::ContactLists contact_lists();

  Context ctx_;
  VerletParams params_;
  SpringLists springs_;
  float rest_length_ = 0;         ///< m, mean structural rest length
  float radius_ = 0;              ///< m, virtual sphere radius
  float coeff_h_ = -1;            ///< sub-step the coefficients were made for
  size_t softened_ = 0;
  size_t long_constraints_ = 0;   ///< the strain limit's long constraints (strain_rows.h)
  int strain_rows_reach_ = -1;    ///< strain_reach the rows were built for
  float max_thickness_ = 0;       ///< m, largest material thickness
  float max_clearance_ = 0;       ///< m, the largest clearance a vertex can ask for (edge_clearance.h)
  // per model (backend)
  DeviceBuffer<uint32_t> off_, nbr_, piece_;
  DeviceBuffer<uint32_t> soff_, snbr_;  ///< the strain limit's rows: structural + shear springs, long constraints
  DeviceBuffer<float> srest_;
  DeviceBuffer<uint32_t> slong_;  ///< (n) where each strain row's long constraints begin
  DeviceHoops hoops_;  ///< closed boundary loops (hoops.h)
  DeviceBuffer<float> rest_, k_, c_, area_, damp_, thick_;
  DeviceBuffer<float> longest_;  ///< (n) m, each vertex's longest rest edge (edge_clearance.h)
  DeviceBuffer<uint8_t> kind_;
  DeviceBuffer<Vec3f> rest_x_;
  DeviceBuffer<int32_t> anchor_;     ///< (n) nearest pin, -1 = none (long-range attachments)
  DeviceBuffer<float> geodesic_;     ///< (n) m, rest path length to it
  std::vector<uint8_t> pinned_;      ///< (n) pin pattern the attachments were made for
  bool any_pin_ = false;
  // per step scratch (backend)
  DeviceBuffer<Vec3f> xa_, xb_;
  DeviceBuffer<Vec3f> v1_;  ///< (n) m/s, the sub-step's predicted velocity (verlet::predict)
  DeviceBuffer<uint8_t> moved_a_, moved_b_;  ///< (n) strain pass corrected the vertex (ping-pong)
  DeviceBuffer<float> held_w_;  ///< (n) 1/kg, the inverse masses with the grabbed vertices held (grab_holds)
  DeviceBuffer<uint32_t> ccount_, cids_;
  DeviceBuffer<float> overlap_;   ///< per sphere, deepest listed overlap (m), for the stats and the debug draw
  DeviceBuffer<float> touching_;  ///< per sphere, 1 if it overlaps a listed sphere
  DeviceBuffer<ObstacleContact> mesh_contacts_;
  DeviceBuffer<SweepHit> sweep_hits_;  ///< (n) the sub-step's first touches of mesh obstacles (mesh_ccd)
  DeviceBuffer<float> sweep_stops_;    ///< (n) how often each vertex was stopped by them this frame
  ParticleHash hash_;
  DenseSphereGrid dense_;
  ObstacleProximity proximity_;
  bool dense_failed_ = false;
  bool contacts_valid_ = false;
};

/// Registry factory.
std::unique_ptr<Solver> make_verlet_solver(const Context& ctx, const ClothModel& model);

}  // namespace cb
