// The neighbours of an impact zone follow it where its solution stretched them.
//
// An impact zone's solution (zone_solver.h; Tang et al. 2018, Eq. 1-3) is the
// mass-weighted least change of its own vertices' end positions; the membrane is
// not in it. When a sheet lands fast on another (faster than the pairs ahead of
// the proximity search reach in a step), a zone takes the landing's momentum on
// the vertices of its impacts alone: on the 58² funnel a resting vertex of the
// lower sheet was pushed 7.7 mm down while its neighbour outside the zone stayed,
// and that edge ended the step 1.9 times its length (RESULTS.md, eleventh and
// eighteenth sessions). The implicit solve sees the stretch only in the next step.
//
// After each round of zones, a free vertex outside the zones whose edge to a zone
// vertex is longer than (1 + limit) times its length at the unconstrained end
// positions x_free moves along that edge until it is (1 + limit) times as long;
// with several such edges it moves by the mean of their corrections, in up to
// kRingSweeps sweeps (Jacobi). Then the same for the vertices beyond those that
// moved, ring by ring (at most kMaxFollowRings), each ring against the one
// before, which no longer moves: Provot's 1995 strain limiting,
// outward from the zones, on the edges they stretched. The CCD of the next round
// checks the followers' new paths like every other (their triangles join T_d),
// so a follower that now collides joins a zone there. The solver skips this on
// a tangled hand-over (its swings froze with it). Until the zones had a
// membrane (zone_solver.h) the handler also skipped it while a mesh obstacle
// moved in the step; with the membrane the dress's 24 trajectories stay clean
// with followers there too (RESULTS.md, nineteenth session).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/core/math.h"
#include "sim/model/topology.h"

namespace cb::icloth {

/// Rings of followers outward from the zones at most.
constexpr int kMaxFollowRings = 8;
/// Jacobi sweeps of a ring's corrections at most.
constexpr int kRingSweeps = 8;

/// Moves the followers of the zones (vertex ids per zone) in x1 (m) as above;
/// ring1: the mesh's vertex neighbours (Topology::ring1); x_free: (nverts) m, inv_mass: (nverts) 0 = pinned (never moved), limit: the
/// strain the zones may leave on a rim edge beyond its free length. Returns the
/// moved vertices.
std::vector<int> follow_zones(const std::vector<std::vector<int>>& zone_verts, const Csr& ring1,
                              const std::vector<Vec3f>& x_free, const std::vector<float>& inv_mass, float limit,
                              std::vector<Vec3f>& x1);

}  // namespace cb::icloth
