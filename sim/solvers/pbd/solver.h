// Position-based dynamics solver `pbd`:
//  - XPBD (Macklin, Mueller, Chentanez 2016): compliant constraints whose stiffness
//    does not depend on the iteration count or time step;
//  - small steps (Macklin et al. 2019): the frame is split into substeps, each
//    predict -> project constraints N times -> update velocities;
//  - parallel Gauss-Seidel over graph colours (Fratarcangeli & Pellacini 2015):
//    constraints of one colour share no vertex and are projected in one parallel
//    pass, colours in sequence; Jacobi with averaging is the alternative mode;
//  - constraints: edge distance (stretch; quad-grid diagonals use the shear
//    compliance), isometric bending (Bergou et al. 2006), the mouse grab (Mueller
//    et al. 2007 attachment), obstacles (analytic shapes, triangle meshes through
//    ObstacleProximity) with position-level Coulomb friction (Macklin et al. 2014),
//    pins (inverse mass 0), particle-particle self-collision through ParticleHash
//    (once per substep, after the iterations; no self-friction).
// Parameters and their mapping to the Material: params.h, constraint_set.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/collision/obstacle_proximity.h"
#include "sim/collision/particle_hash.h"
#include "sim/model/hoops.h"
#include "sim/model/takeover_ease.h"
#include "sim/solvers/pbd/constraint_set.h"
#include "sim/solvers/pbd/kernels.h"
#include "sim/solvers/pbd/params.h"
#include "sim/solvers/solver.h"

namespace cb {

class PbdSolver final : public Solver {
 public:
  /// Builds the constraint set of `model` (colour-ordered) on ctx's backend.
  /// Default compliances come from the first cloth's material.
  PbdSolver(const Context& ctx, const ClothModel& model);

  std::string name() const override { return "pbd"; }
  ParamTable params() const override { return params_.to_table(); }
  std::string set_params(const ParamTable& table) override;
  void step(const StepInputs& in, SimState& state) override;
  size_t device_bytes() const override;

  const PbdParams& typed_params() const { return params_; }
  /// Validates and applies; "" or why refused.
  std::string set_typed_params(const PbdParams& p);
  /// RMS constraint residual |C + alpha~ lambda| (m) after the last substep, or -1
  /// when measure_residual is off.
  double last_residual() const { return last_residual_; }
  int num_edge_colors() const { return cs_.edge_color_start.empty() ? 0 : int(cs_.edge_color_start.size()) - 1; }
  int num_bend_colors() const { return cs_.bend_color_start.empty() ? 0 : int(cs_.bend_color_start.size()) - 1; }

 private:
  pbd::PbdView view(SimState& state);
  void substep(const StepInputs& in, pbd::PbdView& v, int k, int n, float h);
  int settle(const StepInputs& in, const pbd::PbdView& v, float h);
  pbd::Compliance compliance(float h) const;
  void project(const StepInputs& in, const pbd::PbdView& v, pbd::Compliance c);
  void upload_substep_shapes(const ObstacleSet& o, float s);
  void self_collision(const pbd::PbdView& v);
  float self_radius() const;

  Context ctx_;
  PbdParams params_;
  pbd::DeviceConstraintSet cs_;
  DeviceHoops hoops_;  ///< closed boundary loops (sim/model/hoops.h)
  size_t nverts_ = 0;
  float max_thickness_ = 0, mean_edge_ = 0;
  float max_clearance_ = 0;      ///< m, the largest clearance a vertex can ask for (edge_clearance.h)
  DeviceBuffer<float> wp_;       ///< (nverts) 1/kg, the projections' inverse masses (PbdParams::split)
  DeviceBuffer<float> longest_;  ///< (nverts) m, each vertex's longest rest edge (edge_clearance.h)
  /// m, how far beyond a vertex's own clearance the mesh contacts are looked for
  float mesh_keep() const;
  DeviceBuffer<Vec3f> x0_, dx_, edge_corr_, bend_corr_, bend_lambda_;
  DeviceBuffer<float> edge_lambda_, scratch_;
  DeviceBuffer<pbd::VertexContact> contact_;
  DeviceBuffer<ObstacleContact> mesh_contacts_;
  DeviceBuffer<Shape> shapes_sub_;
  std::vector<Shape> shapes_host_;
  ObstacleProximity proximity_;
  ParticleHash hash_;
  DeviceBuffer<Vec3f> rest_;  ///< (nverts) m, rest positions (self-collision neighbour filter)
  double last_residual_ = -1;
  bool settled_ = false;  ///< the first step's settle is done (settle)
  TakeoverEase ease_;     ///< after a takeover (takeover_ease.h)
  DeviceBuffer<float> mass_;  ///< (nverts) kg
  double cloth_mass_ = 0;                      ///< kg, all vertices
};

/// Registry factory.
std::unique_ptr<Solver> make_pbd_solver(const Context& ctx, const ClothModel& model);

}  // namespace cb
