// Default settings of I-Cloth's collision handling, in one place: the solver's
// parameters (params.h) start from them and copy them into the handler's
// settings every step; tests that build a CollisionHandler or call the zone
// solver directly get the same values from the settings' own defaults
// (CollisionSettings, collision_handler.h; ZoneSettings, zone_solver.h).
#pragma once

namespace cb::icloth {

/// CCD / impact-zone rounds a step before the rigid fallback.
constexpr int kCollisionRounds = 20;
/// Rigid-impact-zone rounds of a clean start before the step is clamped. 40:
/// the dress's 24 trajectories of dress_family.sh end no frame crossed, where
/// 20 left two with 6 crossed frames; only steps that reach 20 rounds change
/// (RESULTS.md, thirty-third session). A tangled start stops at 5
/// (kTangledRigidRounds, collision_handler.cpp).
constexpr int kRigidRounds = 40;
/// Gradient-descent iterations of the zone solver (Tang et al. 2018, Sec. 4).
constexpr int kZoneIterations = 100;
/// Augmented-Lagrangian penalty mu (Eq. 5-6), relative to the zone's mean vertex mass.
constexpr float kZoneMu = 1e3f;
/// Chebyshev acceleration's spectral radius (Eq. 8).
constexpr float kChebyshevRho = 0.9992f;
/// A zone's free neighbours follow it past this strain over their free length
/// (zone_followers.h); 0 = off.
constexpr float kZoneFollow = 0.3f;

}  // namespace cb::icloth
