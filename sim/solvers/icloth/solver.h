// I-Cloth (Tang, Wang, Liu, Manocha 2018, "I-Cloth: Incremental Collision Handling
// for GPU-Based Interactive Cloth Simulation"), Sections 2-4:
//  - membrane (membrane.h) + dihedral bending (bending.h) + damping,
//  - backward Euler linearised once per step (Baraff & Witkin 1998), solved by a
//    block-Jacobi preconditioned CG over a 3x3 block-sparse matrix (cg.h); a
//    step that stretches an edge by newton_strain is linearised again at its
//    end and solved again (further Newton iterations, solver.cpp),
//  - pins and the mouse grab as filtered constraints / a stiff implicit spring,
//  - obstacles: resting contacts as stiff springs in the solve with Coulomb
//    friction (resting_contacts.h), then a proximity velocity filter with
//    friction (obstacle_kernels.h),
//  - cloth-cloth proximity (Sec. 3): closing pairs as springs along the surfaces'
//    normal with Coulomb friction as a drag in the solve, repeated solves for
//    their active set (repulsion.h, proximity_stiffness), then the repulsion
//    velocity filter of Bridson et al. 2002 (repulsion.h),
//  - penetration handling: CCD, incremental T_d/T_s rounds, impact zones solved
//    by the non-linear solver of Sec. 4, rigid impact zones as the fallback
//    (collision_handler.h); the penetration counter after every frame.
#pragma once

#include <memory>

#include "sim/solvers/icloth/cg.h"
#include "sim/solvers/icloth/params.h"
#include "sim/solvers/icloth/repulsion.h"
#include "sim/solvers/icloth/system_kernels.h"
#include "sim/solvers/solver.h"

namespace cb {

/// Registry factory for "icloth".
std::unique_ptr<Solver> make_icloth_solver(const Context& ctx, const ClothModel& model);

namespace icloth {

class IClothSolver : public Solver {
 public:
  IClothSolver(const Context& ctx, const ClothModel& model);
  ~IClothSolver() override;
  std::string name() const override { return "icloth"; }
  ParamTable params() const override { return params_.to_table(); }
  std::string set_params(const ParamTable& table) override;
  void step(const StepInputs& in, SimState& state) override;
  size_t device_bytes() const override;
  const IClothParams& typed_params() const { return params_; }

 private:
  struct Impl;
  void rebuild_rest();
  /// which pieces take the repulsion's rest limit (solver.cpp: kReachOverEdge, Material::rest_limit)
  void update_rest_limited_pieces();
  void step_once(const StepInputs& in, SimState& state, float h, double t, float tau0, float tau1);
  // step_once's stages (solver.cpp), in the order it runs them
  void find_proximity(const StepInputs& in, const SimState& state);
  void assemble_forces(const StepInputs& in, const SimState& state, const SystemView& A, float h, double t);
  void solve_velocities(const StepInputs& in, SimState& state, const SystemView& A, float h, bool resting);
  CgResult first_solve(const StepInputs& in, const SystemView& A, float h, bool untouched);
  CgResult contact_rounds(const StepInputs& in, const SimState& state, const SystemView& A, float h, bool resting,
                          const CgResult& first);
  void obstacle_response(const StepInputs& in, SimState& state, const SystemView& A, float h, bool resting);
  int settle(const StepInputs& in, SimState& state, float h, int substeps);
  bool untangle_crossed(const StepInputs& in, SimState& state);
  size_t push_out_of_bodies(const StepInputs& in, SimState& state, const std::vector<Vec3f>& x,
                            const std::vector<float>& inv_mass, float reach, size_t& crossed);
  SystemView system_view(const StepInputs& in, const SimState& state, float h) const;
  void newton_iterations(const StepInputs& in, SimState& state, const SystemView& A, double cg_scale);
  bool add_contact_springs(const StepInputs& in, const SimState& state, bool use_repulsion, SystemView& A);
  RepulsionSettings repulsion_settings() const;
  void repulsion_passes(const StepInputs& in, SimState& state, float h);
  void obstacle_filter(const StepInputs& in, SimState& state, float h, int passes);
  /// true when the step's first CCD pass found no impact (x_new as solved)
  bool resolve_collisions(const StepInputs& in, SimState& state, float tau0, float tau1);
  Context ctx_;
  IClothParams params_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace icloth
}  // namespace cb
