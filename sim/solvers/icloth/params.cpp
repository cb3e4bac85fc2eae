#include "sim/solvers/icloth/params.h"

#include <cmath>

namespace cb::icloth {

std::string IClothParams::validate() const {
  ParamTable t = to_table();
  for (const ParamInfo& p : t.entries())
    if (!p.in_range()) return "parameter '" + p.name + "' is out of range";
  if (product_lanes == 3) return "parameter 'product_lanes' must be 1, 2 or 4";
  return "";
}

ParamTable IClothParams::to_table() const {
  ParamTable t;
  t.group("implicit solve");
  t.add_int("substeps", substeps, 0, 100, "implicit steps per frame (0 = the scene's substeps)");
  t.add_int("cg_max_iterations", cg_max_iterations, 1, 10000, "PCG iteration cap of a step's solve");
  t.add_int("spring_rounds", spring_rounds, 0, 100,
            "rounds of the cloth-cloth springs' active set and friction a step (each a re-solve)");
  t.add_int("cg_resolve_iterations", cg_resolve_iterations, 1, 10000,
            "PCG iteration cap of each re-solve with the cloth-cloth springs");
  t.add_float("cg_tolerance", cg_tolerance, 1e-8, 0.5, "", "relative residual at which PCG stops", true);
  t.add_bool("multigrid", multigrid, "precondition the PCG with an aggregation multigrid V-cycle (else block Jacobi)");
  t.add_bool("cg_coarse_start", cg_coarse_start,
             "start the first PCG solve from the best uniform velocity change of each cloth piece");
  t.add_bool("cg_warm_start", cg_warm_start,
             "start the first PCG solve from the last step's velocity change while nothing touches the cloth");
  t.add_bool("stiffness_on_differences", stiffness_on_differences,
             "stiffness product on neighbour differences (exact for rigid motion; opt-in)");
  t.add_int("newton_iterations", newton_iterations, 0, 100,
            "further Newton iterations of a step that stretches an edge by newton_strain (0 = off)");
  t.add_float("newton_strain", newton_strain, 0, 100, "", "growth of an edge's strain over a step that relinearises it");
  t.group("material and mouse");
  t.add_float("weft_ratio", weft_ratio, 0.01, 100, "", "weft / warp stretch stiffness", true);
  t.add_float("stiffness_damping", stiffness_damping, 0, 1, "s", "Rayleigh damping beta (force -beta K v)");
  t.add_float("grab_stiffness", grab_stiffness, 0, 1e6, "N/m", "spring of the mouse grab", true);
  t.group("obstacle contacts");
  t.add_int("obstacle_passes", obstacle_passes, 1, 8, "passes of the analytic-obstacle velocity filter");
  // (both stiffnesses: beyond 1e4 times the diagonal the solve only loses its
  // conditioning. Obstacle contacts at 1e5: the small funnel 4 times slower; at
  // 1e6 verlet_fold.json stretched to 39, and to 0.81 with the cloth-cloth
  // springs at 1e6; RESULTS.md, twenty-seventh session)
  t.add_float("obstacle_stiffness", obstacle_stiffness, 0, 1e4, "",
              "resting obstacle contacts in the solve (x the vertex's diagonal; 0 = off)");
  t.group("cloth-cloth contacts");
  t.add_bool("self_collision", self_collision, "cloth-cloth proximity and CCD");
  t.add_float("proximity_stiffness", proximity_stiffness, 0, 1e4, "",
              "closing cloth-cloth pairs as springs with friction in the solve (x their diagonal; 0 = off)");
  t.add_float("thickness", thickness, 0, 0.1, "m", "collision thickness (0 = the materials')");
  t.add_bool("repulsion", repulsion, "cloth-cloth proximity repulsion and friction (velocity filter)");
  t.add_float("repulsion_scale", repulsion_scale, 0.1, 10, "", "proximity distance / thickness");
  t.add_float("repulsion_rate", repulsion_rate, 0, 1, "", "fraction of the overlap pushed out per step");
  t.add_float("repulsion_ahead", repulsion_ahead, 0, 10, "",
              "pairs this many thicknesses beyond the proximity distance get springs that let them close to it");
  t.add_int("repulsion_passes", repulsion_passes, 1, 64, "Jacobi passes of the repulsion filter");
  t.add_bool("repulsion_rest_limit", repulsion_rest_limit,
             "pairs close at rest repel only below 0.9 x that distance, in every piece "
             "(always in pieces whose proximity distance reaches their edges, and in dropped OBJs)");
  t.group("impact zones (Sec. 4) and fallbacks");
  t.add_int("zone_iterations", zone_iterations, 1, 10000, "max iterations of the impact-zone solver");
  t.add_float("zone_mu", zone_mu, 1, 1e8, "", "augmented-Lagrangian penalty mu (Eq. 5-6)", true);
  t.add_float("chebyshev_rho", chebyshev_rho, 0, 0.99999, "", "Chebyshev spectral radius (0 = off)");
  t.add_int("collision_rounds", collision_rounds, 1, 1000, "CCD/zone rounds before the rigid fallback");
  t.add_int("rigid_rounds", rigid_rounds, 0, 1000, "rigid-zone rounds before the clamp (at most 5 when tangled)");
  t.add_float("zone_follow", zone_follow, 0, 10, "",
              "a zone's neighbours follow it past this strain of their edge over its free length (0 = off)");
  t.add_float("zone_membrane", zone_membrane, 0, 1e6, "",
              "stiffness of the zones' membrane, x the zone's mean vertex mass (0 = off: the paper's objective)");
  t.add_float("zone_membrane_strain", zone_membrane_strain, 0, 10, "",
              "the zones' membrane pulls back edges beyond this strain over their free length");
  t.add_bool("untangle", untangle, "push triangle pairs that start a step intersecting apart (untangle.h)");
  t.add_bool("hold_impacts", hold_impacts,
             "a tangled step the rigid zones leave with impacts holds only their vertices at the start, before "
             "clamping the whole cloth");
  t.add_bool("incremental_ccd", incremental_ccd, "re-check only T_d-T_s and T_d-T_d pairs (Algorithm 1)");
  t.group("taking over another solver's state");
  t.add_int("settle_passes", settle_passes, 0, 1000,
            "most implicit passes from rest that settle a state taken over from another solver (0 = off)");
  t.add_int("untangle_iterations", untangle_iterations, 0, 100000,
            "most contour-shortening iterations that untangle a crossed start: a state taken over, or the "
            "scene's own (0 = off)");
  t.add_int("untangle_smoothings", untangle_smoothings, 0, 100,
            "times the untangle, stuck, starts again from its best state smoothed around the crossed triangles "
            "(0 = never)");
  t.add_int("untangle_eager_smoothings", untangle_eager_smoothings, 0, 100,
            "times a second, eager untangle smooths when the first leaves pairs crossed (0 = no second one)");
  t.add_int("ease_frames", ease_frames, 0, 10000,
            "most frames whose kinetic energy gain is capped after taking over a state (0 = off)");
  t.group("diagnostics");
  t.add_bool("count_intersections", count_intersections, "count intersecting triangle pairs after each frame");
  t.add_bool("split_blocks", split_blocks,
             "CUDA: the system's 3x3 blocks stored split by component (same results; a layout to measure)");
  t.add_int("product_lanes", product_lanes, 1, 4,
            "threads a row in the PCG's product: 1, 2 or 4 (the sums in another order; to measure on CUDA)");
  return t;
}

std::string IClothParams::from_table(const ParamTable& t, IClothParams* out) {
  IClothParams p;
  for (const ParamInfo& e : t.entries())
    if (!e.in_range()) return "parameter '" + e.name + "' is out of range";
  p.substeps = t.get_int("substeps");
  p.cg_max_iterations = t.get_int("cg_max_iterations");
  p.spring_rounds = t.get_int("spring_rounds");
  p.cg_resolve_iterations = t.get_int("cg_resolve_iterations");
  p.cg_tolerance = float(t.get("cg_tolerance"));
  p.multigrid = t.get_bool("multigrid");
  p.cg_coarse_start = t.get_bool("cg_coarse_start");
  p.cg_warm_start = t.get_bool("cg_warm_start");
  p.stiffness_on_differences = t.get_bool("stiffness_on_differences");
  p.newton_iterations = t.get_int("newton_iterations");
  p.newton_strain = float(t.get("newton_strain"));
  p.weft_ratio = float(t.get("weft_ratio"));
  p.stiffness_damping = float(t.get("stiffness_damping"));
  p.grab_stiffness = float(t.get("grab_stiffness"));
  p.obstacle_passes = t.get_int("obstacle_passes");
  p.obstacle_stiffness = float(t.get("obstacle_stiffness"));
  p.proximity_stiffness = float(t.get("proximity_stiffness"));
  p.self_collision = t.get_bool("self_collision");
  p.thickness = float(t.get("thickness"));
  p.repulsion = t.get_bool("repulsion");
  p.repulsion_scale = float(t.get("repulsion_scale"));
  p.repulsion_rate = float(t.get("repulsion_rate"));
  p.repulsion_ahead = float(t.get("repulsion_ahead"));
  p.repulsion_passes = t.get_int("repulsion_passes");
  p.repulsion_rest_limit = t.get_bool("repulsion_rest_limit");
  p.zone_iterations = t.get_int("zone_iterations");
  p.zone_mu = float(t.get("zone_mu"));
  p.chebyshev_rho = float(t.get("chebyshev_rho"));
  p.collision_rounds = t.get_int("collision_rounds");
  p.rigid_rounds = t.get_int("rigid_rounds");
  p.zone_follow = float(t.get("zone_follow"));
  p.zone_membrane = float(t.get("zone_membrane"));
  p.zone_membrane_strain = float(t.get("zone_membrane_strain"));
  p.untangle = t.get_bool("untangle");
  p.hold_impacts = t.get_bool("hold_impacts");
  p.incremental_ccd = t.get_bool("incremental_ccd");
  p.count_intersections = t.get_bool("count_intersections");
  p.split_blocks = t.get_bool("split_blocks");
  p.product_lanes = t.get_int("product_lanes");
  p.settle_passes = t.get_int("settle_passes");
  p.untangle_iterations = t.get_int("untangle_iterations");
  p.untangle_smoothings = t.get_int("untangle_smoothings");
  p.untangle_eager_smoothings = t.get_int("untangle_eager_smoothings");
  p.ease_frames = t.get_int("ease_frames");
  std::string err = p.validate();
  if (err.empty()) *out = p;
  return err;
}

}  // namespace cb::icloth
