// The I-Cloth solver's state between steps (IClothSolver::Impl), shared by the
// files that define its member functions: solver.cpp (the step) and takeover.cpp
// (a state handed over or started crossed: the settle and the untangle).
#pragma once

#include <vector>

#include "sim/core/buffer.h"
#include "sim/model/takeover_ease.h"
#include "sim/solvers/icloth/cg.h"
#include "sim/solvers/icloth/collision_handler.h"
#include "sim/solvers/icloth/obstacle_kernels.h"
#include "sim/solvers/icloth/repulsion.h"
#include "sim/solvers/icloth/resting_contacts.h"
#include "sim/solvers/icloth/solver.h"
#include "sim/solvers/icloth/system_kernels.h"

namespace cb::icloth {

struct IClothSolver::Impl {
  const ClothModel* model = nullptr;
  // elements and pattern
  DeviceBuffer<Int3> tris;
  DeviceBuffer<Int4> bends;
  DeviceBuffer<TriRest> tri_rest;
  DeviceBuffer<BendRest> bend_rest;
  DevicePattern pattern;
  // per-vertex constants
  DeviceBuffer<float> mass, area, alpha, thickness, friction;
  // per-step scratch
  DeviceBuffer<Vec3f> tri_grad, bend_grad, bend_gt;
  DeviceBuffer<MembraneW<float>> tri_hw;
  DeviceBuffer<float> bend_hs, speed;
  DeviceBuffer<M3> K;
  DeviceBuffer<Vec3f> f, rhs, v_new, x_new;
  /// (n) m/s, the last step's solved velocity change, the next first solve's
  /// warm start while warm_valid: that step had no contact in its solve and no
  /// impact in its CCD (IClothParams::cg_warm_start)
  DeviceBuffer<Vec3f> warm_dv;
  bool warm_valid = false;
  CgScratch cg;
  Multigrid mg;  ///< built on the first solve that asks for it (IClothParams::multigrid)
  std::vector<CoarsePiece> coarse_pieces;  ///< the pieces' vertex ranges (IClothParams::cg_coarse_start)
  CoarseScratch coarse;
  // obstacles
  DeviceBuffer<Shape> shape_start, shape_end;
  ObstacleProximity mesh_prox;
  DeviceBuffer<ObstacleContact> contacts;
  DeviceBuffer<RestingContact> resting;  ///< (n) resting obstacle contacts of the step
  DeviceBuffer<M3> resting_k;            ///< (n) N/m, their springs (SystemView::extra)
  DeviceBuffer<uint8_t> stuck;           ///< (n) friction state at the end of the last step (resting_contacts.h: kFree...)
  DeviceBuffer<Vec3f> carried;           ///< (n) kg m/s, kinetic friction for the next step (finish_resting_friction)
  DeviceBuffer<double> round_counts;     ///< (3) a contact round's counts (step_once), read at once
  RowsSumScratch round_sum;              ///< update_resting_friction's launch
  bool stuck_set = false;                ///< stuck / carried may hold values (cleared when resting contacts stop)
  /// no resting friction carries over into the next step (stuck, carried zero)
  void forget_resting_friction() {
    stuck.fill_zero();
    carried.fill_zero();
    stuck_set = false;
  }
  DeviceBuffer<M3> diag_block;           ///< (n) kg, system_diagonal_blocks of the step (pair springs)
  float max_thickness = 0;
  std::vector<float> piece_short_edge;   ///< (pieces) m, short_edge of each piece at rest
  size_t rest_limited_pieces = 0;        ///< pieces that take the rest limit (kReachOverEdge, Material::rest_limit)
  // cloth-cloth proximity repulsion and friction
  ClothRepulsion repulsion;
  // penetration handling (host side) and the penetration counter
  CollisionHandler collisions;
  bool check_tangles = true;  ///< look for intersecting pairs before the next sub-step
  /// Some frame started clean (the world's check, or the untangle of a crossed
  /// start): tangles found since are this solver's own, which it pushes apart
  /// (untangle.h). A crossed state (handed over by another solver, or the
  /// scene's own start) that the untangle cannot clear keeps the conservative
  /// tangled-start handling until it is clean once: on 18 Verlet
  /// swings handed over (sheets folded through themselves, 10-35 pairs) the
  /// pushes left fewer crossed pairs after 6 frames (219 instead of 229) but
  /// more strain (1.41 instead of 1.36 on average, 3 swings above 2.5 instead
  /// of 2; RESULTS.md, seventeenth session).
  bool seen_clean_start = false;
  bool settled = false;                  ///< the takeover settle is decided (settle)
  int untangle_tries = 0;                ///< frames that started with the untangle
  size_t untangle_left = 0;              ///< crossed pairs the last untangle left (its result dropped)
  DeviceBuffer<Vec3f> settle_v;          ///< (n) m/s, the handed velocities kept over the settle
  DeviceBuffer<float> energy_scratch;    ///< (n) kinetic_energy's
  TakeoverEase ease;                     ///< after a takeover (takeover_ease.h)
  std::vector<float> h_mass, h_thickness;
  double cloth_mass = 0;  ///< kg, all vertices
  DeviceBuffer<uint32_t> tri_piece;
  // further Newton iterations (newton_iterations)
  DeviceBuffer<Int2> edges;                       ///< (nedges) vertex ids
  DeviceBuffer<float> edge_rest, edge_scratch;    ///< (nedges) m, rest lengths; scratch
  DeviceBuffer<Vec3f> newton_b0, newton_f0, newton_f, newton_kv;  ///< (n) relinearised_rhs's inputs
  DeviceBuffer<Vec3f> newton_v;  ///< (n) m/s, the last iterate (kept when an iteration does not help)

  ElementIn el_in() const {
    return {tris.data(), tri_rest.data(), int(tris.size()), bends.data(), bend_rest.data(), int(bends.size())};
  }
  ElementOut el_out() {
    return {tri_grad.data(), tri_hw.data(), bend_grad.data(), bend_gt.data(), bend_hs.data()};
  }
};

}  // namespace cb::icloth
