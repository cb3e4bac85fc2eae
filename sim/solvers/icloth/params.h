// Parameters of the I-Cloth solver (Tang et al. 2018) as a typed struct and its
// ParamTable form (scene files, UI, replay and CLI all go through the table).
#pragma once

#include <string>

#include "sim/solvers/icloth/collision_defaults.h"
#include "sim/solvers/param_table.h"

namespace cb::icloth {

struct IClothParams {
  int substeps = 0;              ///< implicit steps per frame; 0 = the scene's substeps
  int cg_max_iterations = 200;   ///< PCG iteration cap of a step's first solve (and of any solve)
  float cg_tolerance = 1e-3f;    ///< relative preconditioned residual at which PCG stops (its scale: pcg_solve)
  /// Rounds of the cloth-cloth springs' active set and friction a step
  /// (solver.cpp, step_once): each takes out the springs that pulled in the
  /// last solve, lags the others' Coulomb friction from it (damped, see
  /// ClothRepulsion::lag_friction) and solves again. More rounds bring the
  /// friction closer to Coulomb's law at 30 PCG iterations each (the funnel's
  /// pair friction beyond Coulomb's bound, in units of the bound: 1.51, 1.20,
  /// 1.14 after 3, 4, 5 rounds; RESULTS.md, eleventh session). Rounds for
  /// resting obstacle contacts alone stop at three (kContactRounds).
  int spring_rounds = 3;
  /// PCG iteration cap of each re-solve in those rounds, and of a Newton
  /// iteration's solve (newton_iterations), while cloth-cloth springs are in the
  /// system: a re-solve starts from the last answer, and the error in the
  /// energy norm falls with every CG iteration, so stopping early never leaves
  /// it worse than not re-solving. 30 kept the sheet-on-sheet slide within 4 %
  /// of Coulomb's (10 did not: 21 % too far); RESULTS.md, seventh session. A
  /// round where only resting obstacle contacts changed runs to cg_max_iterations.
  int cg_resolve_iterations = 30;
  /// precondition a step's first PCG solve, and the re-solves after obstacle
  /// contacts alone changed, with an aggregation multigrid V-cycle instead of
  /// block Jacobi (multigrid.h; the springs' 30-iteration re-solves and the
  /// Newton iterations keep block Jacobi); the stopping test is the same.
  /// Opt-in: RESULTS.md, eighth and twenty-first sessions
  bool multigrid = false;
  /// start a step's first PCG solve (either preconditioner) from the Galerkin
  /// correction over one uniform velocity change per cloth piece
  /// (coarse_start.h); the stopping test is unchanged
  bool cg_coarse_start = false;
  /// start a step's first PCG solve from v plus the last step's solved change
  /// when neither step had a contact in its solve (no resting obstacle contact,
  /// no cloth-cloth spring) and the last one's CCD found no impact; the
  /// stopping test's scale stays the cold start's (cg.h, pcg_solve's shift).
  /// The hanging sheet: 492 -> 226 PCG iterations a frame. Not with contacts:
  /// there the guess's error stays in the answer (stacked sheets went to strain
  /// 1.78, the dress to 0.44; RESULTS.md, ninth, thirty-first and
  /// thirty-second sessions)
  bool cg_warm_start = true;
  /// evaluate the stiffness product on the differences p_j - p_i
  /// (system_kernels.h, add_stiffness_row): exact for a rigid motion, where the
  /// float sum K_ii p_i + sum K_ij p_j is off by up to 30 % of the mass term on
  /// the 200k-triangle funnel. Opt-in: with the hold of new crossings the tangled
  /// sweep passes with it, but the dress family got worse (largest strain 4.37
  /// against 3.18 on average, 4 of 12 runs at the last resort; RESULTS.md,
  /// twenty-second session)
  bool stiffness_on_differences = false;
  /// Newton iterations of the backward Euler step beyond the first (solver.cpp,
  /// newton_iterations): a step whose solved end stretches some edge by more
  /// than newton_strain beyond its strain at the start is linearised again at
  /// that end and solved again, at most newton_iterations times (0 = off: one
  /// linearisation, Baraff & Witkin 1998)
  int newton_iterations = 2;
  float newton_strain = 0.2f;
  float weft_ratio = 1.f;        ///< weft stretch stiffness / warp stretch stiffness
  float stiffness_damping = 1e-3f;  ///< s, Rayleigh beta: damping force -beta K v
  float grab_stiffness = 500.f;  ///< N/m, spring of the mouse grab (times Grab::stiffness)
  int obstacle_passes = 2;       ///< passes of the analytic-obstacle velocity filter
  /// stiffness of the resting obstacle contacts in the solve (resting_contacts.h),
  /// in units of the vertex's diagonal of A: the solve's motion into an obstacle is
  /// 1 / (1 + this) of what it would be; 0 = off (the velocity filter alone)
  float obstacle_stiffness = 100.f;
  /// the same for cloth-cloth proximity pairs that close or rest, as springs
  /// along the surfaces' normal with Coulomb friction in the solve
  /// (ClothRepulsion::springs; 0 = off: the repulsion filter alone, which
  /// stretches squeezed stacks and folds: RESULTS.md, sixth session)
  float proximity_stiffness = 10.f;
  // penetration handling (Tang et al. 2018, Sec. 3-4)
  bool self_collision = true;    ///< cloth-cloth proximity and CCD (also needs the scene's switch)
  float thickness = 0.f;         ///< m, collision thickness; 0 = the materials' thickness
  // cloth-cloth proximity repulsion and friction (Bridson et al. 2002, repulsion.h)
  bool repulsion = true;         ///< velocity filter for cloth-cloth pairs closer than the proximity distance
  float repulsion_scale = 1.25f; ///< proximity distance / thickness (> 1: the zones separate to the thickness)
  float repulsion_rate = 0.1f;   ///< fraction of the overlap pushed out per step
  float repulsion_ahead = 0.5f;  ///< pairs this many thicknesses beyond the proximity distance get springs
  int repulsion_passes = 32;     ///< max Jacobi passes of the filter (each followed by the obstacle filter)
  /// pairs of one piece closer than the proximity distance at rest repel only
  /// below 0.9 x their rest distance, in every piece; off, only in the pieces
  /// whose proximity distance reaches their short edges (solver.cpp,
  /// kReachOverEdge) or whose material asks for it (Material::rest_limit, on for
  /// a dropped OBJ), which always take it (stat "rest-limited pieces")
  bool repulsion_rest_limit = false;
  int zone_iterations = kZoneIterations;  ///< max gradient-descent iterations of the zone solver (Sec. 4)
  float zone_mu = kZoneMu;       ///< augmented-Lagrangian penalty mu (Eq. 5-6)
  float chebyshev_rho = kChebyshevRho;  ///< Chebyshev acceleration spectral radius (Eq. 8)
  int collision_rounds = kCollisionRounds;  ///< max CCD / zone rounds per step before the rigid fallback
  bool untangle = true;          ///< push pairs that start a step intersecting apart (untangle.h)
  /// a tangled step that the rigid zones leave with impacts holds only the
  /// impacts' vertices at their start before the whole cloth is clamped
  /// (CollisionHandler::hold_impacts_at_start)
  bool hold_impacts = true;
  /// a zone's free neighbours follow it where its solution stretched their edge
  /// beyond (1 + zone_follow) x its free length (zone_followers.h); 0 = off
  float zone_follow = kZoneFollow;
  /// the zones' membrane (zone_solver.h): a one-sided spring on every cloth edge
  /// at a zone vertex, of stiffness zone_membrane x the zone's mean vertex mass,
  /// pulls back edges the zone stretches beyond (1 + zone_membrane_strain) x
  /// their free length; 0 = off (the paper's objective)
  float zone_membrane = 100.f;
  float zone_membrane_strain = 0.f;
  /// max rigid-impact-zone rounds of a clean start before the step is clamped
  /// (why 40: collision_defaults.h)
  int rigid_rounds = kRigidRounds;
  bool incremental_ccd = true;   ///< re-check only T_d-T_s and T_d-T_d after the first round
  /// Most passes of the takeover settle (IClothSolver::settle): when the solver
  /// takes over a moving state with a clean start (a switch from another
  /// solver, time > 0), its first step is preceded by implicit steps from rest
  /// without gravity, the collision handling included, whose motion is kept and
  /// whose velocities are not; they stop once one would release at most 5 % of
  /// the handed kinetic energy plus gravity's kinetic energy over a step, or
  /// after a frame's worth of CCD and rigid rounds. 0 = off.
  int settle_passes = 32;
  /// Most iterations of the untangle of a crossed start (contour_untangle.h):
  /// a state that starts a frame crossed before any frame has started clean (a
  /// state taken over from another solver, or the scene's own start) is first
  /// moved down the length of its intersection contours (Volino &
  /// Magnenat-Thalmann 2006), positions only. Kept when nothing crosses after
  /// it (after a takeover the settle and the ease follow, as for a clean
  /// state); otherwise the state goes on crossed to the tangled-start
  /// handling, and the next frame tries again (solver.cpp, untangle_crossed).
  /// 0 = off.
  int untangle_iterations = 600;
  /// Times the untangle's descent, stuck, starts again from its best state
  /// smoothed around the crossed triangles (contour_untangle.h): a crumple at
  /// the mesh's scale, where the descent flattens triangles instead of
  /// shortening a contour. 0 = never.
  int untangle_smoothings = 8;
  /// Times the eager second untangle smooths (0 = no second untangle): when the
  /// first leaves pairs crossed, it runs again from the same start, stuck
  /// after 20 iterations instead of 60 and smoothing up to this many times, and
  /// the result with fewer pairs is kept (IClothSolver::untangle_crossed). A
  /// violent whirl hands over a hundred and more pairs, a crumple too deep for
  /// the first; the eager one alone leaves some of the gentler swings crossed
  /// that the first clears.
  int untangle_eager_smoothings = 16;
  /// Most frames of the takeover ease (sim/model/takeover_ease.h): from the first
  /// step of a state taken over at time > 0 (after the settle, or instead of it
  /// when the start is tangled), the kinetic energy a step ends with is capped at
  /// what it started with plus gravity's gain over the step, until a frame needs
  /// no cap or after this many frames. 0 = off.
  int ease_frames = 30;
  /// run the penetration counter after every frame (stat "intersecting pairs");
  /// off by default: World already counts after every frame
  bool count_intersections = false;
  /// On CUDA (K in SELL order), store K's and the block-Jacobi inverses' floats
  /// split by component (system.h, split_float) for whole-line loads; false:
  /// whole 36-byte blocks. Same results either way (same arithmetic); a switch
  /// to measure one against the other (BM_IClothGpuFunnelWholeBlocks). No effect
  /// on the CPU backend (CSR order).
  bool split_blocks = true;
  /// Threads a row in the PCG's product (1, 2 or 4; SystemView::lanes): each
  /// sums every lanes-th block and spring entry of the row (system_row_part), on
  /// CUDA a warp a share, so a row's loads are spread over more warps. The same
  /// sums on both backends (the CPU adds a row's shares in lane order), and
  /// other rounding than 1. A switch to measure on a device.
  int product_lanes = 1;

  /// "" when valid, else the first problem.
  std::string validate() const;
  ParamTable to_table() const;
  /// Reads the table (names as in to_table); returns "" or why not.
  static std::string from_table(const ParamTable& t, IClothParams* out);
};

}  // namespace cb::icloth
